import type { VehicleCategory } from '@/types/database';
import { categoryLabels } from '@/lib/labels';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { useAvailableVehicles } from '../api/vehicles';
import { VehicleCard } from './vehicle-card';

export function VehicleGrid({ category, limit }: { category?: VehicleCategory | undefined; limit?: number | null }) {
  const q = useAvailableVehicles({ category, limit: limit === undefined ? 6 : limit });
  if (q.isPending) return <Spinner label="Chargement des véhicules…" />;
  if (q.isError) return <ErrorState message={q.error.message} onRetry={() => void q.refetch()} />;
  if (q.data.length === 0)
    return (
      <EmptyState
        title={category ? `Aucun véhicule ${categoryLabels[category]} disponible pour le moment.` : 'Aucun véhicule disponible pour le moment.'}
      />
    );
  return (
    <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
      {q.data.map((v) => (
        <VehicleCard key={v.id} vehicle={v} />
      ))}
    </div>
  );
}
