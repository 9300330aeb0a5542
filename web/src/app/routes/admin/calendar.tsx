import { useMemo, useState, useSyncExternalStore } from 'react';
import { AlertTriangle, ChevronLeft, ChevronRight } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { ErrorState, Spinner } from '@/components/ui/states';
import { addDaysIso, bookingReference, formatDate, todayIso } from '@/lib/format';
import { cn } from '@/lib/cn';
import { AdminHeader, RefreshButton } from '@/features/admin/components/admin-ui';
import { useBookingDialogs } from '@/features/admin/components/booking-dialogs';
import { useAllBookings } from '@/features/admin/api/bookings';
import { useAdminVehicles } from '@/features/admin/api/vehicles';
import { layoutCalendar } from '@/features/admin/lib/calendar';

/** Three weeks on a wide screen; one week on a phone, where three would leave four days in view. */
const WIDE_DAYS = 21;
const NARROW_DAYS = 7;
const WIDE = '(min-width: 640px)';
const subscribeWide = (notify: () => void) => {
  const mq = window.matchMedia(WIDE);
  mq.addEventListener('change', notify);
  return () => mq.removeEventListener('change', notify);
};
const useWide = () => useSyncExternalStore(subscribeWide, () => window.matchMedia(WIDE).matches, () => true);
/** « lun. », « mar. », « mer. »: a single letter would say M for both mardi and mercredi. */
const weekday = new Intl.DateTimeFormat('fr-FR', { weekday: 'short', timeZone: 'UTC' });
const statusStyle: Record<string, string> = {
  pending: 'bg-amber-200 text-amber-950 border-amber-400',
  confirmed: 'bg-blue-200 text-blue-950 border-blue-500',
  active: 'bg-green-200 text-green-950 border-green-500',
};
const statusWord: Record<string, string> = { pending: 'en attente', confirmed: 'confirmée', active: 'en cours' };

/** The fleet's availability: vehicles x days, rentals as bars by status, clashes flagged. */
export default function AdminCalendarPage() {
  usePageTitle('Calendrier de la flotte');
  const [from, setFrom] = useState(todayIso());
  const DAYS = useWide() ? WIDE_DAYS : NARROW_DAYS;
  const bookings = useAllBookings();
  const vehicles = useAdminVehicles();
  const { view, dialogs } = useBookingDialogs();
  const fleet = useMemo(() => (vehicles.data ?? []).filter((v) => v.rental_status !== 'retired'), [vehicles.data]);
  const rows = useMemo(() => layoutCalendar(fleet.map((v) => v.id), bookings.data ?? [], from, DAYS), [fleet, bookings.data, from, DAYS]);
  const days = Array.from({ length: DAYS }, (_, i) => addDaysIso(from, i));
  const clashCount = new Set(rows.flatMap((r) => r.bars.filter((b) => b.clashes.length && b.booking.booking_status === 'pending').map((b) => b.booking.id))).size;
  const today = todayIso();

  return (
    <>
      <AdminHeader title="Calendrier de la flotte" subtitle={`Du ${formatDate(from)} au ${formatDate(addDaysIso(from, DAYS - 1))}`}>
        <Button variant="outline" onClick={() => setFrom(addDaysIso(from, -7))} aria-label="Semaine précédente">
          <ChevronLeft className="h-4 w-4" aria-hidden="true" />
        </Button>
        <Button variant="outline" onClick={() => setFrom(todayIso())}>Aujourd'hui</Button>
        <Button variant="outline" onClick={() => setFrom(addDaysIso(from, 7))} aria-label="Semaine suivante">
          <ChevronRight className="h-4 w-4" aria-hidden="true" />
        </Button>
        <RefreshButton query={bookings} />
      </AdminHeader>
      {clashCount > 0 && (
        <p role="status" className="mb-3 flex items-center gap-2 rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900" data-testid="clash-summary">
          <AlertTriangle className="h-4 w-4" aria-hidden="true" />
          {clashCount} demande(s) en attente chevauchent une location confirmée ou une autre demande : la confirmer serait refusé.
        </p>
      )}
      <p className="mb-3 flex flex-wrap gap-4 text-sm text-slate-700">
        {Object.entries(statusWord).map(([s, w]) => (
          <span key={s}>
            <span className={cn('mr-1 inline-block h-3 w-5 rounded border align-middle', statusStyle[s])} aria-hidden="true" />
            {w}
          </span>
        ))}
        <span>
          <span className="mr-1 inline-block h-3 w-5 rounded border-2 border-dashed border-red-600 align-middle" aria-hidden="true" />
          conflit
        </span>
      </p>
      {bookings.isPending || vehicles.isPending ? (
        <Spinner label="Chargement du calendrier…" />
      ) : bookings.isError || vehicles.isError ? (
        <ErrorState message={(bookings.error ?? vehicles.error)?.message ?? ''} onRetry={() => void Promise.all([bookings.refetch(), vehicles.refetch()])} />
      ) : (
        <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm" data-testid="fleet-calendar">
          <div className="[--cal-name:6rem] sm:min-w-[960px] sm:[--cal-name:13rem]" style={{ display: 'grid', gridTemplateColumns: `var(--cal-name) repeat(${DAYS}, minmax(2.25rem, 1fr))` }}>
            <div className="sticky left-0 z-10 border-b border-slate-200 bg-slate-50 px-3 py-2 text-xs font-semibold text-slate-700">Véhicule</div>
            {days.map((d) => (
              <div key={d} data-testid="calendar-day" className={cn('border-b border-l border-slate-200 py-1 text-center text-xs', d === today ? 'bg-amber-50 font-bold text-blue-950' : 'text-slate-600')}>
                {weekday.format(new Date(`${d}T00:00:00Z`))}
                <br />
                {Number(d.slice(8))}
              </div>
            ))}
            {rows.map((row, i) => {
              const v = fleet[i]!;
              return (
                <div key={row.vehicleId} className="contents" data-testid="calendar-row">
                  <div className="sticky left-0 z-10 border-b border-slate-200 bg-white px-2 py-2 text-sm sm:px-3" style={{ gridRow: `span 1` }}>
                    {/* the whole name, on two lines if need be (cut, « Toyota Land Cr… » said nothing) */}
                    <p className="text-xs font-medium leading-snug text-blue-950 [overflow-wrap:break-word] sm:text-sm" data-testid="calendar-vehicle">
                      {v.name}
                    </p>
                    <p className="text-xs text-slate-600">{v.license_plate ?? v.model}</p>
                  </div>
                  <div className="relative border-b border-slate-200" style={{ gridColumn: `2 / span ${DAYS}`, display: 'grid', gridTemplateColumns: `repeat(${DAYS}, minmax(2.25rem, 1fr))`, gridTemplateRows: `repeat(${row.lanes}, 1.75rem)`, rowGap: '0.25rem', padding: '0.4rem 0' }}>
                    {row.bars.map((bar) => {
                      const b = bar.booking;
                      const ref = bookingReference(b.id);
                      const clash = bar.clashes.length > 0;
                      const who = b.customer.full_name ?? b.customer.email ?? 'Client';
                      return (
                        <button
                          key={b.id}
                          type="button"
                          onClick={() => view(b)}
                          data-testid="calendar-bar"
                          data-status={b.booking_status}
                          data-clash={clash || undefined}
                          title={`#${ref} · ${who} · du ${formatDate(b.date)} au ${formatDate(b.end)}${clash ? ' · conflit' : ''}`}
                          aria-label={`Réservation #${ref} ${statusWord[b.booking_status]} de ${who}, du ${formatDate(b.date)} au ${formatDate(b.end)}${clash ? ', en conflit' : ''}`}
                          className={cn(
                            'mx-0.5 flex items-center gap-1 overflow-hidden whitespace-nowrap border px-1.5 text-left text-xs font-medium',
                            statusStyle[b.booking_status],
                            bar.cutStart ? 'rounded-l-none' : 'rounded-l-md',
                            bar.cutEnd ? 'rounded-r-none' : 'rounded-r-md',
                            clash && 'border-2 border-dashed border-red-600',
                          )}
                          style={{ gridColumn: `${bar.start + 1} / span ${Math.max(1, bar.span)}`, gridRow: bar.lane + 1 }}
                        >
                          {clash && <AlertTriangle className="h-3 w-3 shrink-0 text-red-700" aria-hidden="true" />}
                          {/* who first: a short bar showed only « #5EEDB001 … »; the reference when there is room */}
                          <span className="truncate">
                            {who}
                            {bar.span >= 5 && <span className="ml-1 font-mono opacity-75">#{ref}</span>}
                          </span>
                        </button>
                      );
                    })}
                  </div>
                </div>
              );
            })}
          </div>
        </div>
      )}
      {dialogs}
    </>
  );
}
