import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { CheckCircle2 } from 'lucide-react';
import { Dialog } from './dialog';
import { Button, buttonClass } from './button';
import { paths } from '@/config/paths';
import { bookingReference, formatPrice } from '@/lib/format';
import type { Numeric } from '@/types/database';

/** After a service booking: its reference and the total the database computed. */
export function BookingConfirmationDialog({
  open,
  onClose,
  onAgain,
  title,
  booking,
  children,
  againLabel = 'Réserver à nouveau',
  profileLink = true,
}: {
  open: boolean;
  onClose: () => void;
  /** What the « again » button does: a new, empty booking of the same kind; just closes without it. */
  onAgain?: (() => void) | undefined;
  title: string;
  booking: { id: string; total_amount: Numeric } | null;
  children?: ReactNode;
  againLabel?: string;
  /** Off for a visitor's booking, which no profile lists. */
  profileLink?: boolean;
}) {
  return (
    <Dialog open={open} onClose={onClose} title={title}>
      {booking && (
        <div className="space-y-3">
          <div className="flex items-center gap-2 text-green-700">
            <CheckCircle2 className="h-6 w-6" aria-hidden="true" />
            <p className="font-semibold">Votre demande est enregistrée (statut : en attente).</p>
          </div>
          <dl className="grid grid-cols-2 gap-2 rounded-xl bg-slate-50 p-4 text-sm">
            <dt className="text-slate-600">Référence</dt>
            <dd className="font-mono font-semibold" data-testid="booking-reference">
              {bookingReference(booking.id)}
            </dd>
            <dt className="text-slate-600">Total</dt>
            <dd className="font-semibold" data-testid="booking-total">
              {formatPrice(booking.total_amount)}
            </dd>
          </dl>
          {children}
          <p className="text-sm text-slate-700">Notre équipe vous contactera dans les 24h pour confirmer.</p>
          <div className="flex flex-wrap justify-end gap-2 pt-2">
            <Button variant="outline" onClick={onAgain ?? onClose}>
              {againLabel}
            </Button>
            {profileLink && (
              <Link to={paths.profile} className={buttonClass('primary')}>
                Voir mes réservations
              </Link>
            )}
          </div>
        </div>
      )}
    </Dialog>
  );
}
