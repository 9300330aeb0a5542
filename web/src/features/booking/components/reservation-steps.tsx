import type { ReactNode } from 'react';
import { Info } from 'lucide-react';
import { Field, TextAreaFormField } from '@/components/ui/form';
import { formatDate, formatDays, formatPercent, formatPrice, todayIso } from '@/lib/format';
import type { RentalQuote } from '@/types/database';
import { clampDuration } from '@/features/payments/schemas/payment-schemas';
import type { PaymentInput } from '@/features/payments/schemas/payment-step-schema';
import { mobileProviderLabels, paymentFee, paymentMethodLabels } from '@/features/payments/utils/payment';
import { reservationStepMessages, type BookingInput, type PersonalInput } from '../schemas/reservation-schemas';

/**
 * The personal, booking and summary steps of the reservation dialog (the payment step is the
 * payments feature's form). The personal and booking steps are fields of the forms the dialog
 * holds (`personalStepSchema`, `bookingStepSchema`): an error shows once its field is left.
 */

export function PersonalStep() {
  return (
    <div className="space-y-4">
      <Field name="name" label="Nom complet" autoComplete="name" required />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field name="email" label="Email" type="email" autoComplete="email" required />
        <Field name="phone" label="Téléphone" type="tel" autoComplete="tel" placeholder="+243 81 234 5678" required />
      </div>
      <Field name="licenseNumber" label="Numéro de permis de conduire" autoComplete="off" hint="Demandé pour toute location ; présentez le permis à la prise en charge." required />
    </div>
  );
}

/**
 * The dates, time, duration and people. The duration is clamped: above 30 it becomes 30 at once,
 * with `durationNotice` (kept by the dialog) shown until the next change; left empty or out of
 * range it becomes 1–30 when the field is left.
 */
export function BookingStep({
  durationNotice,
  onDurationNotice,
  quote,
}: {
  durationNotice: string | null;
  onDurationNotice: (notice: string | null) => void;
  quote: { data: RentalQuote | undefined; loading: boolean; error: string | null };
}) {
  return (
    <div className="space-y-4">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field name="date" label="Date de début" type="date" min={todayIso()} required />
        <Field name="time" label="Heure de prise en charge" type="time" required />
        <Field
          name="duration"
          label="Durée (jours)"
          type="number"
          inputMode="numeric"
          min={1}
          max={30}
          onChange={(e) => {
            const over = e.target.value !== '' && Number(e.target.value) > 30;
            onDurationNotice(over ? reservationStepMessages.duration : null);
            if (over) e.target.value = '30';
          }}
          onBlur={(e) => {
            e.target.value = String(clampDuration(Number(e.target.value === '' ? 1 : e.target.value)));
          }}
          notice={durationNotice}
          hint="De 1 à 30 jours"
          required
        />
        <Field name="guests" label="Nombre de personnes" type="number" inputMode="numeric" min={1} max={50} required />
      </div>
      {/* at most what the schema accepts, so its (untranslated) length message never shows */}
      <TextAreaFormField name="specialRequests" label="Demandes particulières" rows={3} maxLength={1000} placeholder="Siège enfant, livraison à l'hôtel…" />
      <div aria-live="polite" className="rounded-xl bg-blue-50 p-4 text-sm text-blue-950">
        {quote.error ? (
          <p role="alert" className="text-red-800">
            {quote.error}
          </p>
        ) : quote.data ? (
          <QuoteLines quote={quote.data} />
        ) : (
          <p>{quote.loading ? 'Calcul du prix…' : 'Indiquez la date et la durée pour connaître le prix.'}</p>
        )}
      </div>
    </div>
  );
}

/** The server's quote: rate × days, the discount when there is one, the total. */
export function QuoteLines({ quote }: { quote: RentalQuote }) {
  const discount = Number(quote.discount_percent);
  return (
    <dl className="grid grid-cols-[1fr_auto] gap-x-4 gap-y-1">
      <dt>
        {formatPrice(quote.daily_rate)} × {formatDays(quote.days)}
      </dt>
      <dd className="text-right">{formatPrice(quote.base_total)}</dd>
      {discount > 0 && (
        <>
          <dt>Remise ({formatPercent(discount)})</dt>
          <dd className="text-right">-{formatPrice(Number(quote.base_total) - Number(quote.total))}</dd>
        </>
      )}
      <dt className="font-bold">Total de la location</dt>
      <dd className="text-right font-bold" data-testid="quote-total">
        {formatPrice(quote.total)}
      </dd>
    </dl>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-slate-600">{label}</dt>
      <dd className="min-w-0 break-words font-medium text-slate-900">{children}</dd>
    </>
  );
}

export function SummaryStep({
  vehicleName,
  personal,
  booking,
  endDate,
  quote,
  payment,
}: {
  vehicleName: string;
  personal: PersonalInput;
  booking: BookingInput;
  endDate: string;
  quote: RentalQuote;
  payment: PaymentInput;
}) {
  const fee = paymentFee(quote.total, payment.method);
  const discount = Number(quote.discount_percent);
  return (
    <div className="space-y-4">
      <dl className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-x-3 gap-y-2 text-sm">
        <Row label="Véhicule">{vehicleName}</Row>
        <Row label="Nom">{personal.name}</Row>
        <Row label="Email">{personal.email}</Row>
        <Row label="Téléphone">{personal.phone}</Row>
        <Row label="Permis">{personal.licenseNumber.toUpperCase()}</Row>
        <Row label="Du">
          {formatDate(booking.date)} à {booking.time}
        </Row>
        <Row label="Au">{formatDate(endDate)}</Row>
        <Row label="Durée">{formatDays(quote.days)}</Row>
        <Row label="Personnes">{booking.guests}</Row>
        {booking.specialRequests.trim() && <Row label="Demandes">{booking.specialRequests.trim()}</Row>}
        <Row label="Paiement">
          {paymentMethodLabels[payment.method]}
          {payment.method === 'mobile' && payment.mobile.provider && ` (${mobileProviderLabels[payment.mobile.provider]}, ${payment.mobile.phone})`}
          {payment.method === 'card' && ` se terminant par ${payment.card.number.replace(/\D/g, '').slice(-4)}`}
        </Row>
        {payment.method === 'bank' && (
          <Row label="Référence de virement">
            <span className="font-mono">{payment.transferReference}</span>
          </Row>
        )}
        <Row label="Location">
          {formatPrice(quote.total)}
          {discount > 0 && ` (remise ${formatPercent(discount)} incluse)`}
        </Row>
        <dt className="border-t border-slate-200 pt-2 font-bold text-blue-950">Total de la réservation</dt>
        <dd className="border-t border-slate-200 pt-2 text-lg font-extrabold text-blue-950" data-testid="summary-total">
          {formatPrice(quote.total)}
        </dd>
        {fee.fee > 0 && (
          <>
            <Row label={`Frais de l'opérateur (${formatPercent(fee.percent)}), au règlement`}>{formatPrice(fee.fee)}</Row>
            <Row label="À prévoir au règlement">{formatPrice(fee.total)}</Row>
          </>
        )}
      </dl>
      <p className="flex items-start gap-2 rounded-lg bg-amber-50 p-3 text-sm text-amber-950">
        <Info className="mt-0.5 h-4 w-4 shrink-0" aria-hidden="true" />
        <span>
          Aucun paiement n'est effectué sur ce site. Votre réservation sera enregistrée « en attente » : notre équipe vous contacte dans les 24h pour la confirmer et convenir du
          règlement.
        </span>
      </p>
    </div>
  );
}

/** What happens about payment once booked, said plainly: nothing was charged online. */
export function paymentFollowUpText(payment: PaymentInput): string {
  switch (payment.method) {
    case 'card':
      return "Aucun paiement n'a été effectué en ligne et aucune donnée de carte n'a été transmise : notre équipe vous contacte pour confirmer la réservation et le règlement par carte.";
    case 'mobile':
      return `Aucun paiement n'a été effectué en ligne : notre équipe vous contacte au ${payment.mobile.phone.trim()} pour le règlement par ${payment.mobile.provider ? mobileProviderLabels[payment.mobile.provider] : 'mobile money'}.`;
    case 'bank':
      return `Aucun paiement n'a été effectué en ligne. Pour le virement, indiquez la référence ${payment.transferReference} ; notre équipe vous communique les coordonnées bancaires en confirmant la réservation (réception en 1 à 3 jours ouvrables).`;
    case 'digital_wallet':
      return "Aucun paiement n'a été effectué en ligne : notre équipe vous contacte pour confirmer la réservation et le règlement par portefeuille numérique.";
  }
}

/** The confirmation's payment paragraph: method, fee on the booked total, what to do next. */
export function PaymentFollowUp({ payment, total }: { payment: PaymentInput; total: number | string }) {
  const fee = paymentFee(total, payment.method);
  return (
    <div className="space-y-2 text-sm text-slate-700">
      <p>
        Paiement choisi : <strong>{paymentMethodLabels[payment.method]}</strong>
        {fee.fee > 0 && ` (frais ${formatPercent(fee.percent)}\u00a0: ${formatPrice(fee.fee)}, soit ${formatPrice(fee.total)})`}.
      </p>
      {payment.method === 'bank' && (
        <p>
          Référence de virement :{' '}
          <strong className="font-mono text-blue-950" data-testid="confirmed-transfer-reference">
            {payment.transferReference}
          </strong>
        </p>
      )}
      <p data-testid="payment-follow-up">{paymentFollowUpText(payment)}</p>
    </div>
  );
}
