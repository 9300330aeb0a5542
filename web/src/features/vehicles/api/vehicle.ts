import { useQuery } from '@tanstack/react-query';
import { getApiUrl, hasStoredSession, supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import { todayIso } from '@/lib/format';
import type { Vehicle } from '@/types/database';
import { VEHICLE_COLUMNS, vehicleKeys } from './vehicles';
import type { TakenRange } from '../lib/availability';

/** How far ahead the vehicle page shows its taken dates. */
export const AVAILABILITY_DAYS = 90;

declare global {
  interface Window {
    /** The vehicle page's request, started by the page before the app loaded (scripts/early-vehicle.js). */
    __earlyVehicle?: { id: string; api: string; response: Promise<Vehicle | null> };
  }
}

/**
 * The answer of the request the page started before the app loaded, taken once, if it asked as a
 * visitor would now (same vehicle, same API, no session: a signed-in administrator may see more).
 */
function earlyVehicle(id: string): Promise<Vehicle | null> | null {
  const early = typeof window === 'undefined' ? undefined : window.__earlyVehicle;
  if (!early) return null;
  window.__earlyVehicle = undefined;
  return early.id === id.toLowerCase() && early.api === getApiUrl() && !hasStoredSession() ? early.response : null;
}

/** One vehicle for its page; null when it does not exist (or is retired: row-level security hides it). */
export async function fetchVehicle(id: string): Promise<Vehicle | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const early = earlyVehicle(id);
  if (early) {
    const v = await early.catch(() => undefined);
    if (v !== undefined) return v;
  }
  const { data, error } = await supabase().from('vehicles').select(VEHICLE_COLUMNS).eq('id', id).maybeSingle();
  if (error) throw toAppError(error, 'Erreur lors du chargement du véhicule');
  return (data as Vehicle | null) ?? null;
}

/** Its taken dates from today (vehicle_taken_dates, V67): nothing about who booked them. */
export async function fetchTakenDates(id: string, from = todayIso()): Promise<TakenRange[]> {
  const { data, error } = await supabase().rpc('vehicle_taken_dates', { vehicle_id: id, from_date: from, days: AVAILABILITY_DAYS });
  if (error) throw toAppError(error, 'Erreur lors du chargement des disponibilités');
  return (data ?? []) as TakenRange[];
}

export const useVehicle = (id: string) => useQuery({ queryKey: [...vehicleKeys.all, 'one', id], queryFn: () => fetchVehicle(id) });
export const useTakenDates = (id: string) =>
  useQuery({ queryKey: [...vehicleKeys.all, 'taken', id, todayIso()], queryFn: () => fetchTakenDates(id), staleTime: 60_000 });
