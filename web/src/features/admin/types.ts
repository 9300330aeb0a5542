/** Rows of the back office (sql/migrations V30–V43), written once for the admin feature. */
import type { BookingStatus, FuelType, Numeric, Profile, Transmission, Vehicle } from '@/types/database';

export type BookingKind = 'vehicle' | 'airport' | 'diagnostic' | 'premium';

export interface CustomerRef {
  full_name: string | null;
  email: string | null;
  phone: string | null;
  role: 'user' | 'admin' | null;
}

/** A booking of any kind, in the one shape the bookings screen lists. */
export interface AdminBooking {
  kind: BookingKind;
  id: string;
  user_id: string | null;
  booking_status: BookingStatus;
  total_amount: number;
  created_at: string;
  updated_at: string | null;
  customer: CustomerRef;
  /** Vehicle name or service label. */
  subject: string;
  /** Make, model and plate; flight; vehicle type… */
  detail: string;
  /** The date the date filter uses (start_date, flight_date, appointment_date). */
  date: string | null;
  end: string | null;
  /** The row as read, for the details and edit dialogs. */
  raw: Record<string, unknown>;
}

/** A profile with its booking figures, as `admin_users()` returns it. */
export interface AdminUser extends Profile {
  created_at: string;
  booking_count: number;
  total_spent: Numeric;
  last_booking: string | null;
  is_active: boolean;
}

export interface VehicleImage {
  id: string;
  url: string;
  title: string;
  is_primary: boolean;
  order: number;
}

export interface SeasonalRate {
  id: string;
  name: string;
  start_date: string;
  end_date: string;
  rate_multiplier: number;
  description: string;
}

/** A vehicle as the back office reads it: the public row, its private record (V47) and its bookings. */
export interface AdminVehicle extends Omit<Vehicle, 'specifications' | 'pricing' | 'images'> {
  license_plate: string | null;
  current_location: string | null;
  home_location: string | null;
  /** From `vehicle_records`, read in place (`...vehicle_records(...)`). */
  vin: string | null;
  insurance_policy: string | null;
  registration_expiry: string | null;
  last_service_date: string | null;
  next_service_due: string | null;
  specifications: {
    engine_type?: string;
    fuel_type?: FuelType;
    transmission?: Transmission;
    seats?: number;
    doors?: number;
    mileage?: number;
    safety_features?: string[];
    comfort_features?: string[];
  };
  pricing: {
    daily_rate?: Numeric;
    weekly_discount?: Numeric;
    monthly_discount?: Numeric;
    security_deposit?: Numeric;
    seasonal_rates?: SeasonalRate[];
  };
  images: VehicleImage[];
  primary_image: string | null;
  created_at: string;
  updated_at: string;
  bookings?: { id: string; total_amount: Numeric; created_at: string; booking_status: BookingStatus }[];
}

/** What `admin_statistics` returns (V36). */
export interface AdminStatistics {
  total_bookings: number;
  active_bookings: number;
  total_revenue: Numeric;
  by_status: Record<BookingStatus, number>;
  month: { bookings: number; previous_bookings: number; revenue: Numeric; previous_revenue: Numeric };
}

/** What `admin_analytics` returns (V43). */
export interface Analytics {
  start_date: string;
  end_date: string;
  bookings: number;
  previous_bookings: number;
  revenue: Numeric;
  previous_revenue: Numeric;
  bookings_growth: Numeric;
  revenue_growth: Numeric;
  average_basket: Numeric;
  monthly: { month: string; bookings: number; revenue: Numeric }[];
  by_kind: Record<BookingKind, { bookings: number; revenue: Numeric }>;
  categories: { category: string | null; bookings: number; revenue: Numeric }[];
  top_vehicles: { id: string; name: string; category: string | null; bookings: number; revenue: Numeric; utilisation: Numeric }[];
  customers: { total: number; active: number; repeat: number; retention_rate: Numeric; bookings_per_customer: Numeric };
}
