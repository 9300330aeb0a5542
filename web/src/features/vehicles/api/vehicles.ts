import { useQuery } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { Vehicle, VehicleCategory } from '@/types/database';

export const VEHICLE_COLUMNS =
  'id, name, make, model, year, category, color, daily_rate, rental_status, description, features, location, specifications, pricing, images, primary_image';

export interface VehicleListParams {
  category?: VehicleCategory | undefined;
  /** Default 6; `null` for all. */
  limit?: number | null;
}

/** Available vehicles, cheapest first. */
export async function listAvailableVehicles({ category, limit = 6 }: VehicleListParams): Promise<Vehicle[]> {
  let q = supabase().from('vehicles').select(VEHICLE_COLUMNS).eq('rental_status', 'available').order('daily_rate').order('name');
  if (category) q = q.eq('category', category);
  if (limit !== null) q = q.limit(limit);
  const { data, error } = await q;
  if (error) throw toAppError(error, 'Erreur lors du chargement des véhicules');
  return (data ?? []) as Vehicle[];
}

export const vehicleKeys = {
  all: ['vehicles'] as const,
  list: (p: VehicleListParams) => [...vehicleKeys.all, 'list', p.category ?? 'all', p.limit ?? 'all'] as const,
};

export function useAvailableVehicles(params: VehicleListParams) {
  return useQuery({ queryKey: vehicleKeys.list(params), queryFn: () => listAvailableVehicles(params) });
}
