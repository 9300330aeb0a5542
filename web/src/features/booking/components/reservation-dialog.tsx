import { useEffect, useMemo, useRef, useState } from 'react';
import { notify } from '@/lib/notify';
import { Dialog } from '@/components/ui/dialog';
import { Alert } from '@/components/ui/field';
import { Form, useZodForm } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { errorCode } from '@/lib/errors';
import { addDaysIso, todayIso } from '@/lib/format';
import type { BookVehicleResult, Vehicle } from '@/types/database';
import { PaymentForm } from '@/features/payments/components/payment-form';
import { initialPayment, paymentReady, paymentStepSchema, type PaymentInput } from '@/features/payments/schemas/payment-step-schema';
import { generateTransferReference } from '@/features/payments/utils/payment';
import { useBookVehicle, useRentalQuote } from '../api/booking';
import { bookingStepSchema, personalStepSchema } from '../schemas/reservation-schemas';
import { BookingStep, paymentFollowUpText, PersonalStep, SummaryStep } from './reservation-steps';

/**
 * The reservation dialog of customer-site.md (sections 3–5): personal → booking → payment →
 * summary, then a real pending booking through `book_vehicle`. Back goes to the previous step,
 * Annuler closes. Each step is a form of its own schema that the dialog holds, so what was typed
 * outlives the step (Back keeps it); Suivant shows every error of the step, otherwise an error
 * shows once its field is left. Prices are the server's (`quote_vehicle_rental`, then the booked
 * total); card details never leave the browser and nothing is charged.
 */

type Step = 'personal' | 'booking' | 'payment' | 'summary';
const STEPS: Array<{ key: Step; label: string }> = [
  { key: 'personal', label: 'Coordonnées' },
  { key: 'booking', label: 'Réservation' },
  { key: 'payment', label: 'Paiement' },
  { key: 'summary', label: 'Récapitulatif' },
];

export const RESERVATION_SUBMITTED = 'Votre réservation a été soumise avec succès';
export const RESERVATION_FAILED = 'Erreur lors de la réservation. Veuillez réessayer.';

export interface ReservationOutcome {
  result: BookVehicleResult;
  vehicleName: string;
  startDate: string;
  endDate: string;
  payment: PaymentInput;
}

export function ReservationDialog({
  vehicle,
  onClose,
  defaults,
  onBooked,
}: {
  vehicle: Pick<Vehicle, 'id' | 'name'>;
  onClose: () => void;
  /** The signed-in customer's profile, or blanks for a visitor. */
  defaults: { name: string; email: string; phone: string };
  onBooked: (outcome: ReservationOutcome) => void;
}) {
  const today = todayIso();
  const [step, setStep] = useState<Step>('personal');
  const personalSchema = personalStepSchema(today);
  const bookingSchema = bookingStepSchema(today);
  const personalForm = useZodForm(personalSchema, { defaultValues: { ...defaults, licenseNumber: '' } });
  const bookingForm = useZodForm(bookingSchema, { defaultValues: { date: '', time: '', duration: '1', guests: '1', specialRequests: '' } });
  // the form keeps its first default values: the reference is drawn once per dialog
  const paymentDefaults = useMemo(() => initialPayment(defaults.phone, generateTransferReference()), [defaults.phone]);
  const paymentForm = useZodForm(paymentStepSchema(), { defaultValues: paymentDefaults });
  /** « La durée maximale est de 30 jours » after a duration above 30 was cut to 30, until the next change. */
  const [durationNotice, setDurationNotice] = useState<string | null>(null);
  const book = useBookVehicle();

  // the live quote follows the dates as typed, once they are valid
  const [date, duration] = bookingForm.watch(['date', 'duration']);
  const dates = bookingSchema.pick({ date: true, duration: true }).safeParse({ date, duration });
  const endDate = dates.success ? addDaysIso(dates.data.date, dates.data.duration) : '';
  const quote = useRentalQuote(dates.success ? { vehicleId: vehicle.id, startDate: dates.data.date, endDate } : null);
  const currentQuote = dates.success && !quote.isPlaceholderData ? quote.data : undefined;
  const payment = paymentForm.watch();

  // Each new step is announced by moving focus to its heading (not on opening: the dialog focuses itself).
  const headingRef = useRef<HTMLHeadingElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    headingRef.current?.focus();
  }, [step]);

  const index = STEPS.findIndex((s) => s.key === step);
  const back = () => setStep(STEPS[Math.max(0, index - 1)]?.key ?? 'personal');

  const confirm = () => {
    const personal = personalSchema.safeParse(personalForm.getValues());
    const booking = bookingSchema.safeParse(bookingForm.getValues());
    if (!personal.success || !booking.success || !currentQuote) return;
    const p = personal.data;
    const b = booking.data;
    const pay = paymentForm.getValues();
    book.mutate(
      {
        vehicleId: vehicle.id,
        startDate: b.date,
        endDate,
        pickupLocation: '',
        dropoffLocation: '',
        fullName: p.name,
        email: p.email,
        phone: p.phone,
        licenseNumber: p.licenseNumber,
        specialRequests: b.specialRequests,
        pickupTime: b.time,
        passengers: b.guests,
        // how the customer means to pay; card number, expiry and cvv are deliberately not here.
        payment: {
          method: pay.method,
          mobileMoneyProvider: pay.method === 'mobile' && pay.mobile.provider ? pay.mobile.provider : undefined,
          mobileMoneyPhone: pay.method === 'mobile' ? pay.mobile.phone.trim() : undefined,
          transferReference: pay.method === 'bank' ? pay.transferReference : undefined,
        },
      },
      {
        onSuccess: (result) => {
          notify.success(RESERVATION_SUBMITTED, { duration: 5000, description: paymentFollowUpText(pay) });
          onBooked({ result, vehicleName: vehicle.name, startDate: b.date, endDate, payment: pay });
        },
        onError: () => notify.error(RESERVATION_FAILED),
      },
    );
  };

  const canContinue = step === 'payment' ? paymentReady(payment) : step === 'booking' ? !quote.isFetching || !!currentQuote : true;

  const heading = (
    <h3 ref={headingRef} tabIndex={-1} className="text-lg font-semibold text-blue-950 focus:outline-none">
      Étape {index + 1} sur 4 : {STEPS[index]?.label}
    </h3>
  );
  const actions = (
    <div className="flex flex-wrap items-center justify-between gap-2 border-t border-slate-200 pt-4">
      <Button variant="ghost" onClick={onClose}>
        Annuler
      </Button>
      <div className="flex flex-wrap gap-2">
        {index > 0 && (
          <Button variant="outline" onClick={back} disabled={book.isPending}>
            Retour
          </Button>
        )}
        {step === 'summary' ? (
          <Button onClick={confirm} disabled={book.isPending}>
            {book.isPending ? 'Réservation en cours…' : 'Confirmer'}
          </Button>
        ) : (
          <Button type="submit" disabled={!canContinue}>
            {step === 'payment' ? 'Continuer' : 'Suivant'}
          </Button>
        )}
      </div>
    </div>
  );

  return (
    <Dialog open onClose={onClose} title={`Réserver : ${vehicle.name}`}>
      {/* On a phone only the current step shows its name (the others their number). */}
      <ol className="mb-4 flex flex-wrap gap-1 text-xs" aria-label="Étapes de la réservation">
        {STEPS.map((s, i) => (
          <li
            key={s.key}
            aria-current={s.key === step ? 'step' : undefined}
            className={cn('rounded-full px-2.5 py-1 font-medium', i === index ? 'bg-blue-900 text-white' : i < index ? 'bg-green-100 text-green-800' : 'bg-slate-200 text-slate-700')}
          >
            <span aria-hidden="true">{i + 1}. </span>
            <span className={i === index ? undefined : 'sr-only sm:not-sr-only'}>{s.label}</span>
          </li>
        ))}
      </ol>
      {step === 'personal' && (
        <Form form={personalForm} onValid={() => setStep('booking')} className="space-y-5">
          {heading}
          <PersonalStep />
          {actions}
        </Form>
      )}

      {step === 'booking' && (
        <Form form={bookingForm} onValid={() => currentQuote && setStep('payment')} className="space-y-5">
          {heading}
          <BookingStep
            durationNotice={durationNotice}
            onDurationNotice={setDurationNotice}
            quote={{ data: dates.success ? quote.data : undefined, loading: quote.isFetching, error: quote.isError ? quote.error.message : null }}
          />
          {actions}
        </Form>
      )}

      {step === 'payment' && (
        <Form form={paymentForm} onValid={() => setStep('summary')} className="space-y-5">
          {heading}
          {currentQuote && <PaymentForm total={Number(currentQuote.total)} />}
          {actions}
        </Form>
      )}

      {step === 'summary' && (
        <div className="space-y-5">
          {heading}
          {currentQuote && (
            <SummaryStep vehicleName={vehicle.name} personal={personalForm.getValues()} booking={bookingForm.getValues()} endDate={endDate} quote={currentQuote} payment={payment} />
          )}
          {book.isError && (
            <Alert>
              {book.error.message}
              {errorCode(book.error) === 'PT409' && ' Revenez à l’étape « Réservation » pour choisir d’autres dates.'}
            </Alert>
          )}
          {actions}
        </div>
      )}
    </Dialog>
  );
}
