/**
 * Two-factor authentication of administrators through supabase.auth.mfa: an authenticator app
 * (TOTP) or a passkey / security key (WebAuthn, `mfa.webauthn.register` / `authenticate`, which
 * run the browser's ceremony). Every function throws an AppError (French message by code) on
 * {error}; the hooks wrap them.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Factor } from '@supabase/supabase-js';
import { supabaseClient } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import { qrImageSrc } from '../lib/qr';
import { adminKeys } from './keys';

export interface AssuranceLevel {
  currentLevel: 'aal1' | 'aal2' | null;
  nextLevel: 'aal1' | 'aal2' | null;
}

export interface Enrolment {
  factorId: string;
  /** the QR code as an encoded data: URL, ready for <img src>. */
  qrCode: string;
  secret: string;
  uri: string;
}

export async function fetchAssuranceLevel(): Promise<AssuranceLevel> {
  const { data, error } = await (await supabaseClient()).auth.mfa.getAuthenticatorAssuranceLevel();
  if (error) throw toAppError(error);
  return { currentLevel: data.currentLevel as AssuranceLevel['currentLevel'], nextLevel: data.nextLevel as AssuranceLevel['nextLevel'] };
}

/** Every factor of the signed-in user (verified and in progress). */
export async function fetchFactors(): Promise<Factor[]> {
  const { data, error } = await (await supabaseClient()).auth.mfa.listFactors();
  if (error) throw toAppError(error, 'Erreur lors du chargement des méthodes de vérification');
  return data.all;
}

/**
 * Starts a TOTP enrolment. An enrolment left unfinished earlier (factor still unverified) is
 * removed first: it protects nothing and would hold the name.
 */
export async function enrollTotp(friendlyName: string): Promise<Enrolment> {
  await removeStaleFactors();
  const { data, error } = await (await supabaseClient()).auth.mfa.enroll({ factorType: 'totp', friendlyName });
  if (error) throw toAppError(error, "Erreur lors de l'ajout de la méthode de vérification");
  return { factorId: data.id, qrCode: qrImageSrc(data.totp.qr_code), secret: data.totp.secret, uri: data.totp.uri };
}

/** Message when the browser's WebAuthn ceremony fails for a reason supabase-js does not name. */
export const PASSKEY_FAILED = "L'opération a été annulée ou refusée par votre appareil.";

/**
 * Whether this page can create and use passkeys: the browser has WebAuthn, and the page is on a
 * domain name (browsers bind passkeys to a domain; at an IP address they refuse).
 */
export const browserHasPasskeys = () =>
  typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function' && !/^[\d.]+$|^\[/.test(window.location.hostname);

/** Unverified factors (an enrolment left unfinished) protect nothing and hold their name: removed. */
async function removeStaleFactors(): Promise<void> {
  const stale = (await fetchFactors()).filter((f) => f.status !== 'verified');
  for (const f of stale) {
    const { error } = await (await supabaseClient()).auth.mfa.unenroll({ factorId: f.id });
    if (error) throw toAppError(error);
  }
}

/**
 * Registers a passkey or security key as a second factor: enrol, create the credential in the
 * browser, verify. The session becomes aal2.
 */
export async function registerPasskey(friendlyName: string): Promise<void> {
  await removeStaleFactors();
  const { error } = await (await supabaseClient()).auth.mfa.webauthn.register({ friendlyName });
  if (error) throw toAppError(error, PASSKEY_FAILED);
}

/** Proves the passkey factor `factorId` in the browser: the session becomes aal2. */
export async function verifyPasskey(factorId: string): Promise<void> {
  const { error } = await (await supabaseClient()).auth.mfa.webauthn.authenticate({ factorId });
  if (error) throw toAppError(error, PASSKEY_FAILED);
}

/** Challenge + verify: the session becomes aal2 (and the factor verified when it was new). */
export async function verifyTotp({ factorId, code }: { factorId: string; code: string }): Promise<void> {
  const { error } = await (await supabaseClient()).auth.mfa.challengeAndVerify({ factorId, code });
  if (error) throw toAppError(error);
}

/** Removes a factor; a verified one needs an aal2 session (GoTrue: insufficient_aal). */
export async function unenrollFactor(factorId: string): Promise<void> {
  const { error } = await (await supabaseClient()).auth.mfa.unenroll({ factorId });
  if (error) throw toAppError(error, 'Erreur lors de la suppression de la méthode de vérification');
}

export const useAssuranceLevel = (accessToken: string | undefined, enabled: boolean) =>
  useQuery({
    queryKey: adminKeys.aal(accessToken),
    queryFn: fetchAssuranceLevel,
    enabled: enabled && !!accessToken,
    staleTime: Infinity,
    // a refreshed token keeps the page (and its state) on screen while its level is read.
    placeholderData: keepPreviousData,
  });

export const useFactors = () => useQuery({ queryKey: adminKeys.factors(), queryFn: fetchFactors });

function useInvalidateMfa() {
  const qc = useQueryClient();
  return () => Promise.all([qc.invalidateQueries({ queryKey: adminKeys.factors() }), qc.invalidateQueries({ queryKey: [...adminKeys.all, 'aal'] })]);
}

export function useEnrollTotp() {
  const invalidate = useInvalidateMfa();
  return useMutation({ mutationFn: enrollTotp, onSettled: invalidate });
}

export function useVerifyTotp() {
  const invalidate = useInvalidateMfa();
  return useMutation({ mutationFn: verifyTotp, onSuccess: invalidate });
}

export function useUnenrollFactor() {
  const invalidate = useInvalidateMfa();
  return useMutation({ mutationFn: unenrollFactor, onSettled: invalidate });
}

export function useRegisterPasskey() {
  const invalidate = useInvalidateMfa();
  return useMutation({ mutationFn: registerPasskey, onSettled: invalidate });
}

export function useVerifyPasskey() {
  const invalidate = useInvalidateMfa();
  return useMutation({ mutationFn: verifyPasskey, onSuccess: invalidate });
}
