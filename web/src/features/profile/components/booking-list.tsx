import { notify } from '@/lib/notify';
import { Button } from '@/components/ui/button';
import { bookingReference, formatDate, formatPrice } from '@/lib/format';
import { cn } from '@/lib/cn';
import type { BookingStatus } from '@/types/database';
import { kindLabels, statusLabels, useCancelBooking, type MyBooking } from '../api/bookings';

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
          <div className="flex flex-wrap items-start justify-between gap-3">
            <div className="min-w-0">
              <p className="text-xs font-semibold uppercase tracking-wide text-slate-600">{kindLabels[b.kind]}</p>
              <p className="font-bold text-blue-950">{b.title}</p>
              <p className="text-sm text-slate-700">{b.detail}</p>
              <p className="mt-1 text-xs text-slate-600">
                Réf. <span className="font-mono font-semibold">{bookingReference(b.id)}</span> · réservée le {formatDate(b.createdAt)}
              </p>
            </div>
            <div className="flex flex-col items-end gap-2">
              <StatusBadge status={b.status} />
              <p className="text-lg font-extrabold text-blue-950" data-testid="booking-amount">
                {formatPrice(b.total)}
              </p>
              {allowCancel && b.status === 'pending' && (
                <Button
                  variant="outline"
                  className="px-3 py-1.5 text-xs"
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
          </div>
        </li>
      ))}
    </ul>
  );
}
