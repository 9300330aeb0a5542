import type { ReactNode } from 'react';
import { z } from 'zod';
import { CreditCard, Info, Landmark, Smartphone, Wallet } from 'lucide-react';
import { SelectField, TextField } from '@/components/ui/field';
import { cn } from '@/lib/cn';
import { formatPrice } from '@/lib/format';
import { fieldErrors, isValidPhone } from '@/lib/validation';
import { cardSchema, formatCardNumber, mobileMoneySchema, reservationMessages } from '../schemas/payment-schemas';
import {
  cardTypeLabels,
  detectCardType,
  feeLabel,
  formatExpiry,
  mobileProviderLabels,
  paymentDelays,
  paymentFee,
  paymentMethodLabels,
  PAYMENT_METHODS,
  type MobileProvider,
  type PaymentMethod,
} from '../utils/payment';

/**
 * The payment step: the method, its details and its fee. Card details are checked here, in the
 * browser, and go nowhere: no payment is taken online, and the form says so.
 */

export interface CardInput {
  number: string;
  expiry: string;
  cvv: string;
  name: string;
}
export type CardField = keyof CardInput;
const CARD_FIELDS: CardField[] = ['number', 'expiry', 'cvv', 'name'];

export interface PaymentInput {
  method: PaymentMethod;
  card: CardInput;
  /** Fields the customer typed in or left: all four must be before the card is accepted. */
  touched: Partial<Record<CardField, boolean>>;
  /** Fields the customer left once: their errors show from then on, live. */
  blurred: Partial<Record<CardField | 'provider' | 'mobilePhone', boolean>>;
  mobile: { provider: MobileProvider | ''; phone: string };
  transferReference: string;
}

export function initialPayment(phone: string, transferReference: string): PaymentInput {
  return {
    method: 'card',
    card: { number: '', expiry: '', cvv: '', name: '' },
    touched: {},
    blurred: {},
    mobile: { provider: '', phone },
    transferReference,
  };
}

/** The card's errors by field (an unknown network shows on the number). */
export function cardErrors(card: CardInput, now: Date = new Date()): Partial<Record<CardField, string>> {
  const r = cardSchema(now).safeParse({ ...card, type: detectCardType(card.number) ?? '' });
  if (r.success) return {};
  const e = fieldErrors<CardField | 'type'>(r.error);
  const { type, ...rest } = e;
  return type && !rest.number ? { ...rest, number: type } : rest;
}

const mobileSchema = mobileMoneySchema.extend({ phone: z.string().refine(isValidPhone, reservationMessages.phone) });

export function mobileErrors(mobile: PaymentInput['mobile']): Partial<Record<'provider' | 'phone', string>> {
  const r = mobileSchema.safeParse(mobile);
  return r.success ? {} : fieldErrors<'provider' | 'phone'>(r.error);
}

/** Whether the step may be left: a card must be valid with every field touched; mobile money needs a provider and a phone. */
export function paymentReady(p: PaymentInput, now: Date = new Date()): boolean {
  if (p.method === 'card') return CARD_FIELDS.every((f) => p.touched[f]) && Object.keys(cardErrors(p.card, now)).length === 0;
  if (p.method === 'mobile') return Object.keys(mobileErrors(p.mobile)).length === 0;
  return true;
}

/** customer-site.md §9: EUR and USD are accepted; the amounts here stay in US dollars. */
export const ACCEPTED_CURRENCIES_NOTE = 'Devises acceptées : USD et EUR. Montants affichés en dollars US.';

const icons: Record<PaymentMethod, typeof CreditCard> = { card: CreditCard, mobile: Smartphone, bank: Landmark, digital_wallet: Wallet };

export function PaymentForm({
  value,
  onChange,
  total,
  now = new Date(),
}: {
  value: PaymentInput;
  onChange: (next: PaymentInput) => void;
  /** The rental total the server quoted, in dollars. */
  total: number;
  now?: Date;
}) {
  const errors = cardErrors(value.card, now);
  const mErrors = mobileErrors(value.mobile);
  const fee = paymentFee(total, value.method);
  const cardType = detectCardType(value.card.number);

  const setCard = (field: CardField, raw: string) => {
    const shaped = field === 'number' ? formatCardNumber(raw) : field === 'expiry' ? formatExpiry(raw) : field === 'cvv' ? raw.replace(/\D/g, '').slice(0, 4) : raw.toUpperCase();
    onChange({ ...value, card: { ...value.card, [field]: shaped }, touched: { ...value.touched, [field]: true } });
  };
  const leave = (field: CardField | 'provider' | 'mobilePhone') =>
    onChange({ ...value, blurred: { ...value.blurred, [field]: true }, touched: field === 'provider' || field === 'mobilePhone' ? value.touched : { ...value.touched, [field]: true } });
  const shown = (field: CardField) => (value.blurred[field] ? errors[field] : undefined);

  return (
    <div className="space-y-5">
      <fieldset>
        <legend className="mb-2 text-sm font-medium text-slate-800">Moyen de paiement</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          {PAYMENT_METHODS.map((m) => {
            const Icon = icons[m];
            const checked = value.method === m;
            return (
              <label
                key={m}
                className={cn(
                  'flex cursor-pointer items-start gap-3 rounded-xl border p-3 text-sm has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-amber-500',
                  checked ? 'border-blue-900 bg-blue-50' : 'border-slate-300 bg-white hover:bg-slate-50',
                )}
              >
                <input type="radio" name="payment-method" value={m} checked={checked} onChange={() => onChange({ ...value, method: m })} className="mt-1 accent-blue-900" />
                <span className="min-w-0">
                  <span className="flex items-center gap-1.5 font-semibold text-blue-950">
                    <Icon className="h-4 w-4 shrink-0" aria-hidden="true" /> {paymentMethodLabels[m]}
                  </span>
                  <span className="block text-slate-700">
                    {feeLabel(m)} · {paymentDelays[m]}
                  </span>
                </span>
              </label>
            );
          })}
        </div>
      </fieldset>

      {value.method === 'card' && (
        <div className="space-y-4">
          <TextField
            label="Numéro de carte"
            inputMode="numeric"
            autoComplete="cc-number"
            placeholder="1234 5678 9012 3456"
            maxLength={19}
            value={value.card.number}
            onChange={(e) => setCard('number', e.target.value)}
            onBlur={() => leave('number')}
            error={shown('number')}
            hint={cardType ? `Carte ${cardTypeLabels[cardType]}` : 'Visa, Mastercard ou Discover, 16 chiffres'}
            required
          />
          <div className="grid grid-cols-2 gap-4">
            <TextField
              label="Expiration (MM/AA)"
              inputMode="numeric"
              autoComplete="cc-exp"
              placeholder="MM/AA"
              maxLength={5}
              value={value.card.expiry}
              onChange={(e) => setCard('expiry', e.target.value)}
              onBlur={() => leave('expiry')}
              error={shown('expiry')}
              required
            />
            <TextField
              label="CVV"
              inputMode="numeric"
              autoComplete="cc-csc"
              maxLength={4}
              value={value.card.cvv}
              onChange={(e) => setCard('cvv', e.target.value)}
              onBlur={() => leave('cvv')}
              error={shown('cvv')}
              required
            />
          </div>
          <TextField
            label="Titulaire de la carte"
            autoComplete="cc-name"
            value={value.card.name}
            onChange={(e) => setCard('name', e.target.value)}
            onBlur={() => leave('name')}
            error={shown('name')}
            required
          />
          <Note>
            Vos données de carte ne sont vérifiées que dans votre navigateur : elles ne sont ni envoyées à nos serveurs ni enregistrées, et rien n'est débité en ligne. Le
            paiement par carte se fait auprès de notre équipe.
          </Note>
        </div>
      )}

      {value.method === 'mobile' && (
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            label="Opérateur"
            value={value.mobile.provider}
            onChange={(e) => onChange({ ...value, mobile: { ...value.mobile, provider: e.target.value as MobileProvider } })}
            onBlur={() => leave('provider')}
            error={value.blurred.provider ? mErrors.provider : undefined}
            required
          >
            <option value="">Choisir…</option>
            {(Object.keys(mobileProviderLabels) as MobileProvider[]).map((p) => (
              <option key={p} value={p}>
                {mobileProviderLabels[p]}
              </option>
            ))}
          </SelectField>
          <TextField
            label="Numéro mobile money"
            type="tel"
            autoComplete="tel"
            value={value.mobile.phone}
            onChange={(e) => onChange({ ...value, mobile: { ...value.mobile, phone: e.target.value } })}
            onBlur={() => leave('mobilePhone')}
            error={value.blurred.mobilePhone ? mErrors.phone : undefined}
            required
          />
          <div className="sm:col-span-2">
            <Note>Aucune demande de paiement n'est envoyée maintenant : notre équipe vous contacte sur ce numéro pour le règlement une fois la réservation confirmée.</Note>
          </div>
        </div>
      )}

      {value.method === 'bank' && (
        <div className="space-y-2 rounded-xl border border-slate-200 bg-slate-50 p-4 text-sm">
          <p>
            Référence à indiquer dans votre virement :{' '}
            <strong className="font-mono text-base text-blue-950" data-testid="transfer-reference">
              {value.transferReference}
            </strong>
          </p>
          <p className="text-slate-700">
            Les coordonnées bancaires vous sont communiquées par notre équipe quand elle confirme la réservation. Comptez 1 à 3 jours ouvrables pour la réception du virement.
          </p>
        </div>
      )}

      {value.method === 'digital_wallet' && <Note>Notre équipe vous indique comment régler avec votre portefeuille numérique quand elle confirme la réservation.</Note>}

      <dl className="grid grid-cols-[1fr_auto] gap-x-4 gap-y-1 rounded-xl bg-blue-50 p-4 text-sm text-blue-950">
        <dt className="font-bold">Total de la réservation</dt>
        <dd className="text-right font-bold">{formatPrice(total)}</dd>
        <dt>Frais de l'opérateur ({fee.percent} %), payés au règlement</dt>
        <dd className="text-right">{formatPrice(fee.fee)}</dd>
        <dt>À prévoir au règlement</dt>
        <dd className="text-right" data-testid="total-with-fee">
          {formatPrice(fee.total)}
        </dd>
      </dl>
      <p className="text-xs text-slate-600" data-testid="accepted-currencies">
        {ACCEPTED_CURRENCIES_NOTE}
      </p>
    </div>
  );
}

function Note({ children }: { children: ReactNode }) {
  return (
    <p className="flex items-start gap-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-950">
      <Info className="mt-0.5 h-4 w-4 shrink-0" aria-hidden="true" />
      <span>{children}</span>
    </p>
  );
}
