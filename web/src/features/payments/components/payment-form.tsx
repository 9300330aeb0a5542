import type { ReactNode } from 'react';
import { useFormContext } from 'react-hook-form';
import { CreditCard, Info, Landmark, Smartphone, Wallet } from 'lucide-react';
import { Field, SelectFormField } from '@/components/ui/form';
import { cn } from '@/lib/cn';
import { formatPrice } from '@/lib/format';
import { formatCardNumber } from '../schemas/payment-schemas';
import type { PaymentInput } from '../schemas/payment-step-schema';
import { cardTypeLabels, detectCardType, feeLabel, formatExpiry, mobileProviderLabels, paymentDelays, paymentFee, paymentMethodLabels, PAYMENT_METHODS, type MobileProvider, type PaymentMethod } from '../utils/payment';

/**
 * The payment step's fields: the method, its details and its fee. It sits in a form of
 * `paymentStepSchema` (the reservation dialog holds it, so what was typed outlives the step); a
 * card's errors show once its field is left. Card details are checked in the browser and go
 * nowhere: no payment is taken online, and the form says so.
 */

/** customer-site.md §9: EUR and USD are accepted; the amounts here stay in US dollars. */
export const ACCEPTED_CURRENCIES_NOTE = 'Devises acceptées : USD et EUR. Montants affichés en dollars US.';

const icons: Record<PaymentMethod, typeof CreditCard> = { card: CreditCard, mobile: Smartphone, bank: Landmark, digital_wallet: Wallet };

/** What a card field keeps of what is typed: the number in groups of four, MM/AA, up to four digits, upper case. */
const shape = {
  number: formatCardNumber,
  expiry: formatExpiry,
  cvv: (raw: string) => raw.replace(/\D/g, '').slice(0, 4),
  name: (raw: string) => raw.toUpperCase(),
} as const;
const reshape = (field: keyof typeof shape) => (e: { target: { value: string } }) => {
  e.target.value = shape[field](e.target.value);
};

export function PaymentForm({
  total,
}: {
  /** The rental total the server quoted, in dollars. */
  total: number;
}) {
  const { register, watch } = useFormContext<PaymentInput>();
  const [method, cardNumber, transferReference] = watch(['method', 'card.number', 'transferReference']);
  const fee = paymentFee(total, method);
  const cardType = detectCardType(cardNumber);

  return (
    <div className="space-y-5">
      <fieldset>
        <legend className="mb-2 text-sm font-medium text-slate-800">Moyen de paiement</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          {PAYMENT_METHODS.map((m) => {
            const Icon = icons[m];
            const checked = method === m;
            return (
              <label
                key={m}
                className={cn(
                  'flex cursor-pointer items-start gap-3 rounded-xl border p-3 text-sm has-[:focus-visible]:outline-3 has-[:focus-visible]:outline-amber-500',
                  checked ? 'border-blue-900 bg-blue-50' : 'border-slate-300 bg-white hover:bg-slate-50',
                )}
              >
                <input type="radio" value={m} {...register('method')} className="mt-1 accent-blue-900" />
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

      {method === 'card' && (
        <div className="space-y-4">
          <Field
            name="card.number"
            label="Numéro de carte"
            inputMode="numeric"
            autoComplete="cc-number"
            placeholder="1234 5678 9012 3456"
            maxLength={19}
            onChange={reshape('number')}
            hint={cardType ? `Carte ${cardTypeLabels[cardType]}` : 'Visa, Mastercard ou Discover, 16 chiffres'}
            required
          />
          <div className="grid grid-cols-2 gap-4">
            <Field name="card.expiry" label="Expiration (MM/AA)" inputMode="numeric" autoComplete="cc-exp" placeholder="MM/AA" maxLength={5} onChange={reshape('expiry')} required />
            <Field name="card.cvv" label="CVV" inputMode="numeric" autoComplete="cc-csc" maxLength={4} onChange={reshape('cvv')} required />
          </div>
          <Field name="card.name" label="Titulaire de la carte" autoComplete="cc-name" onChange={reshape('name')} required />
          <Note>
            Vos données de carte ne sont vérifiées que dans votre navigateur : elles ne sont ni envoyées à nos serveurs ni enregistrées, et rien n'est débité en ligne. Le
            paiement par carte se fait auprès de notre équipe.
          </Note>
        </div>
      )}

      {method === 'mobile' && (
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectFormField name="mobile.provider" label="Opérateur" required>
            <option value="">Choisir…</option>
            {(Object.keys(mobileProviderLabels) as MobileProvider[]).map((p) => (
              <option key={p} value={p}>
                {mobileProviderLabels[p]}
              </option>
            ))}
          </SelectFormField>
          <Field name="mobile.phone" label="Numéro mobile money" type="tel" autoComplete="tel" required />
          <div className="sm:col-span-2">
            <Note>Aucune demande de paiement n'est envoyée maintenant : notre équipe vous contacte sur ce numéro pour le règlement une fois la réservation confirmée.</Note>
          </div>
        </div>
      )}

      {method === 'bank' && (
        <div className="space-y-2 rounded-xl border border-slate-200 bg-slate-50 p-4 text-sm">
          <p>
            Référence à indiquer dans votre virement :{' '}
            <strong className="font-mono text-base text-blue-950" data-testid="transfer-reference">
              {transferReference}
            </strong>
          </p>
          <p className="text-slate-700">
            Les coordonnées bancaires vous sont communiquées par notre équipe quand elle confirme la réservation. Comptez 1 à 3 jours ouvrables pour la réception du virement.
          </p>
        </div>
      )}

      {method === 'digital_wallet' && <Note>Notre équipe vous indique comment régler avec votre portefeuille numérique quand elle confirme la réservation.</Note>}

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
