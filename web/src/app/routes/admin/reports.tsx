import { useState } from 'react';
import { DollarSign, CalendarCheck, ShoppingBasket, Users, Download } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { ErrorState, Spinner } from '@/components/ui/states';
import { addDaysIso, formatPrice, todayIso } from '@/lib/format';
import { cn } from '@/lib/cn';
import { useAnalytics } from '@/features/admin/api/analytics';
import { AdminHeader, FilterInput, Panel, RefreshButton, StatTile } from '@/features/admin/components/admin-ui';
import { MonthlyBars } from '@/features/admin/components/bar-chart';
import { categoryLabel, kindLabels } from '@/features/admin/lib/labels';
import { formatGrowth } from '@/features/admin/lib/stats';
import { downloadJson } from '@/features/admin/lib/download';
import type { BookingKind } from '@/features/admin/types';

const growthTone = (v: unknown) => (Number(v) > 0 ? 'text-green-800' : Number(v) < 0 ? 'text-red-700' : 'text-slate-600');

export default function AdminReportsPage() {
  usePageTitle('Rapports & Analyses');
  const [end, setEnd] = useState(todayIso());
  const [start, setStart] = useState(addDaysIso(todayIso(), -90));
  const [metric, setMetric] = useState<'revenue' | 'bookings'>('revenue');
  const q = useAnalytics(start, end);
  const d = q.data;
  const invalid = !start || !end || end < start;

  return (
    <>
      <AdminHeader title="Rapports & Analyses" subtitle="Calculés par la base de données sur la période choisie">
        <FilterInput label="Du" type="date" value={start} max={end} onChange={(e) => setStart(e.target.value)} />
        <FilterInput label="Au" type="date" value={end} min={start} onChange={(e) => setEnd(e.target.value)} />
        <RefreshButton query={q} disabled={invalid} className="self-end" />
        <Button variant="secondary" onClick={() => d && downloadJson(`rapport-${start}-au-${end}.json`, d)} disabled={!d} className="self-end">
          <Download className="h-4 w-4" aria-hidden="true" /> Exporter
        </Button>
      </AdminHeader>

      {invalid ? (
        <ErrorState message="La date de fin doit suivre la date de début." />
      ) : q.isPending ? (
        <Spinner label="Chargement des analyses…" />
      ) : q.isError || !d ? (
        <ErrorState message="Erreur lors du chargement des données analytiques" onRetry={() => q.refetch()} />
      ) : (
        <div className="space-y-6">
          <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
            <StatTile label="Revenus" value={formatPrice(d.revenue)} icon={DollarSign} testId="rp-revenue" hint={<span className={growthTone(d.revenue_growth)}>{formatGrowth(d.revenue_growth)} vs période précédente</span>} />
            <StatTile label="Réservations" value={d.bookings} icon={CalendarCheck} testId="rp-bookings" hint={<span className={growthTone(d.bookings_growth)}>{formatGrowth(d.bookings_growth)} vs période précédente</span>} />
            <StatTile label="Panier moyen" value={formatPrice(d.average_basket)} icon={ShoppingBasket} testId="rp-basket" />
            <StatTile label="Clients actifs" value={d.customers.active} icon={Users} testId="rp-active" hint={`Taux de fidélisation : ${Number(d.customers.retention_rate).toLocaleString('fr-FR')} %`} />
          </div>

          <Panel
            title="Évolution mensuelle"
            actions={
              <div role="group" aria-label="Mesure affichée" className="inline-flex rounded-lg border border-slate-300 p-0.5">
                {(['revenue', 'bookings'] as const).map((m) => (
                  <button key={m} type="button" aria-pressed={metric === m} onClick={() => setMetric(m)} className={cn('rounded-md px-3 py-1 text-sm font-medium', metric === m ? 'bg-blue-900 text-white' : 'text-slate-800 hover:bg-slate-100')}>
                    {m === 'revenue' ? 'Revenus' : 'Réservations'}
                  </button>
                ))}
              </div>
            }
          >
            <MonthlyBars data={d.monthly} metric={metric} />
          </Panel>

          <div className="grid gap-6 xl:grid-cols-2">
            <Panel title="Performance par catégorie">
              {d.categories.length === 0 ? (
                <p className="text-sm text-slate-600">Aucune location sur la période.</p>
              ) : (
                <table className="min-w-full text-left text-sm">
                  <thead className="text-xs uppercase text-slate-600">
                    <tr>
                      <th scope="col" className="py-2">Catégorie</th>
                      <th scope="col" className="py-2 text-right">Réservations</th>
                      <th scope="col" className="py-2 text-right">Revenus</th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-slate-100">
                    {d.categories.map((c) => (
                      <tr key={c.category ?? 'none'}>
                        <td className="py-2">{categoryLabel(c.category)}</td>
                        <td className="py-2 text-right">{c.bookings}</td>
                        <td className="py-2 text-right">{formatPrice(c.revenue)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              <h3 className="mb-2 mt-5 text-sm font-semibold text-blue-950">Par type de réservation</h3>
              <ul className="grid gap-2 sm:grid-cols-2">
                {(Object.keys(kindLabels) as BookingKind[]).map((k) => (
                  <li key={k} className="rounded-lg bg-slate-50 px-3 py-2 text-sm">
                    <p className="font-medium">{kindLabels[k]}</p>
                    <p className="text-slate-700">
                      {d.by_kind[k]?.bookings ?? 0} · {formatPrice(d.by_kind[k]?.revenue ?? 0)}
                    </p>
                  </li>
                ))}
              </ul>
            </Panel>
            <Panel title="Véhicules les plus demandés">
              {d.top_vehicles.length === 0 ? (
                <p className="text-sm text-slate-600">Aucune location sur la période.</p>
              ) : (
                <ol className="space-y-3">
                  {d.top_vehicles.slice(0, 5).map((v, i) => (
                    <li key={v.id} className="flex items-center justify-between gap-3">
                      <div>
                        <p className="font-medium">
                          {i + 1}. {v.name}
                        </p>
                        <p className="text-xs text-slate-600">
                          {categoryLabel(v.category)} · {v.bookings} réservation(s) · utilisation {Number(v.utilisation).toLocaleString('fr-FR')} %
                        </p>
                      </div>
                      <span className="font-semibold">{formatPrice(v.revenue)}</span>
                    </li>
                  ))}
                </ol>
              )}
            </Panel>
          </div>

          <Panel title="Clients">
            <dl className="grid gap-4 sm:grid-cols-4">
              {[
                ['Clients', d.customers.total],
                ['Actifs (30 jours)', d.customers.active],
                ['Clients fidèles', d.customers.repeat],
                ['Réservations par client', Number(d.customers.bookings_per_customer).toLocaleString('fr-FR')],
              ].map(([k, v]) => (
                <div key={String(k)} className="rounded-lg bg-slate-50 px-3 py-2">
                  <dt className="text-sm text-slate-600">{k}</dt>
                  <dd className="text-xl font-bold">{v}</dd>
                </div>
              ))}
            </dl>
          </Panel>
        </div>
      )}
    </>
  );
}
