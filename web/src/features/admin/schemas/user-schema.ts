/** The user dialog (back-office.md section 5): name and e-mail required; e-mail fixed once created. */
import { z } from 'zod';

export const USER_REQUIRED_MESSAGE = 'Nom et email sont requis';

export const userSchema = z.object({
  full_name: z.string().trim().min(1, USER_REQUIRED_MESSAGE),
  email: z.string().trim().min(1, USER_REQUIRED_MESSAGE),
  phone: z
    .string()
    .trim()
    .transform((v) => (v === '' ? null : v)),
  role: z.enum(['user', 'admin']),
});

export type UserForm = z.input<typeof userSchema>;
export type UserValues = z.output<typeof userSchema>;
