import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import type { AvailableVehicle, BookVehicleResult, BookingPaymentMethod, MobileMoneyProvider, RentalQuote, VehicleCategory } from '@/types/database';

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
    category: p.category || undefined,
    max_daily_rate: p.maxPrice < 1000 ? p.maxPrice : undefined,
    min_seats: p.minSeats > 0 ? p.minSeats : undefined,
    transmission: p.transmission || undefined,
    fuel_type: p.fuelType || undefined,
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
  /** How the customer means to pay (the reservation dialog); never card data. */
  payment?: {
    method: BookingPaymentMethod;
    mobileMoneyProvider?: MobileMoneyProvider | undefined;
    mobileMoneyPhone?: string | undefined;
    transferReference?: string | undefined;
  };
  pickupTime?: string;
  passengers?: number;
}

/** The reservation dialog's extra arguments, only when given: older servers know the first ten. */
function dialogArgs(p: BookVehicleParams): Record<string, string | number> {
  const args: Record<string, string | number> = {};
  if (p.payment) {
    args.payment_method = p.payment.method;
    if (p.payment.method === 'mobile') {
      if (p.payment.mobileMoneyProvider) args.mobile_money_provider = p.payment.mobileMoneyProvider;
      if (p.payment.mobileMoneyPhone) args.mobile_money_phone = p.payment.mobileMoneyPhone;
    }
    if (p.payment.method === 'bank' && p.payment.transferReference) args.payment_reference = p.payment.transferReference;
  }
  if (p.pickupTime) args.pickup_time = p.pickupTime;
  if (p.passengers !== undefined) args.passengers = p.passengers;
  return args;
}

/** A pending booking whose total the database sets (the public booking and the reservation dialog). */
export async function bookVehicle(p: BookVehicleParams): Promise<BookVehicleResult> {
  const { data, error } = await supabase()
    .rpc('book_vehicle', {
      vehicle_id: p.vehicleId,
      start_date: p.startDate,
      end_date: p.endDate,
      pickup_location: p.pickupLocation || undefined,
      dropoff_location: p.dropoffLocation || undefined,
      customer_name: p.fullName,
      customer_email: p.email,
      customer_phone: p.phone,
      driver_license_number: p.licenseNumber,
      special_requests: p.specialRequests || undefined,
      ...dialogArgs(p),
    })
    .single();
  if (error) throw toAppError(error, 'Erreur lors de la réservation');
  return data as BookVehicleResult;
}

export function useBookVehicle() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: bookVehicle, onSuccess: () => qc.invalidateQueries({ queryKey: ['my-bookings'] }) });
}

export interface QuoteParams {
  vehicleId: string;
  startDate: string;
  endDate: string;
}

/** What renting the vehicle over the dates costs, discounts applied: the database's price. */
export async function quoteVehicleRental(p: QuoteParams): Promise<RentalQuote> {
  const { data, error } = await supabase()
    .rpc('quote_vehicle_rental', { vehicle_id: p.vehicleId, start_date: p.startDate, end_date: p.endDate })
    .maybeSingle();
  if (error) throw toAppError(error, 'Erreur lors du calcul du prix');
  if (!data) throw toAppError({ code: 'PT404' });
  return data as RentalQuote;
}

export const quoteKeys = {
  all: ['rental-quote'] as const,
  quote: (p: QuoteParams) => [...quoteKeys.all, p.vehicleId, p.startDate, p.endDate] as const,
};

/** The quote, while the dates are complete (`null` otherwise); the last one stays shown while the next loads. */
export function useRentalQuote(params: QuoteParams | null) {
  return useQuery({
    queryKey: quoteKeys.quote(params ?? { vehicleId: '', startDate: '', endDate: '' }),
    queryFn: () => quoteVehicleRental(params as QuoteParams),
    enabled: params !== null,
    placeholderData: keepPreviousData,
  });
}
