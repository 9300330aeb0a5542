/** The six-digit code of an authenticator app (TOTP, RFC 6238), as typed (spaces allowed). */
import { z } from 'zod';

export const MFA_CODE_MESSAGE = 'Saisissez le code à 6 chiffres de votre application';
export const FACTOR_NAME_MESSAGE = "Donnez un nom à cet appareil (2 à 40 caractères)";

export const mfaCodeSchema = z
  .string()
  .transform((v) => v.replace(/\s+/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, MFA_CODE_MESSAGE));

export const factorNameSchema = z.string().trim().min(2, FACTOR_NAME_MESSAGE).max(40, FACTOR_NAME_MESSAGE);

/** The forms of the code and of a factor's name. */
export const mfaCodeFormSchema = z.object({ code: mfaCodeSchema });
export const factorNameFormSchema = z.object({ name: factorNameSchema });
