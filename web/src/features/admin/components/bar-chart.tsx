/** Monthly bars in plain CSS (no chart library): the largest value is 200 px high. */
import { format, parseISO } from 'date-fns';
import { fr } from 'date-fns/locale';
import { formatPrice } from '@/lib/format';
import { barHeight } from '../lib/stats';

export function MonthlyBars({ data, metric }: { data: { month: string; bookings: number; revenue: number | string }[]; metric: 'revenue' | 'bookings' }) {
  const values = data.map((d) => Number(metric === 'revenue' ? d.revenue : d.bookings));
  const largest = Math.max(0, ...values);
  if (data.length === 0) return <p className="text-sm text-slate-600">Aucune donnée sur la période.</p>;
  return (
    <figure>
      <div className="flex h-[232px] items-end gap-2 overflow-x-auto border-b border-slate-300 pb-1" role="list" aria-label={metric === 'revenue' ? 'Revenus par mois' : 'Réservations par mois'}>
        {data.map((d, i) => {
          const label = format(parseISO(`${d.month}-01`), 'MMM yyyy', { locale: fr });
          const shown = metric === 'revenue' ? formatPrice(values[i]) : String(values[i]);
          return (
            <div key={d.month} role="listitem" className="flex min-w-12 flex-1 flex-col items-center justify-end gap-1" aria-label={`${label} : ${shown}`}>
              <span className="text-xs font-semibold text-slate-800" aria-hidden="true">{shown}</span>
              <div className="w-full max-w-14 rounded-t bg-blue-900" style={{ height: `${barHeight(values[i], largest)}px` }} aria-hidden="true" />
            </div>
          );
        })}
      </div>
      <div className="mt-1 flex gap-2" aria-hidden="true">
        {data.map((d) => (
          <span key={d.month} className="min-w-12 flex-1 text-center text-xs text-slate-600">
            {format(parseISO(`${d.month}-01`), 'MMM yy', { locale: fr })}
          </span>
        ))}
      </div>
    </figure>
  );
}
