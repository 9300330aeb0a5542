import { Link } from 'react-router';
import type { Vehicle } from '@/types/database';
import { formatPrice, todayIso, addDaysIso } from '@/lib/format';
import { categoryLabels } from '@/lib/labels';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { VehicleImage } from '@/components/vehicle/vehicle-image';
import { VehicleSpecs } from '@/components/vehicle/vehicle-specs';

export function bookingLink(vehicleId: string) {
  const start = todayIso();
  return `${paths.booking}?vehicle=${vehicleId}&start=${start}&end=${addDaysIso(start, 1)}`;
}

/**
 * A fleet card. Its Réserver goes to the public booking with the vehicle, unless `onReserve` is
 * given (the /car-rental page opens the reservation dialog with it). `eager`: the picture is
 * among the first on screen (loaded at once, high priority).
 */
export function VehicleCard({
  vehicle,
  onReserve,
  eager = false,
}: {
  vehicle: Vehicle;
  onReserve?: ((vehicle: Vehicle) => void) | undefined;
  eager?: boolean;
}) {
  const extra = vehicle.features.length - 3;
  return (
    <article className="flex flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm">
      <VehicleImage path={vehicle.primary_image} alt={`${vehicle.name} (${vehicle.make} ${vehicle.model})`} className="aspect-[5/3] w-full" eager={eager} />
      <div className="flex flex-1 flex-col gap-3 p-4">
        <div className="flex items-start justify-between gap-2">
          <div>
            <h3 className="text-lg font-bold text-blue-950">
              <Link to={paths.vehicle(vehicle.id)} className="hover:underline">
                {vehicle.name}
              </Link>
            </h3>
            <p className="text-sm text-slate-600">
              {vehicle.make} {vehicle.model} · {vehicle.year}
            </p>
          </div>
          <span className="rounded-full bg-blue-50 px-2.5 py-1 text-xs font-semibold text-blue-900">{categoryLabels[vehicle.category]}</span>
        </div>
        <VehicleSpecs specs={vehicle.specifications} />
        {vehicle.features.length > 0 && (
          <ul className="flex flex-wrap gap-1.5" aria-label="Équipements">
            {vehicle.features.slice(0, 3).map((f) => (
              <li key={f} className="rounded-md bg-slate-100 px-2 py-0.5 text-xs text-slate-700">
                {f}
              </li>
            ))}
            {extra > 0 && <li className="rounded-md bg-slate-100 px-2 py-0.5 text-xs text-slate-700">+{extra}</li>}
          </ul>
        )}
        <div className="mt-auto flex items-end justify-between gap-2 pt-2">
          <p>
            <span className="text-2xl font-extrabold text-blue-950">{formatPrice(vehicle.daily_rate)}</span>
            <span className="text-sm text-slate-600"> / jour</span>
          </p>
          {onReserve ? (
            <button type="button" onClick={() => onReserve(vehicle)} className={buttonClass('primary')} aria-label={`Réserver ${vehicle.name}`}>
              Réserver
            </button>
          ) : (
            <Link to={bookingLink(vehicle.id)} className={buttonClass('primary')} aria-label={`Réserver ${vehicle.name}`}>
              Réserver
            </Link>
          )}
        </div>
      </div>
    </article>
  );
}
