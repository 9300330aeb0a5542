import type { User } from '@supabase/supabase-js';
import { supabase, supabaseClient } from './supabase';
import { AppError, errorMessages, toAppError } from './errors';
import type { Profile } from '@/types/database';

const PROFILE_COLUMNS = 'id, user_id, username, email, full_name, phone, role, notify_email, notify_sms, updated_at';

/**
 * The signed-in user's profile; created (role user) if the database has none yet (its trigger
 * makes one with every account, so only an account older than it lacks one).
 *
 * The session may end while the row is read: the e-mail confirmation page signs out at once.
 * The read then went out as a visitor and found nothing; creating the row then sent
 * `POST /rest/v1/profiles` without the user's token (401). Only a user still signed in gets one.
 */
export async function fetchOwnProfile(user: User): Promise<Profile> {
  const { data, error } = await supabase().from('profiles').select(PROFILE_COLUMNS).eq('user_id', user.id).maybeSingle();
  if (error) throw toAppError(error);
  if (data) return data as Profile;
  const { data: current } = await (await supabaseClient()).auth.getSession();
  if (current.session?.user.id !== user.id) throw new AppError('session_not_found', errorMessages.session_not_found);
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

/**
 * Name and phone (customer-site.md §7 "Update account"): the `profiles` row the site shows, then
 * the account's user_metadata, so both say the same. An error from either is thrown.
 */
export async function updateOwnProfile(userId: string, values: { full_name: string; phone: string }): Promise<Profile> {
  const full_name = values.full_name.trim();
  const phone = values.phone.trim() || null;
  const { data, error } = await supabase().from('profiles').update({ full_name, phone }).eq('user_id', userId).select(PROFILE_COLUMNS).single();
  if (error) throw toAppError(error);
  const account = await (await supabaseClient()).auth.updateUser({ data: { full_name, phone } });
  if (account.error) throw toAppError(account.error, 'Erreur lors de la mise à jour du compte');
  return data as Profile;
}

/**
 * How the customer hears of their bookings (the database's outbox reads these): by e-mail, by
 * text message (to the profile's phone, when the company sends texts).
 */
export async function updateNotificationChoices(userId: string, values: { notify_email: boolean; notify_sms: boolean }): Promise<Profile> {
  const { data, error } = await supabase().from('profiles').update(values).eq('user_id', userId).select(PROFILE_COLUMNS).single();
  if (error) throw toAppError(error);
  return data as Profile;
}

export const profileKeys = {
  all: ['profile'] as const,
  own: (userId: string | undefined) => [...profileKeys.all, userId ?? 'anonymous'] as const,
};
