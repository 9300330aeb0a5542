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

/**
 * The booking step as its inputs hold it: the duration and the number of people are read as
 * typed (`Number`, so an empty count is 0) and checked by the reservation's number rules.
 */
export const bookingStepSchema = (today: string) => {
  const base = reservationSchema(today);
  return base.pick({ date: true, time: true }).extend({
    duration: z.string().transform(Number).pipe(base.shape.duration),
    guests: z.string().transform(Number).pipe(base.shape.guests),
    specialRequests: z.string().trim().max(1000),
  });
};

export type PersonalInput = z.input<ReturnType<typeof personalStepSchema>>;
export type PersonalValues = z.output<ReturnType<typeof personalStepSchema>>;
/** As typed: the duration is clamped to 1–30 when it leaves the field (and at once above 30). */
export type BookingInput = z.input<ReturnType<typeof bookingStepSchema>>;
export type BookingStepValues = z.output<ReturnType<typeof bookingStepSchema>>;
