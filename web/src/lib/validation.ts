import { z } from 'zod';

/** The standard e-mail pattern of the site's forms. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

/**
 * Phone numbers: a French number (0X XX XX XX XX, +33 …) or, since customers are in Kinshasa,
 * any international number (+243 81 234 5678). Spaces, dots, dashes and brackets are ignored.
 */
export function isValidPhone(value: string): boolean {
  const digits = value.replace(/[\s.\-()]/g, '');
  return /^0[1-9]\d{8}$/.test(digits) || /^(?:\+|00)[1-9]\d{7,14}$/.test(digits);
}

/** Password rule of registration and reset: 8+ characters, upper case, lower case and digit. */
export const PASSWORD_RULE_MESSAGE =
  'Le mot de passe doit contenir au moins 8 caractères, une majuscule, une minuscule et un chiffre';
export function isStrongPassword(value: string): boolean {
  return value.length >= 8 && /[A-Z]/.test(value) && /[a-z]/.test(value) && /\d/.test(value);
}

/** Other text: at least 2 characters after trimming. */
export const text2 = (message: string) => z.string().trim().min(2, message);

/**
 * Whether `value` has at most `places` decimals, as an input's `step` (0.1, 0.01) asks. Floating-point
 * safe: 0.1 + 0.2 has one decimal (the scaled value is compared with its rounding within 1e-9, or
 * within a 1e-12 fraction of it for amounts so large that a float's error exceeds 1e-9).
 */
export function hasAtMostDecimals(value: number, places: number): boolean {
  if (!Number.isFinite(value)) return false;
  const scaled = value * 10 ** places;
  return Math.abs(Math.round(scaled) - scaled) <= Math.max(1e-9, Math.abs(scaled) * 1e-12);
}

/** The French message of a step: « au plus une décimale », « au plus deux décimales ». */
export const decimalsMessage = (places: 1 | 2) => (places === 1 ? 'au plus une décimale' : 'au plus deux décimales');

/** The first message per field of a failed parse, for forms. */
export function fieldErrors<T extends string>(error: z.ZodError): Partial<Record<T, string>> {
  const out: Partial<Record<T, string>> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? '_') as T;
    if (!(key in out)) out[key] = issue.message;
  }
  return out;
}
