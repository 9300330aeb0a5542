import { z } from 'zod';
import { fieldErrors, isValidPhone } from '@/lib/validation';
import { detectCardType, PAYMENT_METHODS, type MobileProvider, type PaymentMethod } from '../utils/payment';
import { cardSchema, mobileMoneySchema, reservationMessages } from './payment-schemas';

/**
 * The reservation dialog's payment step as a form: the chosen method, its details and the
 * transfer reference. Only the chosen method's details are checked (a card by `cardSchema`,
 * mobile money by provider and phone); the card is checked in the browser and sent nowhere.
 */

export interface CardInput {
  number: string;
  expiry: string;
  cvv: string;
  name: string;
}
export type CardField = keyof CardInput;

export interface PaymentInput {
  method: PaymentMethod;
  card: CardInput;
  mobile: { provider: MobileProvider | ''; phone: string };
  transferReference: string;
}

export function initialPayment(phone: string, transferReference: string): PaymentInput {
  return { method: 'card', card: { number: '', expiry: '', cvv: '', name: '' }, mobile: { provider: '', phone }, transferReference };
}

/** The card's errors by field (an unknown network shows on the number). */
export function cardErrors(card: CardInput, now: Date = new Date()): Partial<Record<CardField, string>> {
  const r = cardSchema(now).safeParse({ ...card, type: detectCardType(card.number) ?? '' });
  if (r.success) return {};
  const { type, ...rest } = fieldErrors<CardField | 'type'>(r.error);
  return type && !rest.number ? { ...rest, number: type } : rest;
}

const mobileSchema = mobileMoneySchema.extend({ phone: z.string().refine(isValidPhone, reservationMessages.phone) });

export function mobileErrors(mobile: PaymentInput['mobile']): Partial<Record<'provider' | 'phone', string>> {
  const r = mobileSchema.safeParse(mobile);
  return r.success ? {} : fieldErrors<'provider' | 'phone'>(r.error);
}

/** The step's rules: the card's or the mobile money's errors, on their fields; the other methods need nothing. */
export const paymentStepSchema = (now: Date = new Date()) =>
  z
    .object({
      method: z.enum(PAYMENT_METHODS),
      card: z.object({ number: z.string(), expiry: z.string(), cvv: z.string(), name: z.string() }),
      mobile: z.object({ provider: mobileMoneySchema.shape.provider.or(z.literal('')), phone: z.string() }),
      transferReference: z.string(),
    })
    .superRefine((p, ctx) => {
      const errors = p.method === 'card' ? cardErrors(p.card, now) : p.method === 'mobile' ? mobileErrors(p.mobile) : {};
      for (const [field, message] of Object.entries(errors)) ctx.addIssue({ code: 'custom', path: [p.method, field], message });
    });

/** Whether the step may be left: a valid card, or a provider and a phone for mobile money; the others at once. */
export function paymentReady(p: PaymentInput, now: Date = new Date()): boolean {
  return paymentStepSchema(now).safeParse(p).success;
}
