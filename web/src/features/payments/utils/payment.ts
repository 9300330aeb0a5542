import type { BookingPaymentMethod, MobileMoneyProvider } from '@/types/database';
import { PAYMENT_FEES } from '../schemas/payment-schemas';

/**
 * Helpers of the payment form: fees (customer-site.md section 7), card input shaping, and the
 * bank-transfer reference. Nothing here talks to the server: no payment is taken online.
 */

export type PaymentMethod = BookingPaymentMethod & keyof typeof PAYMENT_FEES;
export const PAYMENT_METHODS = ['card', 'mobile', 'bank', 'digital_wallet'] as const satisfies readonly PaymentMethod[];

// The labels are shared with the profile and the back office (src/lib/labels.ts).
export { paymentMethodLabels, mobileProviderLabels } from '@/lib/labels';

/** How long the money takes to arrive, per method. */
export const paymentDelays: Record<PaymentMethod, string> = {
  card: 'immédiat',
  mobile: 'immédiat',
  bank: '1 à 3 jours ouvrables',
  digital_wallet: 'immédiat',
};

export type MobileProvider = MobileMoneyProvider;
export interface FeeBreakdown {
  percent: number;
  fee: number;
  total: number;
}

/** The method's fee on a total (in dollars), computed in cents so nothing drifts. */
export function paymentFee(total: number | string, method: PaymentMethod): FeeBreakdown {
  const n = Number(total);
  const cents = Math.round((Number.isFinite(n) ? n : 0) * 100);
  const percent = PAYMENT_FEES[method];
  const feeCents = Math.round((cents * percent) / 100);
  return { percent, fee: feeCents / 100, total: (cents + feeCents) / 100 };
}

/** "Sans frais" or "Frais 1 %". */
export function feeLabel(method: PaymentMethod): string {
  const p = PAYMENT_FEES[method];
  return p === 0 ? 'Sans frais' : `Frais ${p} %`;
}

export type CardType = 'visa' | 'mastercard' | 'amex' | 'discover';
export const cardTypeLabels: Record<CardType, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover' };

/** The network of a card number, from its first digits; null when unknown. */
export function detectCardType(number: string): CardType | null {
  const d = number.replace(/\D/g, '');
  if (/^4/.test(d)) return 'visa';
  if (/^(5[1-5]|22[2-9]|2[3-6]\d|27[01]|2720)/.test(d)) return 'mastercard';
  if (/^3[47]/.test(d)) return 'amex';
  if (/^(6011|65|64[4-9])/.test(d)) return 'discover';
  return null;
}

/** "1227" → "12/27" as the customer types (at most MM/YY). */
export function formatExpiry(value: string): string {
  const d = value.replace(/\D/g, '').slice(0, 4);
  return d.length > 2 ? `${d.slice(0, 2)}/${d.slice(2)}` : d;
}

const REFERENCE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/**
 * A bank-transfer reference, VIR- and 8 characters without 0/O/1/I (the database checks the
 * same pattern and keeps it unique).
 */
export function generateTransferReference(random: (bytes: Uint8Array) => Uint8Array = (b) => crypto.getRandomValues(b)): string {
  const bytes = random(new Uint8Array(8));
  return `VIR-${Array.from(bytes, (b) => REFERENCE_ALPHABET[b % REFERENCE_ALPHABET.length]).join('')}`;
}
