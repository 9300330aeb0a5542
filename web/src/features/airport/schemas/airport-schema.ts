import { z } from 'zod';

export const airportMessages = {
  dateRequired: 'La date est requise',
  datePast: 'La date ne peut pas être dans le passé',
  timeRequired: "L'heure est requise",
  flightRequired: 'Le numéro de vol est requis',
  flightInvalid: 'Format de numéro de vol invalide',
  passengers: 'Au moins un passager est requis',
} as const;

/** A non-numeric passenger count becomes 0 (then refused by the "at least 1" rule). */
export function parsePassengers(value: string): number {
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : 0;
}

/** Airport booking form, checked on submit; `today` is yyyy-MM-dd. */
export const airportSchema = (today: string) =>
  z.object({
    serviceType: z.enum(['vip', 'standard', 'baggage']),
    flightType: z.enum(['arrival', 'departure']),
    date: z
      .string()
      .min(1, airportMessages.dateRequired)
      .refine((d) => d >= today, airportMessages.datePast),
    time: z.string().min(1, airportMessages.timeRequired),
    flightNumber: z
      .string()
      .trim()
      .min(1, airportMessages.flightRequired)
      .transform((s) => s.toUpperCase())
      .refine((s) => /^[A-Z0-9]{2,8}$/.test(s), airportMessages.flightInvalid),
    passengers: z.number().int().min(1, airportMessages.passengers).max(50, 'Au maximum 50 passagers'),
    notes: z.string().trim().default(''),
  });

export type AirportValues = z.infer<ReturnType<typeof airportSchema>>;

/** The form's version: the passenger count is what was typed, read by `parsePassengers` then checked as above. */
export const airportFormSchema = (today: string) => {
  const schema = airportSchema(today);
  return schema.extend({ passengers: z.string().transform(parsePassengers).pipe(schema.shape.passengers) });
};
