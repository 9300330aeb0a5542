import { useState } from 'react';
import { FileDown } from 'lucide-react';
import { notify } from '@/lib/notify';
import { Button } from '@/components/ui/button';
import { Field, Form, useZodForm } from '@/components/ui/form';
import { changeDatesSchema } from '../schemas/profile-schema';
import { bookingReference, formatDate, formatPrice, todayIso } from '@/lib/format';
import { cn } from '@/lib/cn';
import type { BookingStatus } from '@/types/database';
import { kindLabels, statusLabels, useCancelBooking, useChangeBookingDates, type MyBooking } from '../api/bookings';
import { downloadReceipt } from '../api/receipt';

const statusTones: Record<BookingStatus, string> = {
  pending: 'bg-amber-100 text-amber-900',
  confirmed: 'bg-blue-100 text-blue-900',
  active: 'bg-green-100 text-green-900',
  completed: 'bg-slate-200 text-slate-800',
  cancelled: 'bg-red-100 text-red-800',
};

export function StatusBadge({ status }: { status: BookingStatus }) {
  return <span className={cn('rounded-full px-2.5 py-0.5 text-xs font-semibold', statusTones[status])}>{statusLabels[status]}</span>;
}

export function BookingList({ bookings, allowCancel }: { bookings: MyBooking[]; allowCancel: boolean }) {
  const cancel = useCancelBooking();
  return (
    <ul className="space-y-3">
      {bookings.map((b) => (
        <li key={`${b.kind}-${b.id}`} className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm" data-testid="booking-item">
          <div className="flex items-start justify-between gap-3">
            <div className="min-w-0 flex-1">
              <p className="text-xs font-semibold uppercase tracking-wide text-slate-600">{kindLabels[b.kind]}</p>
              <p className="font-bold text-blue-950">{b.title}</p>
              <p className="text-sm text-slate-700">{b.detail}</p>
              <p className="mt-1 text-xs text-slate-600">
                Réf. <span className="font-mono font-semibold">{bookingReference(b.id)}</span> · réservée le {formatDate(b.createdAt)}
              </p>
            </div>
            <div className="flex shrink-0 flex-col items-end gap-1">
              <StatusBadge status={b.status} />
              <p className="whitespace-nowrap text-lg font-extrabold text-blue-950" data-testid="booking-amount">
                {formatPrice(b.total)}
              </p>
            </div>
          </div>
          {/* the actions in one row of like buttons under the booking (they stacked in a tall column) */}
          <div className="mt-3 flex flex-wrap items-start gap-2 border-t border-slate-100 pt-3" data-testid="booking-actions">
            <ReceiptButton booking={b} />
            {allowCancel && b.status === 'pending' && b.dates && <ChangeDates booking={b} dates={b.dates} />}
            {allowCancel && b.status === 'pending' && (
              <Button
                variant="outline"
                size="sm"
                disabled={cancel.isPending}
                aria-label={`Annuler la réservation ${bookingReference(b.id)}`}
                onClick={() => {
                  if (!window.confirm(`Annuler la réservation ${bookingReference(b.id)} ?`)) return;
                  cancel.mutate(
                    { kind: b.kind, id: b.id },
                    {
                      onSuccess: () => notify.success('Réservation annulée'),
                      onError: (e) => notify.error(e.message),
                    },
                  );
                }}
              >
                Annuler
              </Button>
            )}
          </div>
        </li>
      ))}
    </ul>
  );
}

/** « Reçu » downloads the booking's receipt as a PDF (made by the booking-receipt function). */
function ReceiptButton({ booking }: { booking: MyBooking }) {
  const [busy, setBusy] = useState(false);
  const ref = bookingReference(booking.id);
  const download = async () => {
    setBusy(true);
    try {
      await downloadReceipt(booking.kind, booking.id);
    } catch (e) {
      notify.error(e instanceof Error ? e.message : 'Le reçu n’a pas pu être téléchargé.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="outline" size="sm" disabled={busy} aria-busy={busy} onClick={() => void download()} aria-label={`Télécharger le reçu de la réservation ${ref} (PDF)`}>
      <FileDown className="h-3.5 w-3.5" aria-hidden="true" /> Reçu
    </Button>
  );
}

/** « Modifier les dates » of a pending rental: the database checks and prices the new dates. */
function ChangeDates({ booking, dates }: { booking: MyBooking; dates: { start: string; end: string } }) {
  const [open, setOpen] = useState(false);
  // the error shows on submit, under the end date, as it always has
  const form = useZodForm(changeDatesSchema(todayIso()), { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: dates });
  const start = form.watch('start');
  const change = useChangeBookingDates();
  const ref = bookingReference(booking.id);
  if (!open)
    return (
      <Button variant="outline" size="sm" onClick={() => setOpen(true)} aria-label={`Modifier les dates de la réservation ${ref}`}>
        Modifier les dates
      </Button>
    );
  const submit = ({ start, end }: { start: string; end: string }) => {
    change.mutate(
      { id: booking.id, start, end },
      {
        onSuccess: (total) => {
          notify.success(`Dates modifiées : nouveau total ${formatPrice(total)}`);
          setOpen(false);
        },
        onError: (err) => form.setError('end', { type: 'server', message: err.message }),
      },
    );
  };
  return (
    <Form form={form} onValid={submit} className="w-full space-y-2 sm:w-72 rounded-lg border border-slate-200 p-3" aria-label={`Nouvelles dates de la réservation ${ref}`}>
      <Field name="start" label="Nouvelle date de début" type="date" min={todayIso()} />
      <Field name="end" label="Nouvelle date de fin" type="date" min={start} />
      <div className="flex gap-2">
        <Button type="submit" size="sm" disabled={change.isPending}>
          {change.isPending ? 'Enregistrement…' : 'Enregistrer'}
        </Button>
        <Button variant="ghost" size="sm" onClick={() => setOpen(false)}>
          Fermer
        </Button>
      </div>
    </Form>
  );
}
