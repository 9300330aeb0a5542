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

export const changeDatesMessages = {
  both: 'Choisissez les deux dates',
  past: 'La date de début ne peut pas être dans le passé',
  order: 'La date de fin doit suivre la date de début',
} as const;

/** « Modifier les dates »: both dates, the start not past, the end after it; said under the end date. */
export const changeDatesSchema = (today: string) =>
  z.object({ start: z.string(), end: z.string() }).superRefine((v, ctx) => {
    const message = !v.start || !v.end ? changeDatesMessages.both : v.start < today ? changeDatesMessages.past : v.end < v.start ? changeDatesMessages.order : null;
    if (message) ctx.addIssue({ code: 'custom', path: ['end'], message });
  });
