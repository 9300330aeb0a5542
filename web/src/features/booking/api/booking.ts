import { useMutation, useQuery } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { AvailableVehicle, BookVehicleResult, VehicleCategory } from '@/types/database';

export interface SearchParams {
  startDate: string;
  endDate: string;
  category: VehicleCategory | '';
  maxPrice: number;
  minSeats: number;
  transmission: string;
  fuelType: string;
}

/** Vehicles free over the dates, with their quote (the database's price). */
export async function searchAvailableVehicles(p: SearchParams): Promise<AvailableVehicle[]> {
  const { data, error } = await supabase().rpc('search_available_vehicles', {
    start_date: p.startDate,
    end_date: p.endDate,
    category: p.category || null,
    max_daily_rate: p.maxPrice < 1000 ? p.maxPrice : null,
    min_seats: p.minSeats > 0 ? p.minSeats : null,
    transmission: p.transmission || null,
    fuel_type: p.fuelType || null,
  });
  if (error) throw toAppError(error, 'Erreur lors de la recherche de véhicules');
  return (data ?? []) as AvailableVehicle[];
}

export const bookingKeys = {
  all: ['vehicle-search'] as const,
  search: (p: SearchParams) => [...bookingKeys.all, p] as const,
};

export function useVehicleSearch(params: SearchParams | null) {
  return useQuery({
    queryKey: bookingKeys.search(params ?? ({} as SearchParams)),
    queryFn: () => searchAvailableVehicles(params as SearchParams),
    enabled: params !== null,
  });
}

export interface BookVehicleParams {
  vehicleId: string;
  startDate: string;
  endDate: string;
  pickupLocation: string;
  dropoffLocation: string;
  fullName: string;
  email: string;
  phone: string;
  licenseNumber: string;
  specialRequests: string;
}

/** The public booking: a pending booking whose total the database sets. */
export async function bookVehicle(p: BookVehicleParams): Promise<BookVehicleResult> {
  const { data, error } = await supabase()
    .rpc('book_vehicle', {
      vehicle_id: p.vehicleId,
      start_date: p.startDate,
      end_date: p.endDate,
      pickup_location: p.pickupLocation || null,
      dropoff_location: p.dropoffLocation || null,
      customer_name: p.fullName,
      customer_email: p.email,
      customer_phone: p.phone,
      driver_license_number: p.licenseNumber,
      special_requests: p.specialRequests || null,
    })
    .single();
  if (error) throw toAppError(error, 'Erreur lors de la réservation');
  return data as BookVehicleResult;
}

export function useBookVehicle() {
  return useMutation({ mutationFn: bookVehicle });
}
