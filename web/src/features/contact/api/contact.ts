import { useMutation } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { ContactMessageInsert } from '@/types/database';

/** Stores a message for the team (visitors may write; only administrators read). */
export async function sendContactMessage(m: ContactMessageInsert): Promise<void> {
  const { error } = await supabase()
    .from('contact_messages')
    .insert({ ...m, phone: m.phone || null });
  if (error) throw toAppError(error, 'Une erreur est survenue. Veuillez réessayer plus tard.');
}

export function useSendContactMessage() {
  return useMutation({ mutationFn: sendContactMessage });
}
