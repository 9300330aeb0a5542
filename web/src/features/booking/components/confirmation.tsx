import { Link } from 'react-router';
import { CheckCircle2 } from 'lucide-react';
import { Button, buttonClass } from '@/components/ui/button';
import { bookingReference, formatDate, formatDays, formatPrice } from '@/lib/format';
import { paths } from '@/config/paths';
import type { BookVehicleResult } from '@/types/database';

export function Confirmation({
  result,
  vehicleName,
  startDate,
  endDate,
  email,
  signedIn,
  onNewSearch,
}: {
  result: BookVehicleResult;
  vehicleName: string;
  startDate: string;
  endDate: string;
  email: string;
  signedIn: boolean;
  onNewSearch: () => void;
}) {
  return (
    <section className="mx-auto max-w-2xl rounded-2xl border border-green-200 bg-white p-6 text-center shadow-sm sm:p-8" aria-labelledby="confirm-title">
      <CheckCircle2 className="mx-auto h-14 w-14 text-green-700" aria-hidden="true" />
      <h2 id="confirm-title" className="mt-3 text-2xl font-extrabold text-blue-950">
        Réservation confirmée !
      </h2>
      <p className="mt-2 text-slate-700">Votre demande est enregistrée avec le statut « en attente ».</p>
      <dl className="mx-auto mt-6 grid max-w-md grid-cols-2 gap-y-2 rounded-xl bg-slate-50 p-4 text-left text-sm">
        <dt className="text-slate-600">Référence</dt>
        <dd className="font-mono font-bold" data-testid="booking-reference">
          {bookingReference(result.id)}
        </dd>
        <dt className="text-slate-600">Véhicule</dt>
        <dd className="font-semibold">{vehicleName}</dd>
        <dt className="text-slate-600">Période</dt>
        <dd>
          du {formatDate(startDate)} au {formatDate(endDate)}
        </dd>
        <dt className="text-slate-600">Durée</dt>
        <dd>{formatDays(result.days)}</dd>
        {Number(result.discount_percent) > 0 && (
          <>
            <dt className="text-slate-600">Remise</dt>
            <dd>-{Number(result.discount_percent)}%</dd>
          </>
        )}
        <dt className="font-bold text-blue-950">Total</dt>
        <dd className="text-lg font-extrabold text-blue-950" data-testid="booking-total">
          {formatPrice(result.total_amount)}
        </dd>
      </dl>
      <p className="mt-6 text-sm text-slate-700">
        Un e-mail de confirmation sera envoyé à <strong>{email}</strong> dans les 15 minutes, et notre équipe vous appellera dans les 24h.
      </p>
      <div className="mt-6 flex flex-wrap justify-center gap-3">
        <Button variant="outline" onClick={onNewSearch}>
          Nouvelle recherche
        </Button>
        <Link to={signedIn ? paths.profile : `${paths.login}?redirect=${encodeURIComponent(paths.profile)}`} className={buttonClass('primary')}>
          Voir mes réservations
        </Link>
      </div>
      {!signedIn && <p className="mt-3 text-xs text-slate-600">Réservation faite sans compte : conservez votre référence pour toute question.</p>}
    </section>
  );
}
