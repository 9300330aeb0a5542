import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import { adminKeys } from './keys';

/** A contact or support message as the inbox shows it (contact_messages, V34 + V66). */
export interface ContactMessage {
  id: string;
  source: 'contact' | 'support';
  name: string;
  email: string;
  phone: string | null;
  subject: 'reservation' | 'information' | 'support' | 'other';
  message: string;
  created_at: string;
  read_at: string | null;
  replied_at: string | null;
  reply: string | null;
  archived_at: string | null;
}

export type MessageBox = 'inbox' | 'archived';

const COLUMNS = 'id, source, name, email, phone, subject, message, created_at, read_at, replied_at, reply, archived_at';

export async function fetchMessages(box: MessageBox): Promise<ContactMessage[]> {
  const q = supabase().from('contact_messages').select(COLUMNS).order('created_at', { ascending: false }).limit(500);
  const { data, error } = await (box === 'inbox' ? q.is('archived_at', null) : q.not('archived_at', 'is', null));
  if (error) throw toAppError(error, 'Erreur lors du chargement des messages');
  return (data ?? []) as ContactMessage[];
}

/** Messages in the inbox nobody has opened yet (the menu's count). */
export async function fetchUnreadCount(): Promise<number> {
  const { count, error } = await supabase()
    .from('contact_messages')
    .select('id', { count: 'exact', head: true })
    .is('read_at', null)
    .is('archived_at', null);
  if (error) throw toAppError(error, 'Erreur lors du chargement des messages');
  return count ?? 0;
}

async function patchMessage(id: string, values: { read_at?: string | null; archived_at?: string | null }): Promise<void> {
  const { error } = await supabase().from('contact_messages').update(values).eq('id', id).select('id').single();
  if (error) throw toAppError(error, 'Erreur lors de la mise à jour du message');
}

/** Mail `body` to the sender (the database writes it to its outbox) and note the reply. */
export async function replyToMessage(id: string, body: string): Promise<void> {
  const { error } = await supabase().rpc('admin_reply_message', { message_id: id, body });
  if (error) throw toAppError(error, "Erreur lors de l'envoi de la réponse");
}

export const useMessages = (box: MessageBox) => useQuery({ queryKey: adminKeys.messages(box), queryFn: () => fetchMessages(box) });
export const useUnreadCount = () => useQuery({ queryKey: adminKeys.unread(), queryFn: fetchUnreadCount, refetchInterval: 60_000 });

function useMessageMutation<T>(fn: (v: T) => Promise<void>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: [...adminKeys.all, 'messages'] });
      void qc.invalidateQueries({ queryKey: adminKeys.unread() });
    },
  });
}

export const useMarkRead = () => useMessageMutation((id: string) => patchMessage(id, { read_at: new Date().toISOString() }));
export const useArchive = () => useMessageMutation(({ id, archived }: { id: string; archived: boolean }) => patchMessage(id, { archived_at: archived ? new Date().toISOString() : null }));
export const useReply = () => useMessageMutation(({ id, body }: { id: string; body: string }) => replyToMessage(id, body));
