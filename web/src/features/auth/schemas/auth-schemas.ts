import { z } from 'zod';
import { EMAIL_PATTERN, isStrongPassword, PASSWORD_RULE_MESSAGE } from '@/lib/validation';

export const authMessages = {
  emailRequired: "L'email est requis",
  emailInvalid: "Format d'email invalide",
  passwordMin6: 'Le mot de passe doit contenir au moins 6 caractères',
  passwordRequired: 'Le mot de passe est requis',
  passwordRule: PASSWORD_RULE_MESSAGE,
  confirmRequired: 'Veuillez confirmer le mot de passe',
  mismatch: 'Les mots de passe ne correspondent pas',
} as const;

const email = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, authMessages.emailRequired)
  .regex(EMAIL_PATTERN, authMessages.emailInvalid);

/** Sign-in: e-mail lower-cased and trimmed; password of at least 6 characters. */
export const signInSchema = z.object({
  email,
  password: z.string().min(6, authMessages.passwordMin6),
  remember: z.boolean().default(true),
});

const newPassword = z.string().min(1, authMessages.passwordRequired).refine(isStrongPassword, authMessages.passwordRule);

/** Registration: full name optional; strong password confirmed. */
export const registerSchema = z
  .object({
    fullName: z.string().trim().optional(),
    email,
    password: newPassword,
    confirmPassword: z.string().min(1, authMessages.confirmRequired),
  })
  .refine((v) => v.password === v.confirmPassword, { message: authMessages.mismatch, path: ['confirmPassword'] });

export const forgotPasswordSchema = z.object({ email });

export const phoneMessages = {
  phoneInvalid: 'Numéro invalide : saisissez un numéro congolais (ex. 081 234 5678) ou international (+243…)',
  codeInvalid: 'Le code reçu par SMS comporte 6 chiffres',
} as const;

/**
 * A mobile number for an SMS code, in E.164 (`+243812345678`): an international number as typed
 * (`+243 81 234 5678`, `00243…`), or a DRC number written nationally (`081 234 5678`, `0812345678`).
 */
export function toE164(raw: string): string | null {
  const compact = raw.replace(/[\s.\-()]/g, '');
  const international = compact.startsWith('+') ? compact.slice(1) : compact.startsWith('00') ? compact.slice(2) : null;
  if (international !== null) return /^[1-9]\d{7,14}$/.test(international) ? `+${international}` : null;
  if (/^0[89]\d{8}$/.test(compact)) return `+243${compact.slice(1)}`;
  return null;
}

export const phoneSchema = z.object({
  phone: z.string().transform((v, ctx) => {
    const e164 = toE164(v);
    if (!e164) {
      ctx.addIssue({ code: 'custom', message: phoneMessages.phoneInvalid });
      return z.NEVER;
    }
    return e164;
  }),
});

export const smsCodeSchema = z.object({ code: z.string().trim().regex(/^\d{6}$/, phoneMessages.codeInvalid) });

export const resetPasswordSchema = z
  .object({ password: newPassword, confirmPassword: z.string().min(1, authMessages.confirmRequired) })
  .refine((v) => v.password === v.confirmPassword, { message: authMessages.mismatch, path: ['confirmPassword'] });

export type SignInValues = z.infer<typeof signInSchema>;
export type RegisterValues = z.infer<typeof registerSchema>;
