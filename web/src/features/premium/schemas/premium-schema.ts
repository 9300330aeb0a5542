import { z } from 'zod';
import { EMAIL_PATTERN, isValidPhone } from '@/lib/validation';

export const PREMIUM_DURATIONS = [1, 2, 3, 7, 14, 30] as const;

export const premiumMessages = {
  name: 'Le nom est requis (au moins 2 caractères)',
  email: 'Veuillez entrer une adresse email valide.',
  phone: 'Numéro de téléphone invalide',
  dateRequired: 'La date de début est requise',
  datePast: 'La date ne peut pas être dans le passé',
  duration: 'Choisissez une durée dans la liste',
} as const;

export const premiumSchema = (today: string) =>
  z.object({
    serviceType: z.enum(['private_driver', 'vip_concierge', 'business_pack']),
    name: z.string().trim().min(2, premiumMessages.name),
    email: z.string().trim().regex(EMAIL_PATTERN, premiumMessages.email),
    phone: z.string().trim().refine(isValidPhone, premiumMessages.phone),
    startDate: z
      .string()
      .min(1, premiumMessages.dateRequired)
      .refine((d) => d >= today, premiumMessages.datePast),
    duration: z.coerce.number().refine((n) => (PREMIUM_DURATIONS as readonly number[]).includes(n), premiumMessages.duration),
    requirements: z.string().trim().default(''),
  });

export type PremiumValues = z.infer<ReturnType<typeof premiumSchema>>;
