import { z } from 'zod';
import { EMAIL_PATTERN, isValidPhone } from '@/lib/validation';

export const bookingMessages = {
  required: 'Veuillez remplir tous les champs obligatoires',
  email: "Format d'email invalide",
  phone: 'Numéro de téléphone invalide',
  license: 'Numéro de permis invalide',
  startPast: 'La date de début ne peut pas être dans le passé',
  endBeforeStart: 'La date de fin doit être postérieure ou égale à la date de début',
  maxPrice: 'Le prix maximum doit être compris entre 0 et 1000',
} as const;

/** A driving licence number: 4–24 letters, digits, spaces, '-' or '/'. */
export const LICENSE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 \-/]{3,23}$/;

export const SEAT_OPTIONS = [0, 2, 4, 5, 7] as const;
export const TRANSMISSIONS = ['Manuelle', 'Automatique', 'CVT'] as const;
export const FUEL_TYPES = ['Essence', 'Diesel', 'Hybride', 'Électrique', 'GPL'] as const;
export const CATEGORIES = ['economic', 'luxury', 'suv', 'utility'] as const;

/** Step 1: dates (start not before today, end not before start) and the advanced filters. */
export const searchSchema = (today: string) =>
  z
    .object({
      startDate: z.string().min(1, bookingMessages.required),
      endDate: z.string().min(1, bookingMessages.required),
      pickupLocation: z.string().trim().default(''),
      dropoffLocation: z.string().trim().default(''),
      category: z.enum(CATEGORIES).or(z.literal('')).default(''),
      maxPrice: z.coerce.number().min(0, bookingMessages.maxPrice).max(1000, bookingMessages.maxPrice).default(1000),
      minSeats: z.coerce.number().refine((n) => (SEAT_OPTIONS as readonly number[]).includes(n)).default(0),
      transmission: z.enum(TRANSMISSIONS).or(z.literal('')).default(''),
      fuelType: z.enum(FUEL_TYPES).or(z.literal('')).default(''),
    })
    .refine((v) => v.startDate >= today, { message: bookingMessages.startPast, path: ['startDate'] })
    .refine((v) => v.endDate >= v.startDate, { message: bookingMessages.endBeforeStart, path: ['endDate'] });

/** Step 2: the customer's details; all four are required, and each is checked. */
export const detailsSchema = z.object({
  fullName: z.string().trim().min(1, bookingMessages.required).min(2, 'Le nom doit contenir au moins 2 caractères'),
  email: z.string().trim().min(1, bookingMessages.required).regex(EMAIL_PATTERN, bookingMessages.email),
  phone: z.string().trim().min(1, bookingMessages.required).refine(isValidPhone, bookingMessages.phone),
  licenseNumber: z
    .string()
    .trim()
    .min(1, bookingMessages.required)
    .regex(LICENSE_PATTERN, bookingMessages.license),
  specialRequests: z.string().trim().max(1000).default(''),
});

export type SearchValues = z.infer<ReturnType<typeof searchSchema>>;
export type DetailsValues = z.infer<typeof detailsSchema>;
