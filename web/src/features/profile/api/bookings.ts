import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { AppError, errorMessages, toAppError } from '@/lib/errors';
import { formatDate, formatDays } from '@/lib/format';
import { paymentMethodLabels } from '@/lib/labels';
import type { AirportBooking, BookingStatus, DiagnosticBooking, Numeric, PremiumBooking, VehicleBooking } from '@/types/database';

export type BookingKind = 'vehicle' | 'airport' | 'diagnostic' | 'premium';

/** The table of each kind of booking. */
export const bookingTables: Record<BookingKind, 'bookings' | 'airport_bookings' | 'diagnostic_bookings' | 'premium_service_bookings'> = {
  vehicle: 'bookings',
  airport: 'airport_bookings',
  diagnostic: 'diagnostic_bookings',
  premium: 'premium_service_bookings',
};

/** One booking of any kind, in the shape the profile lists. */
export interface MyBooking {
  kind: BookingKind;
  id: string;
  title: string;
  detail: string;
  total: Numeric;
  status: BookingStatus;
  createdAt: string;
  /** a rental's dates (ISO), which its customer may change while it is pending */
  dates?: { start: string; end: string };
}

export const statusLabels: Record<BookingStatus, string> = {
  pending: 'En attente',
  confirmed: 'Confirmée',
  active: 'En cours',
  completed: 'Terminée',
  cancelled: 'Annulée',
};

export const kindLabels: Record<BookingKind, string> = {
  vehicle: 'Location de véhicule',
  airport: 'Service aéroportuaire',
  diagnostic: 'Diagnostic automobile',
  premium: 'Service premium',
};

const airportNames = { vip: 'Service VIP', standard: 'Service Standard', baggage: 'Navette aéroport' } as const;

export function toMyBookings(
  vehicle: VehicleBooking[],
  airport: AirportBooking[],
  diagnostic: DiagnosticBooking[],
  premium: PremiumBooking[],
): MyBooking[] {
  const all: MyBooking[] = [
    ...vehicle.map((b) => ({
      kind: 'vehicle' as const,
      id: b.id,
      title: b.vehicles?.name ?? 'Véhicule',
      detail: vehicleDetail(b),
      total: b.total_amount,
      status: b.booking_status,
      createdAt: b.created_at,
      dates: { start: b.start_date, end: b.end_date },
    })),
    ...airport.map((b) => ({
      kind: 'airport' as const,
      id: b.id,
      title: airportNames[b.service_type] ?? 'Service aéroportuaire',
      detail: `Vol ${b.flight_number} (${b.flight_type === 'arrival' ? 'arrivée' : 'départ'}) le ${formatDate(b.flight_date)} à ${b.flight_time.slice(0, 5)} · ${b.passengers} passager${b.passengers > 1 ? 's' : ''}`,
      total: b.total_amount,
      status: b.booking_status,
      createdAt: b.created_at,
    })),
    ...diagnostic.map((b) => ({
      kind: 'diagnostic' as const,
      id: b.id,
      title: b.service_name ?? 'Diagnostic',
      detail: `${b.vehicle_type} · le ${formatDate(b.appointment_date)} à ${b.appointment_time.slice(0, 5)}`,
      total: b.total_amount,
      status: b.booking_status,
      createdAt: b.created_at,
    })),
    ...premium.map((b) => ({
      kind: 'premium' as const,
      id: b.id,
      title: b.service_name ?? 'Service premium',
      detail: `À partir du ${formatDate(b.start_date)} · ${formatDays(b.duration_days)}`,
      total: b.total_amount,
      status: b.booking_status,
      createdAt: b.created_at,
    })),
  ];
  return all.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

/** Total spent: every booking but the cancelled ones. */
export function totalSpent(bookings: MyBooking[]): number {
  return bookings.filter((b) => b.status !== 'cancelled').reduce((sum, b) => sum + Number(b.total), 0);
}

/** The « Panier » of the navigation: how many bookings are pending. */
export function pendingCount(bookings: MyBooking[] | undefined): number {
  return bookings?.filter((b) => b.status === 'pending').length ?? 0;
}

/** « Panier : 2 réservations en attente » (signed in) or « Panier : 0 réservation » (a visitor). */
export function cartLabel(pending: number, signedIn = true): string {
  return `Panier : ${pending} réservation${pending > 1 ? 's' : ''}${signedIn ? ' en attente' : ''}`;
}

export async function listMyBookings(userId: string): Promise<MyBooking[]> {
  const db = supabase();
  const [v, a, d, p] = await Promise.all([
    db.from('bookings').select('*, vehicles(name, make, model, primary_image)').eq('user_id', userId).order('created_at', { ascending: false }),
    db.from('airport_bookings').select('*').eq('user_id', userId).order('created_at', { ascending: false }),
    db.from('diagnostic_bookings').select('*').eq('user_id', userId).order('created_at', { ascending: false }),
    db.from('premium_service_bookings').select('*').eq('user_id', userId).order('created_at', { ascending: false }),
  ]);
  for (const r of [v, a, d, p]) if (r.error) throw toAppError(r.error, 'Erreur lors du chargement des réservations');
  return toMyBookings(
    (v.data ?? []) as VehicleBooking[],
    (a.data ?? []) as AirportBooking[],
    (d.data ?? []) as DiagnosticBooking[],
    (p.data ?? []) as PremiumBooking[],
  );
}

/** A customer cancels their own pending booking (the database refuses anything else). */
export async function cancelBooking(kind: BookingKind, id: string): Promise<void> {
  const { data, error } = await supabase().from(bookingTables[kind]).update({ booking_status: 'cancelled' }).eq('id', id).eq('booking_status', 'pending').select('id');
  if (error) throw toAppError(error, "Erreur lors de l'annulation");
  // no row: it is no longer pending (confirmed by the team meanwhile)
  if (!data || data.length === 0) throw new AppError('booking_changed', errorMessages.booking_changed);
}

/**
 * A customer moves their pending rental to new dates (V68): the database checks them as a new
 * booking's and prices them again; returns the new total.
 */
export async function changeBookingDates(id: string, start: string, end: string): Promise<number> {
  const { data, error } = await supabase()
    .from('bookings')
    .update({ start_date: start, end_date: end })
    .eq('id', id)
    .eq('booking_status', 'pending')
    .select('total_amount');
  if (error) throw toAppError(error, 'Erreur lors du changement de dates');
  if (!data || data.length === 0) throw new AppError('booking_changed', errorMessages.booking_changed);
  return Number(data[0]!.total_amount);
}

export function useChangeBookingDates() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, start, end }: { id: string; start: string; end: string }) => changeBookingDates(id, start, end),
    onSuccess: () => qc.invalidateQueries({ queryKey: myBookingKeys.all }),
  });
}

export const myBookingKeys = {
  all: ['my-bookings'] as const,
  list: (userId: string) => [...myBookingKeys.all, userId] as const,
};

export function useMyBookings(userId: string | undefined) {
  return useQuery({ queryKey: myBookingKeys.list(userId ?? ''), queryFn: () => listMyBookings(userId as string), enabled: !!userId });
}

/** The signed-in customer's pending bookings (0 for a visitor). */
export function usePendingCount(userId: string | undefined): number {
  return pendingCount(useMyBookings(userId).data);
}

export function useCancelBooking() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, id }: { kind: BookingKind; id: string }) => cancelBooking(kind, id),
    onSuccess: () => qc.invalidateQueries({ queryKey: myBookingKeys.all }),
  });
}

/** Dates, then what the reservation dialog recorded: pick-up time, people, how they will pay. */
function vehicleDetail(b: VehicleBooking): string {
  const parts = [`Du ${formatDate(b.start_date)} au ${formatDate(b.end_date)}${b.pickup_time ? ` (prise en charge à ${b.pickup_time.slice(0, 5)})` : ''}`];
  if (b.passengers) parts.push(`${b.passengers} personne${b.passengers > 1 ? 's' : ''}`);
  if (b.payment_method) {
    const reference = b.payment_method === 'bank' && b.payment_reference ? ` (référence ${b.payment_reference})` : '';
    parts.push(`Paiement prévu : ${paymentMethodLabels[b.payment_method]}${reference}`);
  }
  return parts.join(' · ');
}
