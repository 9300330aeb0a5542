/**
 * Server errors to French, by their code only (GoTrue `code`, PostgREST/PostgreSQL `code`), in
 * one place. English server text is never matched; a database message raised by our own SQL
 * (already French, code 22023/PT404...) is shown as is when no mapping exists.
 */

export const errorMessages = {
  invalid_credentials: 'Email ou mot de passe incorrect',
  email_not_confirmed: 'Veuillez confirmer votre email avant de vous connecter',
  user_already_exists: 'Un compte existe déjà avec cet email',
  email_exists: 'Un compte existe déjà avec cet email',
  weak_password: 'Le mot de passe doit contenir au moins 8 caractères, une majuscule, une minuscule et un chiffre',
  over_email_send_rate_limit: "Trop d'emails envoyés. Veuillez patienter une minute avant de réessayer.",
  over_request_rate_limit: 'Trop de tentatives. Veuillez patienter quelques minutes avant de réessayer.',
  over_sms_send_rate_limit: 'Un code vient de vous être envoyé. Veuillez patienter une minute avant d’en demander un autre.',
  sms_send_failed: "Le SMS n'a pas pu être envoyé. Vérifiez le numéro et réessayez.",
  phone_provider_disabled: 'La connexion par SMS est momentanément indisponible.',
  otp_expired: 'Ce lien a expiré ou a déjà été utilisé. Demandez-en un nouveau.',
  access_denied: 'Ce lien a expiré ou a déjà été utilisé. Demandez-en un nouveau.',
  validation_failed: 'Les informations saisies sont invalides.',
  email_address_invalid: "Format d'email invalide",
  same_password: "Le nouveau mot de passe doit être différent de l'ancien.",
  signup_disabled: 'Les inscriptions sont momentanément fermées.',
  session_not_found: 'Votre session a expiré. Veuillez vous reconnecter.',
  user_not_found: 'Compte introuvable.',
  unexpected_failure: "Le service d'inscription est indisponible. Veuillez réessayer plus tard.",
  mfa_verification_failed: 'Code invalide ou expiré',
  mfa_challenge_expired: 'Code invalide ou expiré',
  mfa_factor_not_found: 'Méthode de vérification introuvable. Rechargez la page et réessayez.',
  mfa_factor_name_conflict: 'Une méthode de vérification porte déjà ce nom.',
  insufficient_aal: "Validez d'abord un code de vérification en deux étapes pour effectuer cette action.",
  webauthn_verification_failed: "La clé d'accès n'a pas pu être vérifiée. Réessayez.",
  webauthn_challenge_expired: "Le délai est dépassé. Réessayez avec votre clé d'accès.",
  webauthn_challenge_not_found: "Le délai est dépassé. Réessayez avec votre clé d'accès.",
  mfa_webauthn_enroll_not_enabled: "Les clés d'accès ne sont pas activées sur ce serveur.",
  mfa_webauthn_verify_not_enabled: "Les clés d'accès ne sont pas activées sur ce serveur.",
  // supabase-js's own WebAuthn errors (the browser's ceremony did not complete)
  ERROR_CEREMONY_ABORTED: "L'opération a été annulée.",
  ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED: 'Cette clé est déjà enregistrée sur votre compte.',
  PGRST116: 'Élément introuvable.',
  PGRST301: 'Votre session a expiré. Veuillez vous reconnecter.',
  '42501': "Vous n'avez pas les permissions nécessaires pour cette action.",
  '23505': 'Cet élément existe déjà.',
  '23514': 'Les informations saisies sont invalides.',
  '23503': 'Élément lié introuvable.',
  '22P02': 'Les informations saisies sont invalides.',
  PT409: 'Ce véhicule est déjà réservé sur ces dates.',
  PT404: 'Véhicule introuvable ou indisponible.',
  // not a server code: a conditional update (same status / updated_at as shown) matched no row.
  booking_changed: 'Cette réservation a été modifiée entre-temps',
  // Storage API codes ({statusCode, code, error, message}).
  KeyAlreadyExists: 'Un fichier porte déjà ce nom.',
  EntityTooLarge: 'Fichier trop volumineux.',
  InvalidMimeType: "Ce type de fichier n'est pas accepté.",
  AccessDenied: "Vous n'avez pas les permissions nécessaires pour cette action.",
  NoSuchBucket: 'Espace de stockage introuvable.',
  network: 'Impossible de joindre le serveur. Vérifiez votre connexion internet.',
  unknown: 'Une erreur inattendue est survenue.',
} as const satisfies Record<string, string>;

export type ErrorCode = keyof typeof errorMessages;

/** Codes whose server message is our own French text (raised by our SQL functions). */
const ownFrenchCodes = new Set(['22023', 'P0001']);

/** An error thrown by every api/ function: the server's code and a French message. */
export class AppError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'AppError';
    this.code = code;
  }
}

interface ErrorLike {
  code?: unknown;
  error_code?: unknown;
  name?: unknown;
  status?: unknown;
  message?: unknown;
}

function isNetworkError(e: ErrorLike): boolean {
  if (e.name === 'AuthRetryableFetchError') return true;
  if (e.name === 'TypeError' && typeof e.message === 'string') return true;
  if (typeof e.message === 'string' && /^(TypeError: )?(Failed to fetch|NetworkError|Load failed)/.test(e.message)) return true;
  return false;
}

/** The code of any error supabase-js returns (or throws). */
export function errorCode(error: unknown): string {
  if (error instanceof AppError) return error.code;
  if (error && typeof error === 'object') {
    const e = error as ErrorLike;
    const code = typeof e.code === 'string' && e.code ? e.code : typeof e.error_code === 'string' ? e.error_code : '';
    if (code) return code;
    if (isNetworkError(e)) return 'network';
  }
  return 'unknown';
}

/** A French message for an error, by code; `fallback` when the code is not one we know. */
export function toFrenchMessage(error: unknown, fallback: string = errorMessages.unknown): string {
  if (error instanceof AppError) return error.message;
  const code = errorCode(error);
  if (code in errorMessages) return errorMessages[code as ErrorCode];
  if (ownFrenchCodes.has(code) && error && typeof error === 'object' && typeof (error as ErrorLike).message === 'string') {
    return (error as { message: string }).message;
  }
  return fallback;
}

/** Wrap a supabase-js `{error}` into an AppError carrying the French message. */
export function toAppError(error: unknown, fallback?: string): AppError {
  if (error instanceof AppError) return error;
  return new AppError(errorCode(error), toFrenchMessage(error, fallback));
}
