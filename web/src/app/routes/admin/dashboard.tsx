import { Link } from 'react-router';
import { CalendarCheck, Car, DollarSign, Users, UserPlus, CalendarPlus } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { buttonClass } from '@/components/ui/button';
import { ErrorState, Spinner, EmptyState } from '@/components/ui/states';
import { adminPaths } from '@/config/admin-paths';
import { bookingReference, formatDate, formatDateTime, formatPrice } from '@/lib/format';
import { useDashboard } from '@/features/admin/api/dashboard';
import { useLiveDashboard } from '@/features/admin/api/live';
import { AdminHeader, BookingStatusBadge, Panel, RefreshButton, StatTile } from '@/features/admin/components/admin-ui';
import { monthComparison, revenueComparison } from '@/features/admin/lib/stats';

export default function AdminDashboardPage() {
  usePageTitle('Tableau de bord administrateur');
  const q = useDashboard();
  // a new booking of any kind updates the figures without a reload (data-live: where the channel stands)
  const live = useLiveDashboard();

  return (
    <div data-live={live}>
      <AdminHeader title="Tableau de bord administrateur" subtitle="Vue d'ensemble de l'activité">
        <RefreshButton query={q} />
      </AdminHeader>
      {q.isPending ? (
        <Spinner label="Chargement…" />
      ) : q.isError ? (
        <div>
          <h2 className="mb-2 text-lg font-semibold text-red-800">Erreur de chargement</h2>
          <ErrorState message="Erreur lors du chargement des données" onRetry={() => q.refetch()} />
        </div>
      ) : (
        <Content data={q.data} />
      )}
    </div>
  );
}

function Content({ data }: { data: NonNullable<ReturnType<typeof useDashboard>['data']> }) {
  const { stats } = data;
  const activity = [
    ...data.recentBookings.slice(0, 3).map((b) => ({
      key: `b-${b.id}`,
      date: b.created_at,
      icon: CalendarPlus,
      text: `Nouvelle réservation #${bookingReference(b.id)} — ${b.vehicles?.name ?? 'véhicule'}`,
    })),
    ...data.recentUsers.slice(0, 2).map((u) => ({ key: `u-${u.id}`, date: u.created_at, icon: UserPlus, text: `Nouvel utilisateur : ${u.full_name || u.email || 'Nom non renseigné'}` })),
  ].sort((a, b) => b.date.localeCompare(a.date));

  return (
    <div className="space-y-6">
      <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <StatTile label="Utilisateurs" value={data.users} icon={Users} hint="Comptes enregistrés" testId="tile-users" />
        <StatTile label="Véhicules" value={data.vehicles} icon={Car} hint="Flotte totale" testId="tile-vehicles" />
        <StatTile
          label="Réservations actives"
          value={stats.active_bookings}
          icon={CalendarCheck}
          testId="tile-bookings"
          hint={
            <>
              <span data-testid="tile-bookings-total">{stats.total_bookings}</span> au total · {monthComparison(stats.month.bookings, stats.month.previous_bookings)}
            </>
          }
        />
        <StatTile label="Revenus du mois" value={formatPrice(stats.month.revenue)} icon={DollarSign} testId="tile-revenue" hint={revenueComparison(stats.month.revenue, stats.month.previous_revenue)} />
      </div>

      <div className="grid gap-6 xl:grid-cols-3">
        <Panel
          title="Réservations récentes"
          className="xl:col-span-2"
          actions={
            <Link to={adminPaths.bookings} className="text-sm font-semibold text-blue-900 hover:underline">
              Voir tout
            </Link>
          }
        >
          {data.recentBookings.length === 0 ? (
            <EmptyState title="Aucune réservation">Les réservations apparaîtront ici.</EmptyState>
          ) : (
            <ul className="divide-y divide-slate-100">
              {data.recentBookings.map((b) => (
                // three columns (what and who, amount, status) so amounts and badges line up row to row
                <li key={b.id} className="grid grid-cols-[minmax(0,1fr)_auto] items-center gap-x-3 gap-y-1 py-3 sm:grid-cols-[minmax(0,1fr)_8rem_7.5rem]" data-testid="recent-booking">
                  <div className="col-span-2 min-w-0 sm:col-span-1">
                    <p className="font-medium text-slate-900">
                      {b.vehicles?.name ?? 'Véhicule'} <span className="font-mono text-xs text-slate-600">#{bookingReference(b.id)}</span>
                    </p>
                    <p className="text-sm text-slate-600">
                      {(b.user_id && data.names[b.user_id]) || b.customer_name || 'Client'} · {formatDate(b.start_date)} → {formatDate(b.end_date)}
                    </p>
                  </div>
                  <span className="whitespace-nowrap font-semibold tabular-nums sm:text-right" data-testid="recent-amount">
                    {formatPrice(b.total_amount)}
                  </span>
                  <span className="justify-self-end sm:justify-self-start" data-testid="recent-status">
                    <BookingStatusBadge status={b.booking_status} />
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Panel>
        <Panel title="Activité récente">
          {activity.length === 0 ? (
            <p className="text-sm text-slate-600">Aucune activité récente.</p>
          ) : (
            <ul className="space-y-3">
              {activity.map(({ key, date, icon: Icon, text }) => (
                <li key={key} className="flex gap-3">
                  <Icon className="mt-0.5 h-5 w-5 shrink-0 text-blue-900" aria-hidden="true" />
                  <div>
                    <p className="text-sm text-slate-900">{text}</p>
                    <p className="text-xs text-slate-600">{formatDateTime(date)}</p>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </Panel>
      </div>

      <Panel title="Actions rapides">
        <div className="flex flex-wrap gap-3">
          <Link to={adminPaths.vehicles} className={buttonClass('outline')}>
            <Car className="h-4 w-4" aria-hidden="true" /> Gérer les véhicules
          </Link>
          <Link to={adminPaths.users} className={buttonClass('outline')}>
            <Users className="h-4 w-4" aria-hidden="true" /> Gérer les utilisateurs
          </Link>
          <Link to={adminPaths.bookings} className={buttonClass('outline')}>
            <CalendarCheck className="h-4 w-4" aria-hidden="true" /> Gérer les réservations
          </Link>
        </div>
      </Panel>
    </div>
  );
}
