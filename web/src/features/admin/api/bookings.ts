import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { AppError, errorMessages, toAppError } from '@/lib/errors';
import type { BookingStatus, TablesUpdate } from '@/types/database';
import type { AdminBooking, BookingKind, CustomerRef } from '../types';
import { airportLabels, diagnosticLabels, premiumLabels } from '../lib/labels';
import { adminKeys } from './keys';

export const bookingTables: Record<BookingKind, 'bookings' | 'airport_bookings' | 'diagnostic_bookings' | 'premium_service_bookings'> = {
  vehicle: 'bookings',
  airport: 'airport_bookings',
  diagnostic: 'diagnostic_bookings',
  premium: 'premium_service_bookings',
};

type Row = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : null);

/** A row of one of the four tables in the list's shape. */
export function normalizeBooking(kind: BookingKind, row: Row, profiles: Record<string, CustomerRef> = {}): AdminBooking {
  // the profile embedded by the read (`profiles(...)`, V65), else the one known by id (a live row)
  const embedded = row.profiles && typeof row.profiles === 'object' ? (row.profiles as CustomerRef) : null;
  const profile: CustomerRef | null = embedded ?? (typeof row.user_id === 'string' ? (profiles[row.user_id] ?? null) : null);
  const customer: CustomerRef = {
    full_name: profile?.full_name ?? str(row.customer_name),
    email: profile?.email ?? str(row.customer_email),
    phone: profile?.phone ?? str(row.customer_phone),
    role: profile?.role ?? null,
  };
  const base = {
    kind,
    id: row.id as string,
    user_id: str(row.user_id),
    booking_status: row.booking_status as BookingStatus,
    total_amount: Number(row.total_amount ?? 0),
    created_at: row.created_at as string,
    updated_at: str(row.updated_at),
    customer,
    raw: row,
  };
  switch (kind) {
    case 'vehicle': {
      const v = (row.vehicles ?? null) as Row | null;
      return {
        ...base,
        subject: (v?.name as string) ?? 'Véhicule',
        detail: v ? [v.make, v.model, v.license_plate].filter(Boolean).join(' · ') : '',
        date: str(row.start_date),
        end: str(row.end_date),
      };
    }
    case 'airport':
      return {
        ...base,
        subject: airportLabels[row.service_type as string] ?? String(row.service_type),
        detail: `Vol ${row.flight_number as string} · ${row.flight_type === 'departure' ? 'Départ' : 'Arrivée'} · ${row.passengers as number} passager(s)`,
        date: str(row.flight_date),
        end: null,
      };
    case 'diagnostic':
      return {
        ...base,
        subject: str(row.service_name) ?? diagnosticLabels[row.service_type as string] ?? String(row.service_type),
        detail: `${row.vehicle_type as string} · ${String(row.appointment_time).slice(0, 5)}`,
        date: str(row.appointment_date),
        end: null,
      };
    case 'premium':
      return {
        ...base,
        customer: { ...customer, full_name: customer.full_name ?? str(row.customer_name) },
        subject: str(row.service_name) ?? premiumLabels[row.service_type as string] ?? String(row.service_type),
        detail: `${row.duration_days as number} jour(s)`,
        date: str(row.start_date),
        end: null,
      };
  }
}

const LOAD_ERROR = 'Erreur lors du chargement des réservations';

/** The customer's profile, embedded in each read through the bookings' reference to it (V65). */
const PROFILE = 'profiles(user_id, full_name, email, phone, role)';

/** Every booking of the four kinds, newest first, with the customer's profile: four requests, no join in the page. */
export async function fetchAllBookings(): Promise<AdminBooking[]> {
  const db = supabase();
  const [vehicle, airport, diagnostic, premium] = await Promise.all([
    db.from('bookings').select(`*, ${PROFILE}, vehicles(id, name, make, model, year, license_plate, category, daily_rate)`).order('created_at', { ascending: false }),
    db.from('airport_bookings').select(`*, ${PROFILE}`).order('created_at', { ascending: false }),
    db.from('diagnostic_bookings').select(`*, ${PROFILE}`).order('created_at', { ascending: false }),
    db.from('premium_service_bookings').select(`*, ${PROFILE}`).order('created_at', { ascending: false }),
  ]);
  for (const r of [vehicle, airport, diagnostic, premium]) if (r.error) throw toAppError(r.error, LOAD_ERROR);
  const all: [BookingKind, Row[]][] = [
    ['vehicle', (vehicle.data ?? []) as Row[]],
    ['airport', (airport.data ?? []) as Row[]],
    ['diagnostic', (diagnostic.data ?? []) as Row[]],
    ['premium', (premium.data ?? []) as Row[]],
  ];
  return all.flatMap(([kind, rows]) => rows.map((r) => normalizeBooking(kind, r))).sort((a, b) => b.created_at.localeCompare(a.created_at));
}

/** The columns an edit may change, of whichever kind of booking. */
export type BookingUpdate =
  | TablesUpdate<'bookings'>
  | TablesUpdate<'airport_bookings'>
  | TablesUpdate<'diagnostic_bookings'>
  | TablesUpdate<'premium_service_bookings'>;

/** Thrown when a conditional update matched no row: someone changed the booking since it was shown. */
export const bookingChanged = () => new AppError('booking_changed', errorMessages.booking_changed);

/**
 * Moves a booking from the status shown (`from`) to `to`, only if it still has `from`: a
 * booking someone else changed meanwhile is left alone (« modifiée entre-temps »). The database
 * allows the state machine's moves only (`nextBookingStatuses`) and stamps updated_at.
 */
export async function updateBookingStatus(kind: BookingKind, id: string, from: BookingStatus, to: BookingStatus): Promise<void> {
  const { data, error } = await supabase().from(bookingTables[kind]).update({ booking_status: to }).eq('id', id).eq('booking_status', from).select('id');
  if (error) throw toAppError(error, 'Erreur lors de la mise à jour du statut');
  if (!data || data.length === 0) throw bookingChanged();
}

/**
 * The edited fields, only if the booking is as it was shown (same `updated_at`, or the same
 * status for a row read without one); the database re-prices what the price depends on.
 */
export async function updateBooking(kind: BookingKind, id: string, values: BookingUpdate, shown: Pick<AdminBooking, 'updated_at' | 'booking_status'>): Promise<void> {
  const q = supabase().from(bookingTables[kind]).update(values).eq('id', id);
  const { data, error } = await (shown.updated_at ? q.eq('updated_at', shown.updated_at) : q.eq('booking_status', shown.booking_status)).select('id');
  if (error) throw toAppError(error, 'Erreur lors de la modification');
  if (!data || data.length === 0) throw bookingChanged();
}

export const useAllBookings = () => useQuery({ queryKey: adminKeys.bookings(), queryFn: fetchAllBookings });

export function useUpdateBookingStatus() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { booking: AdminBooking; status: BookingStatus }) => updateBookingStatus(v.booking.kind, v.booking.id, v.booking.booking_status, v.status),
    onSettled: () => qc.invalidateQueries({ queryKey: adminKeys.all }),
  });
}

export function useUpdateBooking() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { booking: AdminBooking; values: BookingUpdate }) => updateBooking(v.booking.kind, v.booking.id, v.values, v.booking),
    // a refusal may mean the list is stale: reload it either way
    onSettled: () => qc.invalidateQueries({ queryKey: adminKeys.all }),
  });
}
