import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { PremiumBooking, PremiumService } from '@/types/database';
import type { PremiumValues } from '../schemas/premium-schema';

export async function listPremiumServices(): Promise<PremiumService[]> {
  const { data, error } = await supabase().from('premium_services').select('code, position, name, description, price_per_day').order('position');
  if (error) throw toAppError(error);
  return (data ?? []) as PremiumService[];
}

export async function createPremiumBooking(userId: string, v: PremiumValues): Promise<PremiumBooking> {
  const { data, error } = await supabase()
    .from('premium_service_bookings')
    .insert({
      user_id: userId,
      service_type: v.serviceType,
      customer_name: v.name,
      customer_email: v.email,
      customer_phone: v.phone,
      start_date: v.startDate,
      duration_days: v.duration,
      special_requirements: v.requirements || null,
      booking_status: 'pending',
    })
    .select()
    .single();
  if (error) throw toAppError(error, 'Erreur lors de la demande. Veuillez réessayer.');
  return data as PremiumBooking;
}

export const premiumKeys = { services: ['premium-services'] as const };

export function usePremiumServices() {
  return useQuery({ queryKey: premiumKeys.services, queryFn: listPremiumServices, staleTime: 5 * 60_000 });
}

export function useCreatePremiumBooking() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, values }: { userId: string; values: PremiumValues }) => createPremiumBooking(userId, values),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['my-bookings'] }),
  });
}
