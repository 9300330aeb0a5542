import type { VehicleCategory } from '@/types/database';

export const categoryLabels: Record<VehicleCategory, string> = {
  economic: 'Économique',
  luxury: 'Luxe',
  suv: 'SUV',
  utility: 'Utilitaire',
};

export function isCategory(value: string | null | undefined): value is VehicleCategory {
  return value === 'economic' || value === 'luxury' || value === 'suv' || value === 'utility';
}
