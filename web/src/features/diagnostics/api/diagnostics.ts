import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { DiagnosticBooking, DiagnosticService } from '@/types/database';
import type { DiagnosticValues } from '../schemas/diagnostic-schema';

export async function listDiagnosticServices(): Promise<DiagnosticService[]> {
  const { data, error } = await supabase().from('diagnostic_services').select('code, position, name, description, price').order('position');
  if (error) throw toAppError(error);
  return (data ?? []) as DiagnosticService[];
}

export async function createDiagnosticBooking(userId: string, v: DiagnosticValues): Promise<DiagnosticBooking> {
  const { data, error } = await supabase()
    .from('diagnostic_bookings')
    .insert({
      user_id: userId,
      service_type: v.serviceType,
      vehicle_type: v.vehicleType,
      customer_email: v.email,
      customer_phone: v.phone,
      appointment_date: v.date,
      appointment_time: v.time,
      notes: v.notes || null,
      booking_status: 'pending',
    })
    .select()
    .single();
  if (error) throw toAppError(error, 'Erreur lors de la réservation. Veuillez réessayer.');
  return data as DiagnosticBooking;
}

export const diagnosticKeys = { services: ['diagnostic-services'] as const };

export function useDiagnosticServices() {
  return useQuery({ queryKey: diagnosticKeys.services, queryFn: listDiagnosticServices, staleTime: 5 * 60_000 });
}

export function useCreateDiagnosticBooking() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, values }: { userId: string; values: DiagnosticValues }) => createDiagnosticBooking(userId, values),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['my-bookings'] }),
  });
}
