import type { AvailableVehicle } from '@/types/database';
import { formatDays, formatPrice, priceDisplay } from '@/lib/format';
import { categoryLabels } from '@/lib/labels';
import { Button } from '@/components/ui/button';
import { VehicleImage } from '@/components/vehicle/vehicle-image';
import { VehicleSpecs } from '@/components/vehicle/vehicle-specs';

export function ResultCard({ vehicle, onSelect }: { vehicle: AvailableVehicle; onSelect: () => void }) {
  const price = priceDisplay(vehicle);
  return (
    <article className="relative flex flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm" data-testid="result-card">
      {price.badge && <span className="absolute left-3 top-3 rounded-full bg-red-700 px-2.5 py-1 text-xs font-bold text-white">{price.badge}</span>}
      <VehicleImage path={vehicle.primary_image} alt={`${vehicle.name} (${vehicle.make} ${vehicle.model})`} className="aspect-[5/3] w-full" />
      <div className="flex flex-1 flex-col gap-3 p-4">
        <div>
          <h3 className="text-lg font-bold text-blue-950">{vehicle.name}</h3>
          <p className="text-sm text-slate-600">
            {vehicle.make} {vehicle.model} · {vehicle.year} · {categoryLabels[vehicle.category]}
          </p>
        </div>
        <VehicleSpecs specs={vehicle.specifications} />
        <div className="mt-auto flex items-end justify-between gap-2 pt-2">
          <div>
            {price.base && (
              <p className="text-sm text-slate-600 line-through">
                <span className="sr-only">Prix sans remise : </span>
                {price.base}
              </p>
            )}
            <p className="text-2xl font-extrabold text-blue-950" data-testid="result-total">
              {price.total}
            </p>
            <p className="text-xs text-slate-600">
              {formatDays(vehicle.days)} · {formatPrice(vehicle.daily_rate)} / jour
            </p>
          </div>
          <Button onClick={onSelect} aria-label={`Sélectionner ${vehicle.name}`}>
            Sélectionner
          </Button>
        </div>
      </div>
    </article>
  );
}
