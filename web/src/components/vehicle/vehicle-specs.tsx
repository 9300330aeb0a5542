import { Fuel, Settings2, Users } from 'lucide-react';
import type { VehicleSpecifications } from '@/types/database';

/** Seats (default 5), transmission (default Manuelle), fuel (default Essence). */
export function VehicleSpecs({ specs }: { specs: VehicleSpecifications }) {
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-700">
      <li className="inline-flex items-center gap-1">
        <Users className="h-4 w-4" aria-hidden="true" /> {specs.seats ?? 5} places
      </li>
      <li className="inline-flex items-center gap-1">
        <Settings2 className="h-4 w-4" aria-hidden="true" /> {specs.transmission ?? 'Manuelle'}
      </li>
      <li className="inline-flex items-center gap-1">
        <Fuel className="h-4 w-4" aria-hidden="true" /> {specs.fuel_type ?? 'Essence'}
      </li>
    </ul>
  );
}
