import { z } from 'zod';
import { EMAIL_PATTERN } from '@/lib/validation';

export const CONTACT_SUBJECTS = ['reservation', 'information', 'support', 'other'] as const;
export const subjectLabels: Record<(typeof CONTACT_SUBJECTS)[number], string> = {
  reservation: 'Réservation',
  information: 'Demande d’information',
  support: 'Assistance',
  other: 'Autre',
};

export const contactMessages = {
  required: 'Veuillez remplir tous les champs obligatoires.',
  email: 'Veuillez entrer une adresse email valide.',
  subject: 'Veuillez choisir un sujet.',
  short: 'Ce champ doit contenir au moins 2 caractères.',
} as const;

export const contactSchema = z.object({
  name: z.string().trim().min(1, contactMessages.required).min(2, contactMessages.short),
  email: z.string().trim().min(1, contactMessages.required).regex(EMAIL_PATTERN, contactMessages.email),
  phone: z.string().trim().default(''),
  subject: z.enum(CONTACT_SUBJECTS, { message: contactMessages.subject }),
  message: z.string().trim().min(1, contactMessages.required).min(2, contactMessages.short).max(5000),
});

export type ContactValues = z.infer<typeof contactSchema>;
