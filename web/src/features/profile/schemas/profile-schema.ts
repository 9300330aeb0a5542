import { z } from 'zod';
import { isValidPhone } from '@/lib/validation';

export const profileMessages = {
  fullName: 'Le nom doit contenir au moins 2 caractères',
  phone: 'Numéro de téléphone invalide',
} as const;

/** The profile tab: a name of 2+ characters, and a phone number that is empty or valid. Values are kept as typed. */
export const profileSchema = z.object({
  fullName: z.string().refine((v) => v.trim().length >= 2, profileMessages.fullName),
  phone: z.string().refine((v) => !v.trim() || isValidPhone(v), profileMessages.phone),
});

/** The notifications tab: by e-mail, by SMS, both or neither. */
export const notificationSchema = z.object({ byEmail: z.boolean(), bySms: z.boolean() });

export type ProfileValues = z.infer<typeof profileSchema>;
export type NotificationValues = z.infer<typeof notificationSchema>;
