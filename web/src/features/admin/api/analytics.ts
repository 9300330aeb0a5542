import { useQuery } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { Analytics } from '../types';
import { adminKeys } from './keys';

/** The analytics of [start, end], computed by the database (admin_analytics, V43). */
export async function fetchAnalytics(start: string, end: string): Promise<Analytics> {
  const { data, error } = await supabase().rpc('admin_analytics', { start_date: start, end_date: end });
  if (error) throw toAppError(error, 'Erreur lors du chargement des données analytiques');
  // jsonb (`Json` in the generated types): its shape is the function's contract.
  return data as unknown as Analytics;
}

export const useAnalytics = (start: string, end: string) =>
  useQuery({ queryKey: adminKeys.analytics(start, end), queryFn: () => fetchAnalytics(start, end), enabled: !!start && !!end && end >= start });
