import { useEffect, useRef, useState } from 'react';
import { notify } from '@/lib/notify';
import { Dialog } from '@/components/ui/dialog';
import { Alert } from '@/components/ui/field';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import { errorCode } from '@/lib/errors';
import { addDaysIso, todayIso } from '@/lib/format';
import { fieldErrors } from '@/lib/validation';
import type { BookVehicleResult, Vehicle } from '@/types/database';
import { clampDuration } from '@/features/payments/schemas/payment-schemas';
import { initialPayment, PaymentForm, paymentReady, type PaymentInput } from '@/features/payments/components/payment-form';
import { generateTransferReference } from '@/features/payments/utils/payment';
import { useBookVehicle, useRentalQuote } from '../api/booking';
import { bookingStepSchema, personalStepSchema, reservationStepMessages } from '../schemas/reservation-schemas';
import { BookingStep, paymentFollowUpText, PersonalStep, SummaryStep, type BookingInput, type PersonalInput } from './reservation-steps';

/**
 * The reservation dialog of customer-site.md (sections 3–5): personal → booking → payment →
 * summary, then a real pending booking through `book_vehicle`. Back goes to the previous step,
 * Annuler closes. Prices are the server's (`quote_vehicle_rental`, then the booked total); card
 * details never leave the browser and nothing is charged.
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
  const [personal, setPersonal] = useState<PersonalInput>({ ...defaults, licenseNumber: '' });
  const [personalShown, setPersonalShown] = useState<Partial<Record<keyof PersonalInput, boolean>>>({});
  const [booking, setBooking] = useState<BookingInput>({ date: '', time: '', duration: '1', guests: '1', specialRequests: '' });
  const [bookingShown, setBookingShown] = useState<Partial<Record<keyof BookingInput, boolean>>>({});
  const [durationNotice, setDurationNotice] = useState<string | null>(null);
  const [payment, setPayment] = useState<PaymentInput>(() => initialPayment(defaults.phone, generateTransferReference()));
  const book = useBookVehicle();

  const personalParse = personalStepSchema(today).safeParse(personal);
  const personalErrors = personalParse.success ? {} : fieldErrors<keyof PersonalInput>(personalParse.error);
  const bookingValues = { ...booking, duration: Number(booking.duration), guests: booking.guests === '' ? 0 : Number(booking.guests) };
  const bookingParse = bookingStepSchema(today).safeParse(bookingValues);
  const bookingErrors = bookingParse.success ? {} : fieldErrors<keyof BookingInput>(bookingParse.error);

  const datesComplete = !bookingErrors.date && !bookingErrors.duration && booking.date !== '';
  const endDate = datesComplete ? addDaysIso(booking.date, bookingValues.duration) : '';
  const quote = useRentalQuote(datesComplete ? { vehicleId: vehicle.id, startDate: booking.date, endDate } : null);
  const currentQuote = datesComplete && !quote.isPlaceholderData ? quote.data : undefined;

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

  const next = () => {
    if (step === 'personal') {
      if (!personalParse.success) return setPersonalShown({ name: true, email: true, phone: true, licenseNumber: true });
      setStep('booking');
    } else if (step === 'booking') {
      if (!bookingParse.success) return setBookingShown({ date: true, time: true, duration: true, guests: true });
      if (!currentQuote) return;
      setStep('payment');
    } else if (step === 'payment') {
      if (paymentReady(payment)) setStep('summary');
    }
  };

  const setDuration = (raw: string) => {
    if (raw !== '' && Number(raw) > 30) {
      setDurationNotice(reservationStepMessages.duration);
      setBooking((b) => ({ ...b, duration: '30' }));
      return;
    }
    setDurationNotice(null);
    setBooking((b) => ({ ...b, duration: raw }));
  };

  const confirm = () => {
    if (!personalParse.success || !bookingParse.success || !currentQuote) return;
    const p = personalParse.data;
    const b = bookingParse.data;
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
          method: payment.method,
          mobileMoneyProvider: payment.method === 'mobile' && payment.mobile.provider ? payment.mobile.provider : undefined,
          mobileMoneyPhone: payment.method === 'mobile' ? payment.mobile.phone.trim() : undefined,
          transferReference: payment.method === 'bank' ? payment.transferReference : undefined,
        },
      },
      {
        onSuccess: (result) => {
          notify.success(RESERVATION_SUBMITTED, { duration: 5000, description: paymentFollowUpText(payment) });
          onBooked({ result, vehicleName: vehicle.name, startDate: b.date, endDate, payment });
        },
        onError: () => notify.error(RESERVATION_FAILED),
      },
    );
  };

  const canContinue = step === 'payment' ? paymentReady(payment) : step === 'booking' ? !quote.isFetching || !!currentQuote : true;

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
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (step === 'summary') confirm();
          else next();
        }}
        className="space-y-5"
      >
        <h3 ref={headingRef} tabIndex={-1} className="text-lg font-semibold text-blue-950 focus:outline-none">
          Étape {index + 1} sur 4 : {STEPS[index]?.label}
        </h3>

        {step === 'personal' && (
          <PersonalStep
            value={personal}
            errors={Object.fromEntries(Object.entries(personalErrors).filter(([k]) => personalShown[k as keyof PersonalInput]))}
            onChange={(field, v) => setPersonal((p) => ({ ...p, [field]: v }))}
            onBlur={(field) => setPersonalShown((s) => ({ ...s, [field]: true }))}
          />
        )}

        {step === 'booking' && (
          <BookingStep
            value={booking}
            errors={Object.fromEntries(Object.entries(bookingErrors).filter(([k]) => bookingShown[k as keyof BookingInput]))}
            durationNotice={durationNotice}
            quote={{ data: datesComplete ? quote.data : undefined, loading: quote.isFetching, error: quote.isError ? quote.error.message : null }}
            onChange={(field, v) => (field === 'duration' ? setDuration(v) : setBooking((b) => ({ ...b, [field]: v })))}
            onBlur={(field) => {
              if (field === 'duration') setBooking((b) => ({ ...b, duration: String(clampDuration(Number(b.duration === '' ? 1 : b.duration))) }));
              setBookingShown((s) => ({ ...s, [field]: true }));
            }}
          />
        )}

        {step === 'payment' && currentQuote && <PaymentForm value={payment} onChange={setPayment} total={Number(currentQuote.total)} />}

        {step === 'summary' && currentQuote && (
          <SummaryStep vehicleName={vehicle.name} personal={personal} booking={booking} endDate={endDate} quote={currentQuote} payment={payment} />
        )}

        {step === 'summary' && book.isError && (
          <Alert>
            {book.error.message}
            {errorCode(book.error) === 'PT409' && ' Revenez à l’étape « Réservation » pour choisir d’autres dates.'}
          </Alert>
        )}

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
              <Button type="submit" disabled={book.isPending}>
                {book.isPending ? 'Réservation en cours…' : 'Confirmer'}
              </Button>
            ) : (
              <Button type="submit" disabled={!canContinue}>
                {step === 'payment' ? 'Continuer' : 'Suivant'}
              </Button>
            )}
          </div>
        </div>
      </form>
    </Dialog>
  );
}
