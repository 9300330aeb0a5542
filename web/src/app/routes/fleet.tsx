import { Link, useSearchParams } from 'react-router';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { categoryLabels, isCategory } from '@/lib/labels';
import { fleetPath } from '@/config/paths';
import { cn } from '@/lib/cn';
import { VehicleGrid } from '@/features/vehicles/components/vehicle-grid';
import type { VehicleCategory } from '@/types/database';

export default function FleetPage() {
  const [params] = useSearchParams();
  const raw = params.get('category');
  const category = isCategory(raw) ? raw : undefined;
  usePageTitle(category ? `Flotte ${categoryLabels[category]}` : 'Notre flotte');
  const tabs: Array<VehicleCategory | undefined> = [undefined, 'economic', 'luxury', 'suv', 'utility'];
  return (
    <>
      <PageHero title={category ? `Notre flotte : ${categoryLabels[category]}` : 'Notre flotte'} subtitle="Des véhicules entretenus et assurés, disponibles à la journée, à la semaine ou au mois." />
      <Section>
        <nav aria-label="Catégories" className="mb-6 flex flex-wrap gap-2">
          {tabs.map((c) => (
            <Link
              key={c ?? 'all'}
              to={fleetPath(c)}
              aria-current={c === category ? 'page' : undefined}
              className={cn('rounded-full border px-4 py-1.5 text-sm font-medium', c === category ? 'border-blue-900 bg-blue-900 text-white' : 'border-slate-300 bg-white text-slate-800 hover:bg-slate-100')}
            >
              {c ? categoryLabels[c] : 'Tous'}
            </Link>
          ))}
        </nav>
        <h2 className="sr-only">Véhicules disponibles</h2>
        <VehicleGrid category={category} limit={null} />
      </Section>
    </>
  );
}
