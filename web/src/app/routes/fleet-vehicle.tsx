import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { CalendarCheck, ChevronRight, MessageCircle } from 'lucide-react';
import { Section, usePageTitle } from '@/components/ui/page';
import { buttonClass } from '@/components/ui/button';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { VehicleImage } from '@/components/vehicle/vehicle-image';
import { paths } from '@/config/paths';
import { addDaysIso, formatDate, formatPercent, formatPrice, frenchTypography, todayIso } from '@/lib/format';
import { categoryLabels } from '@/lib/labels';
import { cn } from '@/lib/cn';
import { useCompany, whatsappUrl } from '@/lib/site-settings';
import { AVAILABILITY_DAYS, useTakenDates, useVehicle } from '@/features/vehicles/api/vehicle';
import { dayStates, monthGrid, nextFreeStart, type DayState } from '@/features/vehicles/lib/availability';
import type { Vehicle } from '@/types/database';

interface Photo {
  url: string;
  title?: string;
}
interface Season {
  name?: string;
  start_date?: string;
  end_date?: string;
  rate_multiplier?: number;
}

/** The photos of a vehicle, the primary one first. */
function photosOf(v: Vehicle): Photo[] {
  const list = (Array.isArray(v.images) ? v.images : [])
    .filter((x): x is Photo & { is_primary?: boolean; order?: number } => !!x && typeof x === 'object' && typeof (x as Photo).url === 'string')
    .sort((a, b) => Number(b.is_primary ?? false) - Number(a.is_primary ?? false) || (a.order ?? 0) - (b.order ?? 0));
  if (list.length === 0 && v.primary_image) return [{ url: v.primary_image }];
  return list;
}

const stateStyle: Record<DayState, string> = {
  free: 'bg-green-50 text-green-900',
  held: 'bg-amber-100 text-amber-900',
  booked: 'bg-red-100 text-red-900 line-through',
};
const stateLabel: Record<DayState, string> = { free: 'libre', held: 'demande en attente', booked: 'réservé' };

/** /fleet/:id — a vehicle's page: photos, specifications, prices, the next free dates, Réserver. */
export default function VehiclePage() {
  const { id = '' } = useParams();
  const vehicle = useVehicle(id);
  const v = vehicle.data;
  usePageTitle(v ? `${v.name} ${v.year}` : 'Véhicule');
  // the page's height is kept while it loads: nothing below moves when the vehicle comes
  if (vehicle.isPending)
    return (
      <div className="min-h-screen">
        <Spinner label="Chargement du véhicule…" />
      </div>
    );
  if (vehicle.isError) return <ErrorState message={vehicle.error.message} onRetry={() => void vehicle.refetch()} />;
  if (!v)
    return (
      <Section>
        <EmptyState title="Véhicule introuvable">
          Ce véhicule n'existe pas ou n'est plus proposé. <Link to={paths.fleet} className="font-semibold text-blue-900 underline">Voir notre flotte</Link>
        </EmptyState>
      </Section>
    );
  return <VehicleDetails vehicle={v} />;
}

function VehicleDetails({ vehicle: v }: { vehicle: Vehicle }) {
  const photos = photosOf(v);
  const [shown, setShown] = useState(0);
  const company = useCompany();
  const taken = useTakenDates(v.id);
  const today = todayIso();
  const free = useMemo(() => (taken.data ? nextFreeStart(taken.data, today, AVAILABILITY_DAYS) : null), [taken.data, today]);
  const start = free ?? today;
  const reserve = `${paths.booking}?vehicle=${v.id}&start=${start}&end=${addDaysIso(start, 1)}`;
  const s = v.specifications ?? {};
  const pricing = v.pricing ?? {};
  const seasons = ((pricing as { seasonal_rates?: Season[] }).seasonal_rates ?? []).filter((x) => x && typeof x.rate_multiplier === 'number');
  const weekly = Number(pricing.weekly_discount ?? 10);
  const monthly = Number(pricing.monthly_discount ?? 20);
  const rate = Number(pricing.daily_rate ?? v.daily_rate);
  const available = v.rental_status === 'available';

  return (
    <Section>
      <nav aria-label="Fil d'Ariane" className="mb-4 flex items-center gap-1 text-sm text-slate-600">
        <Link to={paths.fleet} className="hover:underline">Notre flotte</Link>
        <ChevronRight className="h-4 w-4" aria-hidden="true" />
        <span aria-current="page">{v.name}</span>
      </nav>
      <div className="grid gap-8 lg:grid-cols-5">
        <div className="lg:col-span-3">
          <VehicleImage key={photos[shown]?.url ?? 'none'} path={photos[shown]?.url ?? null} alt={`${v.name} (${v.make} ${v.model}), photo ${shown + 1}`} className="aspect-[5/3] w-full rounded-2xl" eager size={[1200, 720]} />
          {photos.length > 1 && (
            <ul className="mt-3 grid grid-cols-4 gap-2" aria-label="Photos">
              {photos.map((p, i) => (
                <li key={p.url}>
                  <button type="button" onClick={() => setShown(i)} aria-label={`Voir la photo ${i + 1}`} aria-pressed={i === shown} className={cn('block w-full overflow-hidden rounded-lg border-2', i === shown ? 'border-blue-900' : 'border-transparent')}>
                    <VehicleImage path={p.url} alt="" className="aspect-[5/3] w-full" size={[240, 144]} />
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div className="space-y-4 lg:col-span-2">
          <div>
            <span className="rounded-full bg-blue-50 px-2.5 py-1 text-xs font-semibold text-blue-900">{categoryLabels[v.category]}</span>
            <h1 className="mt-2 text-3xl font-extrabold text-blue-950">{v.name}</h1>
            <p className="text-slate-700">
              {v.make} {v.model} · {v.year}
              {v.color ? ` · ${v.color}` : ''}
            </p>
          </div>
          <p>
            <span className="text-3xl font-extrabold text-blue-950" data-testid="vehicle-rate">{formatPrice(rate)}</span>
            <span className="text-slate-600"> / jour</span>
          </p>
          {v.description && <p className="text-slate-800">{v.description}</p>}
          <p className="flex items-center gap-2 font-semibold text-blue-950" data-testid="next-free">
            <CalendarCheck className="h-5 w-5" aria-hidden="true" />
            {!available
              ? 'Ce véhicule est momentanément indisponible.'
              : taken.isPending
                ? 'Recherche des prochaines dates libres…'
                : free === today
                  ? "Disponible dès aujourd'hui"
                  : free
                    ? `Prochaines dates libres : à partir du ${formatDate(free)}`
                    : `Complet pour les ${AVAILABILITY_DAYS} prochains jours`}
          </p>
          <div className="flex flex-wrap gap-3">
            {available && (
              <Link to={reserve} className={buttonClass('primary')} aria-label={`Réserver ${v.name}`}>
                Réserver
              </Link>
            )}
            <a href={whatsappUrl(company.phone, `Bonjour, je suis intéressé(e) par le véhicule ${v.name} (${v.year}).`)} target="_blank" rel="noreferrer" className={buttonClass('outline')}>
              <MessageCircle className="h-4 w-4" aria-hidden="true" /> WhatsApp
            </a>
          </div>
        </div>
      </div>

      <div className="mt-10 grid gap-8 lg:grid-cols-2">
        <section aria-labelledby="specs">
          <h2 id="specs" className="mb-3 text-xl font-bold text-blue-950">Caractéristiques</h2>
          <dl className="grid grid-cols-2 gap-x-4 gap-y-2 rounded-xl border border-slate-200 bg-white p-4 text-sm">
            <dt className="text-slate-600">Places</dt>
            <dd className="font-medium">{s.seats ?? 5}</dd>
            <dt className="text-slate-600">Portes</dt>
            <dd className="font-medium">{s.doors ?? '—'}</dd>
            <dt className="text-slate-600">Boîte de vitesses</dt>
            <dd className="font-medium">{s.transmission ?? 'Manuelle'}</dd>
            <dt className="text-slate-600">Carburant</dt>
            <dd className="font-medium">{s.fuel_type ?? 'Essence'}</dd>
            <dt className="text-slate-600">Moteur</dt>
            <dd className="font-medium">{s.engine_type || '—'}</dd>
            <dt className="text-slate-600">Kilométrage</dt>
            <dd className="font-medium">{typeof s.mileage === 'number' ? `${new Intl.NumberFormat('fr-FR').format(s.mileage)} km` : '—'}</dd>
            <dt className="text-slate-600">Lieu</dt>
            <dd className="font-medium">{v.location ?? '—'}</dd>
          </dl>
          {v.features.length > 0 && (
            <>
              <h3 className="mt-4 mb-2 font-semibold text-blue-950">Équipements</h3>
              <ul className="flex flex-wrap gap-1.5">
                {v.features.map((f) => (
                  <li key={f} className="rounded-md bg-slate-100 px-2 py-0.5 text-sm text-slate-700">{f}</li>
                ))}
              </ul>
            </>
          )}
        </section>
        <section aria-labelledby="prices">
          <h2 id="prices" className="mb-3 text-xl font-bold text-blue-950">Tarifs</h2>
          <ul className="space-y-2 rounded-xl border border-slate-200 bg-white p-4 text-sm" data-testid="price-rules">
            <li>{formatPrice(rate)} par jour</li>
            {weekly > 0 && <li>{frenchTypography('À partir de 7 jours :')} {formatPercent(-weekly)} ({formatPrice(rate * (1 - weekly / 100))} par jour)</li>}
            {monthly > 0 && <li>{frenchTypography('À partir de 30 jours :')} {formatPercent(-monthly)} ({formatPrice(rate * (1 - monthly / 100))} par jour)</li>}
            {Number(pricing.security_deposit ?? 0) > 0 && <li>Caution : {formatPrice(pricing.security_deposit)}</li>}
            {seasons.map((x, i) => (
              <li key={i}>
                {x.name || 'Saison'}
                {x.start_date && x.end_date ? ` (du ${formatDate(x.start_date)} au ${formatDate(x.end_date)})` : ''} : {formatPrice(rate * Number(x.rate_multiplier))} par jour
              </li>
            ))}
          </ul>
        </section>
      </div>

      <section aria-labelledby="availability" className="mt-10">
        <h2 id="availability" className="mb-3 text-xl font-bold text-blue-950">Disponibilités</h2>
        {taken.isError ? (
          <ErrorState message={taken.error.message} onRetry={() => void taken.refetch()} />
        ) : taken.isPending ? (
          <div className="min-h-[18rem]">
            <Spinner label="Chargement des disponibilités…" />
          </div>
        ) : (
          <AvailabilityMonths states={dayStates(taken.data, today, AVAILABILITY_DAYS)} today={today} />
        )}
      </section>
    </Section>
  );
}

/** The next months as calendars, each day free, held by a pending request, or booked. */
function AvailabilityMonths({ states, today }: { states: { date: string; state: DayState }[]; today: string }) {
  const byDate = new Map(states.map((d) => [d.date, d.state]));
  const months = [...new Set(states.map((d) => `${d.date.slice(0, 7)}-01`))].slice(0, 3);
  return (
    <>
      <div className="grid gap-6 md:grid-cols-3">
        {months.map((m) => (
          <table key={m} className="w-full table-fixed border-separate border-spacing-1 text-center text-sm" data-testid="availability-month">
            <caption className="mb-1 text-left font-semibold capitalize text-blue-950">{new Intl.DateTimeFormat('fr-FR', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${m}T00:00:00Z`))}</caption>
            <thead>
              <tr>
                {['lu', 'ma', 'me', 'je', 've', 'sa', 'di'].map((d) => (
                  <th key={d} scope="col" className="text-xs font-medium text-slate-600">{d}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {monthGrid(m).map((week, i) => (
                <tr key={i}>
                  {week.map((date, j) => {
                    const state = date ? byDate.get(date) : undefined;
                    return (
                      <td key={j} className={cn('rounded py-1', state ? stateStyle[state] : 'text-slate-500')} title={date && state ? `${formatDate(date)} : ${stateLabel[state]}` : undefined} data-state={state}>
                        {date ? Number(date.slice(8)) : ''}
                        {date && state && <span className="sr-only"> {stateLabel[state]}</span>}
                        {date === today && <span className="sr-only"> (aujourd'hui)</span>}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      </div>
      <p className="mt-3 flex flex-wrap gap-4 text-sm text-slate-700">
        <span><span className="mr-1 inline-block h-3 w-3 rounded bg-green-100" aria-hidden="true" />Libre</span>
        <span><span className="mr-1 inline-block h-3 w-3 rounded bg-amber-100" aria-hidden="true" />Demande en attente</span>
        <span><span className="mr-1 inline-block h-3 w-3 rounded bg-red-100" aria-hidden="true" />Réservé</span>
      </p>
    </>
  );
}
