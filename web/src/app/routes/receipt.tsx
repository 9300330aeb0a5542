import { Link, Navigate, useParams } from 'react-router';
import { Printer } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { EmptyState, Spinner } from '@/components/ui/states';
import { paths } from '@/config/paths';
import { bookingReference, formatDate, formatDateTime, formatPrice } from '@/lib/format';
import { useSession } from '@/lib/session';
import { useCompany } from '@/lib/site-settings';
import { kindLabels, statusLabels, useMyBookings } from '@/features/profile/api/bookings';

/**
 * A booking's receipt / voucher, made to be printed (or saved as PDF by the browser's print
 * dialog): the company, the customer, what was booked, its status and amount.
 */
export default function ReceiptPage() {
  const { kind = '', id = '' } = useParams();
  const { user, profile, loading } = useSession();
  const bookings = useMyBookings(user?.id);
  const company = useCompany();
  const booking = bookings.data?.find((b) => b.kind === kind && b.id === id);
  usePageTitle(booking ? `Reçu ${bookingReference(booking.id)}` : 'Reçu');

  if (loading) return <Spinner />;
  if (!user) return <Navigate to={`${paths.login}?redirect=${encodeURIComponent(paths.receipt(kind, id))}`} replace />;
  if (bookings.isPending) return <Spinner label="Chargement du reçu…" />;
  if (!booking)
    return (
      <div className="mx-auto max-w-xl px-4 py-16">
        <EmptyState title="Reçu introuvable">
          Cette réservation n'est pas dans votre compte. <Link to={paths.profile} className="font-semibold text-blue-900 underline">Mon compte</Link>
        </EmptyState>
      </div>
    );
  const ref = bookingReference(booking.id);
  const settled = booking.status === 'completed' || booking.status === 'active';
  return (
    <div className="mx-auto max-w-3xl px-4 py-10 print:max-w-none print:p-0">
      <div className="mb-6 flex flex-wrap items-center justify-between gap-3 print:hidden">
        <Link to={paths.profile} className="text-sm font-semibold text-blue-900 underline">← Mon compte</Link>
        <Button onClick={() => window.print()}>
          <Printer className="h-4 w-4" aria-hidden="true" /> Imprimer ou enregistrer en PDF
        </Button>
      </div>
      <article className="rounded-2xl border border-slate-200 bg-white p-8 shadow-sm print:border-0 print:shadow-none" data-testid="receipt">
        <header className="flex flex-wrap items-start justify-between gap-4 border-b border-slate-200 pb-6">
          <div>
            <p className="text-xl font-extrabold text-blue-950">{company.name}</p>
            <p className="text-sm text-slate-700">{company.address}</p>
            <p className="text-sm text-slate-700">
              {company.phone} · {company.email}
            </p>
          </div>
          <div className="text-right">
            <h1 className="text-2xl font-extrabold text-blue-950">{settled ? 'Reçu' : 'Bon de réservation'}</h1>
            <p className="font-mono text-lg font-semibold" data-testid="receipt-reference">#{ref}</p>
            <p className="text-sm text-slate-600">Émis le {formatDate(new Date())}</p>
          </div>
        </header>
        <section className="grid gap-6 py-6 sm:grid-cols-2">
          <div>
            <h2 className="text-sm font-semibold uppercase tracking-wide text-slate-600">Client</h2>
            <p className="font-semibold text-blue-950">{profile?.full_name ?? user.email}</p>
            <p className="text-sm text-slate-700">{user.email}</p>
            {profile?.phone && <p className="text-sm text-slate-700">{profile.phone}</p>}
          </div>
          <div>
            <h2 className="text-sm font-semibold uppercase tracking-wide text-slate-600">Réservation</h2>
            <p className="text-sm text-slate-700">Faite le {formatDateTime(booking.createdAt)}</p>
            <p className="text-sm text-slate-700">
              Statut : <strong>{statusLabels[booking.status]}</strong>
            </p>
          </div>
        </section>
        <table className="w-full text-left text-sm">
          <thead className="border-y border-slate-200 text-slate-600">
            <tr>
              <th scope="col" className="py-2">Prestation</th>
              <th scope="col" className="py-2 text-right">Montant</th>
            </tr>
          </thead>
          <tbody>
            <tr className="border-b border-slate-100 align-top">
              <td className="py-3">
                <p className="font-semibold text-blue-950">
                  {kindLabels[booking.kind]} : {booking.title}
                </p>
                <p className="text-slate-700">{booking.detail}</p>
              </td>
              <td className="py-3 text-right font-semibold">{formatPrice(booking.total)}</td>
            </tr>
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" className="pt-4 text-right text-base">Total</th>
              <td className="pt-4 text-right text-xl font-extrabold text-blue-950" data-testid="receipt-total">{formatPrice(booking.total)}</td>
            </tr>
          </tfoot>
        </table>
        <p className="mt-8 text-xs text-slate-600">
          Montant calculé par notre système au moment de la réservation. Aucun paiement n'est encaissé en ligne : le règlement se fait auprès de notre équipe
          (espèces, mobile money ou virement). Pour toute question, citez la référence #{ref}.
        </p>
      </article>
    </div>
  );
}
