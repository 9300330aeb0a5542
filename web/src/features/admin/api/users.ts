import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { AdminUser } from '../types';
import { adminKeys } from './keys';

/** Every profile with its booking figures (admin_users, V42). */
export async function fetchUsers(): Promise<AdminUser[]> {
  const { data, error } = await supabase().rpc('admin_users');
  if (error) throw toAppError(error, 'Erreur lors du chargement des utilisateurs');
  return (data ?? []) as AdminUser[];
}

/** Name, phone and role of a profile (the e-mail is not editable). */
export async function updateUser(id: string, values: { full_name: string; phone: string | null; role: 'user' | 'admin' }): Promise<void> {
  const { error } = await supabase().from('profiles').update(values).eq('id', id).select('id').single();
  if (error) throw toAppError(error, 'Erreur lors de la sauvegarde');
}

/** Deletes the accounts themselves (admin_delete_users, V41), not only their profiles. */
export async function deleteUsers(userIds: string[]): Promise<number> {
  const { data, error } = await supabase().rpc('admin_delete_users', { ids: userIds });
  if (error) throw toAppError(error, 'Erreur lors de la suppression');
  return data as number;
}

export const useUsers = () => useQuery({ queryKey: adminKeys.users(), queryFn: fetchUsers });

export function useUpdateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: string; values: Parameters<typeof updateUser>[1] }) => updateUser(v.id, v.values),
    onSuccess: () => qc.invalidateQueries({ queryKey: adminKeys.all }),
  });
}

export function useDeleteUsers() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: deleteUsers, onSuccess: () => qc.invalidateQueries({ queryKey: adminKeys.all }) });
}
