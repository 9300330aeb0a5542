import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { AirportBooking, AirportService } from '@/types/database';
import type { AirportValues } from '../schemas/airport-schema';

export async function listAirportServices(): Promise<AirportService[]> {
  const { data, error } = await supabase().from('airport_services').select('code, position, name, description, price').order('position');
  if (error) throw toAppError(error);
  return (data ?? []) as AirportService[];
}

/** Creates a pending airport booking; the database sets the total (unit price × passengers). */
export async function createAirportBooking(userId: string, v: AirportValues): Promise<AirportBooking> {
  const { data, error } = await supabase()
    .from('airport_bookings')
    .insert({
      user_id: userId,
      service_type: v.serviceType,
      flight_type: v.flightType,
      flight_date: v.date,
      flight_time: v.time,
      flight_number: v.flightNumber,
      passengers: v.passengers,
      special_requests: v.notes || null,
      booking_status: 'pending',
    })
    .select()
    .single();
  if (error) throw toAppError(error, 'Erreur lors de la réservation. Veuillez réessayer.');
  return data as AirportBooking;
}

export const airportKeys = { services: ['airport-services'] as const };

export function useAirportServices() {
  return useQuery({ queryKey: airportKeys.services, queryFn: listAirportServices, staleTime: 5 * 60_000 });
}

export function useCreateAirportBooking() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, values }: { userId: string; values: AirportValues }) => createAirportBooking(userId, values),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['my-bookings'] }),
  });
}
