/** The booking edit dialog (back-office.md section 5). Prices are the database's: not edited here. */
import { z } from 'zod';
import { EMAIL_PATTERN } from '@/lib/validation';

const status = z.enum(['pending', 'confirmed', 'active', 'completed', 'cancelled']);
const date = (message: string) => z.string().regex(/^\d{4}-\d{2}-\d{2}$/, message);
const optionalText = z.string().trim().transform((v) => (v === '' ? null : v));
/** A number field: minimum `min`, `fallback` when empty or not a number. */
const countOr = (min: number, fallback: number, message: string) =>
  z.preprocess((v) => {
    const n = typeof v === 'string' ? (v.trim() === '' ? NaN : Number(v)) : typeof v === 'number' ? v : NaN;
    return Number.isFinite(n) ? Math.trunc(n) : fallback;
  }, z.number().int().min(min, message));

export const vehicleBookingEditSchema = z
  .object({
    booking_status: status,
    start_date: date('Date de début invalide'),
    end_date: date('Date de fin invalide'),
    pickup_location: optionalText,
    dropoff_location: optionalText,
    special_requests: optionalText,
  })
  .refine((b) => b.end_date >= b.start_date, { path: ['end_date'], message: 'La date de fin doit suivre la date de début' });

export const airportBookingEditSchema = z.object({
  booking_status: status,
  service_type: z.enum(['vip', 'standard', 'baggage']),
  flight_type: z.enum(['arrival', 'departure']),
  flight_date: date('Date du vol invalide'),
  flight_time: z.string().regex(/^\d{2}:\d{2}/, 'Heure invalide'),
  flight_number: z.string().trim().toUpperCase().regex(/^[A-Z0-9]{2,8}$/, 'Numéro de vol invalide'),
  passengers: countOr(1, 1, 'Au moins 1 passager'),
  special_requests: optionalText,
});

export const diagnosticBookingEditSchema = z.object({
  booking_status: status,
  service_type: z.enum(['mechanical', 'electronic', 'climate', 'reset', 'programming', 'key_programming']),
  appointment_date: date('Date invalide'),
  appointment_time: z.enum(['09:00', '10:00', '11:00', '14:00', '15:00', '16:00'], { error: 'Créneau invalide' }),
  vehicle_type: z.string().trim().min(2, 'Type de véhicule requis'),
  customer_email: z.string().trim().toLowerCase().regex(EMAIL_PATTERN, "Format d'email invalide"),
  customer_phone: z.string().trim().min(6, 'Téléphone invalide'),
  notes: optionalText,
});

export const PREMIUM_DURATIONS = [1, 2, 3, 7, 14, 30] as const;

export const premiumBookingEditSchema = z.object({
  booking_status: status,
  service_type: z.enum(['private_driver', 'vip_concierge', 'business_pack']),
  start_date: date('Date de début invalide'),
  duration_days: countOr(1, 1, 'Au moins 1 jour').refine((d) => (PREMIUM_DURATIONS as readonly number[]).includes(d), 'Durée proposée : 1, 2, 3, 7, 14 ou 30 jours'),
  customer_name: z.string().trim().min(2, 'Nom requis'),
  customer_email: z.string().trim().toLowerCase().regex(EMAIL_PATTERN, "Format d'email invalide"),
  customer_phone: z.string().trim().min(6, 'Téléphone invalide'),
  special_requirements: optionalText,
});

export const bookingEditSchemas = {
  vehicle: vehicleBookingEditSchema,
  airport: airportBookingEditSchema,
  diagnostic: diagnosticBookingEditSchema,
  premium: premiumBookingEditSchema,
} as const;
