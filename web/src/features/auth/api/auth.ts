import { useMutation } from '@tanstack/react-query';
import { supabaseClient, getApiUrl, REMEMBER_ME_KEY } from '@/lib/supabase';
import { AppError, toAppError } from '@/lib/errors';
import { fetchOwnProfile } from '@/lib/profile-api';
import { paths } from '@/config/paths';
import type { Profile } from '@/types/database';

/** Where e-mail links come back to. */
const siteUrl = (path: string) => `${window.location.origin}${path}`;

/** Remembered locally: the e-mail awaiting confirmation. */
export const PENDING_EMAIL_KEY = 'kpa.pending-verification-email';

export async function signIn(email: string, password: string, remember: boolean): Promise<Profile> {
  window.localStorage.setItem(REMEMBER_ME_KEY, String(remember));
  const { data, error } = await (await supabaseClient()).auth.signInWithPassword({ email, password });
  if (error) {
    if (error.code === 'email_not_confirmed') window.localStorage.setItem(PENDING_EMAIL_KEY, email);
    throw toAppError(error, 'Échec de la connexion');
  }
  window.localStorage.removeItem(PENDING_EMAIL_KEY);
  return fetchOwnProfile(data.user);
}

export async function signUp(email: string, password: string, fullName: string): Promise<void> {
  const { data, error } = await (await supabaseClient()).auth.signUp({
    email,
    password,
    options: { data: { full_name: fullName }, emailRedirectTo: siteUrl(paths.verifyEmail) },
  });
  if (error) throw toAppError(error, "Échec de l'inscription");
  // GoTrue answers an obfuscated user (no identities) for an e-mail that already exists.
  if (data.user && Array.isArray(data.user.identities) && data.user.identities.length === 0) {
    throw toAppError({ code: 'user_already_exists' });
  }
  window.localStorage.setItem(PENDING_EMAIL_KEY, email);
}

export async function resendVerification(email: string): Promise<void> {
  const { error } = await (await supabaseClient()).auth.resend({ type: 'signup', email, options: { emailRedirectTo: siteUrl(paths.verifyEmail) } });
  if (error) throw toAppError(error, "Échec de l'envoi. Veuillez réessayer plus tard.");
}

export async function requestPasswordReset(email: string): Promise<void> {
  const { error } = await (await supabaseClient()).auth.resetPasswordForEmail(email, { redirectTo: siteUrl(paths.resetPassword) });
  if (error) throw toAppError(error, 'Une erreur est survenue. Veuillez réessayer.');
}

export async function updatePassword(password: string): Promise<void> {
  const { error } = await (await supabaseClient()).auth.updateUser({ password });
  if (error) throw toAppError(error, 'Une erreur est survenue. Veuillez réessayer.');
}

/** Whether the server offers sign-in by SMS code (`/auth/v1/settings`, `external.phone`). */
export async function phoneSignInOffered(): Promise<boolean> {
  try {
    const res = await fetch(`${getApiUrl()}/auth/v1/settings`);
    if (!res.ok) return false;
    const settings = (await res.json()) as { external?: { phone?: boolean } };
    return settings.external?.phone === true;
  } catch {
    return false;
  }
}

/** Text a sign-in code to `phone` (E.164); the account is made on the first sign-in. */
export async function sendSmsCode(phone: string): Promise<void> {
  const { error } = await (await supabaseClient()).auth.signInWithOtp({ phone });
  if (error) throw toAppError(error, "Échec de l'envoi du code. Veuillez réessayer.");
}

/** Sign in with the code texted to `phone`. */
export async function verifySmsCode(phone: string, code: string, remember: boolean): Promise<Profile> {
  window.localStorage.setItem(REMEMBER_ME_KEY, String(remember));
  const { data, error } = await (await supabaseClient()).auth.verifyOtp({ phone, token: code, type: 'sms' });
  if (error && error.code !== 'otp_expired') throw toAppError(error, 'Code invalide ou expiré');
  if (error || !data.user) {
    throw new AppError('otp_expired', 'Code invalide ou expiré. Vérifiez le code ou demandez-en un nouveau.');
  }
  return fetchOwnProfile(data.user);
}

export async function signOut(): Promise<void> {
  const { error } = await (await supabaseClient()).auth.signOut();
  if (error) throw toAppError(error, 'Erreur lors de la déconnexion');
}

export const useSignIn = () =>
  useMutation({ mutationFn: (v: { email: string; password: string; remember: boolean }) => signIn(v.email, v.password, v.remember) });
export const useSignUp = () => useMutation({ mutationFn: (v: { email: string; password: string; fullName: string }) => signUp(v.email, v.password, v.fullName) });
export const useResendVerification = () => useMutation({ mutationFn: resendVerification });
export const useRequestPasswordReset = () => useMutation({ mutationFn: requestPasswordReset });
export const useUpdatePassword = () => useMutation({ mutationFn: updatePassword });
export const useSignOut = () => useMutation({ mutationFn: signOut });
export const useSendSmsCode = () => useMutation({ mutationFn: sendSmsCode });
export const useVerifySmsCode = () =>
  useMutation({ mutationFn: (v: { phone: string; code: string; remember: boolean }) => verifySmsCode(v.phone, v.code, v.remember) });

/** Confirms a link that carries `token_hash` in its query (PKCE-style links). */
export async function verifyTokenHash(tokenHash: string, type: 'signup' | 'email' | 'recovery'): Promise<void> {
  const { error } = await (await supabaseClient()).auth.verifyOtp({ token_hash: tokenHash, type });
  if (error) throw toAppError(error, 'Lien de vérification invalide.');
}

/** Forget the session in this browser only (after confirming an e-mail, the user signs in). */
export async function forgetLocalSession(): Promise<void> {
  await (await supabaseClient()).auth.signOut({ scope: 'local' });
}

export type LinkOutcome = { kind: 'session'; type: string } | { kind: 'token'; tokenHash: string; type: string } | { kind: 'error'; code: string } | { kind: 'none' };

/** What an e-mail link brought back in the URL fragment or query. */
export function readLinkOutcome(hash: string, search: string): LinkOutcome {
  const h = new URLSearchParams(hash.replace(/^#/, ''));
  const q = new URLSearchParams(search);
  const code = h.get('error_code') ?? q.get('error_code') ?? h.get('error') ?? q.get('error');
  if (code) return { kind: 'error', code };
  if (h.get('access_token')) return { kind: 'session', type: h.get('type') ?? 'signup' };
  const tokenHash = q.get('token_hash');
  if (tokenHash) return { kind: 'token', tokenHash, type: q.get('type') ?? 'signup' };
  return { kind: 'none' };
}
