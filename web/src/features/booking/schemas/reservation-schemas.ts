import { z } from 'zod';
import { reservationMessages, reservationSchema } from '@/features/payments/schemas/payment-schemas';
import { bookingMessages, LICENSE_PATTERN } from './booking-schemas';

/**
 * The reservation dialog's steps, cut out of the tested `reservationSchema` (section 5). The
 * personal step adds the driving licence number that `book_vehicle` requires, in the dialog's
 * message style.
 */

export const reservationStepMessages = {
  ...reservationMessages,
  licenseRequired: 'Le numéro de permis est requis',
  license: bookingMessages.license,
} as const;

export const personalStepSchema = (today: string) =>
  reservationSchema(today)
    .pick({ name: true, email: true, phone: true })
    .extend({
      licenseNumber: z.string().trim().min(1, reservationStepMessages.licenseRequired).regex(LICENSE_PATTERN, reservationStepMessages.license),
    });

export const bookingStepSchema = (today: string) =>
  reservationSchema(today)
    .pick({ date: true, time: true, duration: true, guests: true })
    .extend({ specialRequests: z.string().trim().max(1000) });

export type PersonalValues = z.infer<ReturnType<typeof personalStepSchema>>;
export type BookingStepValues = z.infer<ReturnType<typeof bookingStepSchema>>;
