import type { Vehicle, VehicleCategory } from '@/types/database';
import { categoryLabels } from '@/lib/labels';
import { EmptyState, ErrorState } from '@/components/ui/states';
import { useAvailableVehicles } from '../api/vehicles';
import { VehicleCard } from './vehicle-card';

export function VehicleGrid({
  category,
  limit,
  onReserve,
}: {
  category?: VehicleCategory | undefined;
  limit?: number | null;
  /** Passed to each card: Réserver calls it instead of going to the public booking. */
  onReserve?: ((vehicle: Vehicle) => void) | undefined;
}) {
  const q = useAvailableVehicles({ category, limit: limit === undefined ? 6 : limit });
  if (q.isPending) return <GridPlaceholder count={limit === null || limit === undefined ? 6 : Math.min(limit, 6)} />;
  if (q.isError) return <ErrorState message={q.error.message} onRetry={() => void q.refetch()} />;
  if (q.data.length === 0)
    return (
      <EmptyState
        title={category ? `Aucun véhicule ${categoryLabels[category]} disponible pour le moment.` : 'Aucun véhicule disponible pour le moment.'}
      />
    );
  return (
    <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
      {q.data.map((v, i) => (
        <VehicleCard key={v.id} vehicle={v} onReserve={onReserve} eager={i < 3} />
      ))}
    </div>
  );
}

/** Cards' outlines while the list loads, so the page does not jump when it arrives. */
function GridPlaceholder({ count }: { count: number }) {
  return (
    <div role="status" className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
      <span className="sr-only">Chargement des véhicules…</span>
      {Array.from({ length: count }, (_, i) => (
        <div key={i} aria-hidden="true" className="flex animate-pulse flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white">
          <div className="aspect-[5/3] w-full bg-slate-200" />
          <div className="flex flex-col gap-3 p-4">
            <div className="h-5 w-2/3 rounded bg-slate-200" />
            <div className="h-4 w-1/2 rounded bg-slate-100" />
            <div className="h-16 rounded bg-slate-100" />
            <div className="h-10 rounded bg-slate-200" />
          </div>
        </div>
      ))}
    </div>
  );
}
