import { useMemo, useState } from 'react';
import { notify } from '@/lib/notify';
import { errorCode } from '@/lib/errors';
import { CalendarCheck, Clock, CheckCircle2, PlayCircle, DollarSign, ShoppingBasket, Download, Eye, Pencil } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { bookingReference, formatDate, formatPrice, todayIso } from '@/lib/format';
import type { BookingStatus } from '@/types/database';
import { useAllBookings, useUpdateBookingStatus } from '@/features/admin/api/bookings';
import { useLiveAdminBookings } from '@/features/admin/api/live';
import { AdminHeader, AdminTable, EmailText, FilterInput, FilterSelect, RefreshButton, RowAction, StatTile } from '@/features/admin/components/admin-ui';
import { useBookingDialogs } from '@/features/admin/components/booking-dialogs';
import { bookingTiles, emptyBookingFilters, filterBookings, hasBookingFilters, type BookingFilters } from '@/features/admin/lib/filters';
import { bookingStatusChoices, bookingStatuses, bookingStatusLabels, kindLabels } from '@/features/admin/lib/labels';
import { downloadJson } from '@/features/admin/lib/download';
import type { AdminBooking } from '@/features/admin/types';

export default function AdminBookingsPage() {
  usePageTitle('Gestion des réservations');
  const q = useAllBookings();
  // a new booking of any kind appears without a reload (data-live: where the channel stands)
  const live = useLiveAdminBookings();
  const setStatus = useUpdateBookingStatus();
  const [filters, setFilters] = useState<BookingFilters>(emptyBookingFilters);
  const { view, edit, dialogs } = useBookingDialogs();
  const list = useMemo(() => filterBookings(q.data ?? [], filters), [q.data, filters]);
  const tiles = useMemo(() => bookingTiles(q.data ?? []), [q.data]);
  const set = <K extends keyof BookingFilters>(k: K) => (v: BookingFilters[K]) => setFilters((f) => ({ ...f, [k]: v }));

  // conditional: only if the booking still has the status shown (« modifiée entre-temps » else)
  const changeStatus = (b: AdminBooking, status: BookingStatus) =>
    setStatus.mutate(
      { booking: b, status },
      {
        onSuccess: () => notify.success(`Statut mis à jour : ${bookingStatusLabels[status]}`),
        onError: (e) => notify.error(errorCode(e) === 'booking_changed' ? e.message : `Erreur lors de la mise à jour du statut : ${e.message}`),
      },
    );

  return (
    <div data-live={live}>
      <AdminHeader title="Gestion des réservations" subtitle="Locations, services aéroport, diagnostics et services premium">
        <RefreshButton query={q} />
        <Button variant="secondary" onClick={() => downloadJson(`reservations-${todayIso()}.json`, list.map(({ raw, ...b }) => ({ ...b, ...raw })))} disabled={!q.data}>
          <Download className="h-4 w-4" aria-hidden="true" /> Exporter
        </Button>
      </AdminHeader>

      {q.isPending ? (
        <Spinner label="Chargement des réservations…" />
      ) : q.isError ? (
        <ErrorState message="Erreur lors du chargement des réservations" onRetry={() => q.refetch()} />
      ) : (
        <div className="space-y-6">
          {/* six tiles in a row only where each has room for an amount (« 12 345,00 $ ») */}
          <div className="grid gap-4 sm:grid-cols-3 2xl:grid-cols-6">
            <StatTile label="Total" value={tiles.total} icon={CalendarCheck} testId="bk-total" />
            <StatTile label="En attente" value={tiles.pending} icon={Clock} testId="bk-pending" />
            <StatTile label="Confirmées" value={tiles.confirmed} icon={CheckCircle2} testId="bk-confirmed" />
            <StatTile label="En cours" value={tiles.active} icon={PlayCircle} testId="bk-active" />
            <StatTile label="Revenus" value={formatPrice(tiles.revenue)} icon={DollarSign} testId="bk-revenue" hint="Hors annulations" />
            <StatTile label="Panier moyen" value={formatPrice(tiles.average)} icon={ShoppingBasket} testId="bk-average" />
          </div>

          {/* fields wrap rather than shrink: a select keeps room for its longest choice, a date for dd/mm/yyyy */}
          <section aria-label="Filtres" className="flex flex-wrap items-end gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm">
            <FilterInput label="Rechercher" type="search" placeholder="Client, email, référence, véhicule, vol…" value={filters.search} onChange={(e) => set('search')(e.target.value)} className="min-w-[min(100%,16rem)] flex-[2_1_16rem]" />
            <FilterSelect label="Type" className="flex-[1_1_12rem]" value={filters.kind} onChange={(v) => set('kind')(v as BookingFilters['kind'])}>
              <option value="all">Tous les types</option>
              {Object.entries(kindLabels).map(([k, l]) => (
                <option key={k} value={k}>
                  {l}
                </option>
              ))}
            </FilterSelect>
            <FilterSelect label="Statut" className="flex-[1_1_11rem]" value={filters.status} onChange={set('status')}>
              <option value="all">Tous les statuts</option>
              {bookingStatuses.map((s) => (
                <option key={s} value={s}>
                  {bookingStatusLabels[s]}
                </option>
              ))}
            </FilterSelect>
            <FilterSelect label="Trier par" className="flex-[1_1_12rem]" value={filters.sort} onChange={(v) => set('sort')(v as BookingFilters['sort'])}>
              <option value="created_at">Date de création</option>
              <option value="start_date">Date de début</option>
              <option value="total_amount">Montant</option>
              <option value="user_name">Client</option>
            </FilterSelect>
            <div className="grid flex-[2_1_20rem] grid-cols-2 gap-2">
              <FilterInput label="Du" type="date" value={filters.from} onChange={(e) => set('from')(e.target.value)} />
              <FilterInput label="Au" type="date" value={filters.to} onChange={(e) => set('to')(e.target.value)} />
            </div>
          </section>

          <p className="text-sm text-slate-700" role="status" data-testid="bookings-count">
            {list.length} réservation(s) trouvée(s)
          </p>

          {list.length === 0 ? (
            <EmptyState title="Aucune réservation trouvée">
              {hasBookingFilters(filters) ? 'Aucune réservation ne correspond à vos critères.' : 'Les réservations apparaîtront ici.'}
            </EmptyState>
          ) : (
            <AdminTable
              columns={[
                { label: 'Réservation' },
                { label: 'Client' },
                { label: 'Véhicule / Service' },
                { label: 'Période' },
                { label: 'Statut' },
                { label: 'Montant', right: true },
                { label: 'Actions', right: true },
              ]}
            >
              {list.map((b) => {
                const ref = bookingReference(b.id);
                return (
                  <tr key={`${b.kind}-${b.id}`} data-testid="booking-row" data-ref={ref}>
                    <td className="px-4 py-3">
                      <p className="font-mono font-semibold">#{ref}</p>
                      <p className="text-xs text-slate-600">{kindLabels[b.kind]}</p>
                    </td>
                    <td className="max-w-[14rem] px-4 py-3">
                      <p className="font-medium">{b.customer.full_name || 'Nom non renseigné'}</p>
                      <EmailText email={b.customer.email} />
                    </td>
                    <td className="max-w-[14rem] px-4 py-3">
                      <p className="font-medium">{b.subject}</p>
                      <p className="text-xs text-slate-600">{b.detail}</p>
                    </td>
                    <td className="whitespace-nowrap px-4 py-3">
                      {formatDate(b.date)}
                      {b.end && <span className="block text-xs text-slate-600">→ {formatDate(b.end)}</span>}
                    </td>
                    <td className="px-4 py-3">
                      <select
                        aria-label={`Statut de la réservation #${ref}`}
                        value={b.booking_status in bookingStatusLabels ? b.booking_status : 'pending'}
                        onChange={(e) => changeStatus(b, e.target.value as BookingStatus)}
                        className="rounded-lg border border-slate-300 bg-white px-2 py-1.5 text-sm focus:border-blue-800 focus:outline-none focus:ring-3 focus:ring-amber-400/60"
                      >
                        {bookingStatusChoices(b.booking_status in bookingStatusLabels ? b.booking_status : 'pending').map((s) => (
                          <option key={s} value={s}>
                            {bookingStatusLabels[s]}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td className="whitespace-nowrap px-4 py-3 text-right font-semibold">{formatPrice(b.total_amount)}</td>
                    <td className="whitespace-nowrap px-4 py-3 text-right">
                      <RowAction label={`Voir les détails de #${ref}`} icon={Eye} onClick={() => view(b)} />
                      <RowAction label={`Modifier #${ref}`} icon={Pencil} onClick={() => edit(b)} />
                    </td>
                  </tr>
                );
              })}
            </AdminTable>
          )}
        </div>
      )}
      {dialogs}
    </div>
  );
}
