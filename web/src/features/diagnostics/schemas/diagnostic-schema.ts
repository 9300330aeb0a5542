import { z } from 'zod';
import { EMAIL_PATTERN, isValidPhone } from '@/lib/validation';

export const DIAGNOSTIC_TIMES = ['09:00', '10:00', '11:00', '14:00', '15:00', '16:00'] as const;

export const diagnosticMessages = {
  vehicle: 'Le type de véhicule est requis (au moins 2 caractères)',
  email: 'Veuillez entrer une adresse email valide.',
  phone: 'Numéro de téléphone invalide',
  dateRequired: 'La date est requise',
  datePast: 'La date ne peut pas être dans le passé',
  time: "L'heure est requise",
} as const;

export const diagnosticSchema = (today: string) =>
  z.object({
    serviceType: z.enum(['mechanical', 'electronic', 'climate', 'reset', 'programming', 'key_programming']),
    vehicleType: z.string().trim().min(2, diagnosticMessages.vehicle),
    email: z.string().trim().regex(EMAIL_PATTERN, diagnosticMessages.email),
    phone: z.string().trim().refine(isValidPhone, diagnosticMessages.phone),
    date: z
      .string()
      .min(1, diagnosticMessages.dateRequired)
      .refine((d) => d >= today, diagnosticMessages.datePast),
    time: z.enum(DIAGNOSTIC_TIMES, { message: diagnosticMessages.time }),
    notes: z.string().trim().default(''),
  });

/** The submit button waits for a valid e-mail and phone. */
export function canSubmitDiagnostic(email: string, phone: string): boolean {
  return EMAIL_PATTERN.test(email.trim()) && isValidPhone(phone);
}

export type DiagnosticValues = z.infer<ReturnType<typeof diagnosticSchema>>;
