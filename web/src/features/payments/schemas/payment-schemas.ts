import { z } from 'zod';
import { EMAIL_PATTERN, isValidPhone } from '@/lib/validation';

/**
 * The payment and reservation-dialog rules of the spec (section 5), used by the reservation
 * dialog's steps and payment form. No payment is taken online: a card is only checked in the
 * browser, never sent.
 */
export const paymentMessages = {
  card: 'Numéro de carte invalide',
  expiry: "Date d'expiration invalide",
  cvv: 'Code CVV invalide',
  holder: 'Nom invalide (lettres uniquement)',
  generic: 'Champ invalide',
} as const;

/** The Luhn checksum of a digit string. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** "4242424242424242" → "4242 4242 4242 4242" (at most 19 characters). */
export function formatCardNumber(value: string): string {
  const digits = value.replace(/\D/g, '').slice(0, 16);
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ').slice(0, 19);
}

/** MM/YY, month 1–12, not before the current month. */
export function expiryValid(value: string, now: Date = new Date()): boolean {
  const m = /^(\d{2})\/(\d{2})$/.exec(value);
  if (!m) return false;
  const month = Number(m[1]);
  const year = 2000 + Number(m[2]);
  if (month < 1 || month > 12) return false;
  const current = now.getFullYear() * 12 + now.getMonth();
  return year * 12 + (month - 1) >= current;
}

export const cardSchema = (now: Date = new Date()) =>
  z.object({
    number: z
      .string()
      .transform((s) => s.replace(/\s/g, ''))
      .refine((s) => /^\d{16}$/.test(s) && luhnValid(s), paymentMessages.card),
    expiry: z.string().refine((s) => expiryValid(s, now), paymentMessages.expiry),
    cvv: z.string().regex(/^\d{3,4}$/, paymentMessages.cvv),
    name: z
      .string()
      .trim()
      .regex(/^[A-Za-zÀ-ÖØ-öø-ÿ ]{2,}$/, paymentMessages.holder)
      .transform((s) => s.toUpperCase()),
    type: z.enum(['visa', 'mastercard', 'amex', 'discover'], { message: paymentMessages.generic }),
  });

export const mobileMoneySchema = z.object({
  provider: z.enum(['mpesa', 'orange', 'airtel'], { message: paymentMessages.generic }),
  phone: z.string(),
});

export const PAYMENT_FEES = { card: 0, mobile: 1, bank: 0, digital_wallet: 0 } as const;

export const reservationMessages = {
  name: 'Le nom est requis',
  email: 'Email invalide',
  phone: 'Numéro de téléphone invalide',
  dateRequired: 'La date est requise',
  datePast: 'La date ne peut pas être dans le passé',
  time: "L'heure est requise",
  duration: 'La durée maximale est de 30 jours',
  guests: 'Au moins une personne est requise',
} as const;

/** Duration clamped to 1–30 days. */
export function clampDuration(n: number): number {
  if (!Number.isFinite(n)) return 1;
  return Math.min(30, Math.max(1, Math.round(n)));
}

export const reservationSchema = (today: string) =>
  z.object({
    name: z.string().trim().min(1, reservationMessages.name),
    email: z.string().trim().regex(EMAIL_PATTERN, reservationMessages.email),
    phone: z.string().refine(isValidPhone, reservationMessages.phone),
    date: z
      .string()
      .min(1, reservationMessages.dateRequired)
      .refine((d) => d >= today, reservationMessages.datePast),
    time: z.string().min(1, reservationMessages.time),
    duration: z.number().int().min(1, reservationMessages.duration).max(30, reservationMessages.duration),
    guests: z.number().int().min(1, reservationMessages.guests),
  });
