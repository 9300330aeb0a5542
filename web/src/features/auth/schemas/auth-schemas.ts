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

export const resetPasswordSchema = z
  .object({ password: newPassword, confirmPassword: z.string().min(1, authMessages.confirmRequired) })
  .refine((v) => v.password === v.confirmPassword, { message: authMessages.mismatch, path: ['confirmPassword'] });

export type SignInValues = z.infer<typeof signInSchema>;
export type RegisterValues = z.infer<typeof registerSchema>;
