import type { User } from '@supabase/supabase-js';
import { supabase } from './supabase';
import { toAppError } from './errors';
import type { Profile } from '@/types/database';

const PROFILE_COLUMNS = 'id, user_id, username, email, full_name, phone, role, updated_at';

/** The signed-in user's profile; created (role user) if the database has none yet. */
export async function fetchOwnProfile(user: User): Promise<Profile> {
  const { data, error } = await supabase().from('profiles').select(PROFILE_COLUMNS).eq('user_id', user.id).maybeSingle();
  if (error) throw toAppError(error);
  if (data) return data as Profile;
  const local = user.email?.split('@')[0] || `user_${user.id.slice(0, 8)}`;
  const fullName = typeof user.user_metadata?.full_name === 'string' && user.user_metadata.full_name.trim() ? user.user_metadata.full_name.trim() : local;
  const created = await supabase()
    .from('profiles')
    .insert({ user_id: user.id, username: local, email: user.email, full_name: fullName, role: 'user' })
    .select(PROFILE_COLUMNS)
    .single();
  if (created.error) throw toAppError(created.error);
  return created.data as Profile;
}

export async function updateOwnProfile(userId: string, values: { full_name: string; phone: string }): Promise<Profile> {
  const { data, error } = await supabase()
    .from('profiles')
    .update({ full_name: values.full_name.trim(), phone: values.phone.trim() || null })
    .eq('user_id', userId)
    .select(PROFILE_COLUMNS)
    .single();
  if (error) throw toAppError(error);
  return data as Profile;
}

export const profileKeys = {
  all: ['profile'] as const,
  own: (userId: string | undefined) => [...profileKeys.all, userId ?? 'anonymous'] as const,
};
