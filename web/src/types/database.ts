/** Row types of the tables and functions the customer site uses (sql/migrations V30–V38), written once. */

export type VehicleCategory = 'economic' | 'luxury' | 'suv' | 'utility';
export type RentalStatus = 'available' | 'rented' | 'maintenance' | 'retired';
export type BookingStatus = 'pending' | 'confirmed' | 'active' | 'completed' | 'cancelled';
export type Transmission = 'Manuelle' | 'Automatique' | 'CVT';
export type FuelType = 'Essence' | 'Diesel' | 'Hybride' | 'Électrique' | 'GPL';
/** PostgREST sends numeric columns as JSON numbers or strings depending on precision. */
export type Numeric = number | string;

export interface VehicleSpecifications {
  seats?: number;
  transmission?: Transmission;
  fuel_type?: FuelType;
  doors?: number;
  engine_type?: string;
  mileage?: number;
}

export interface VehiclePricing {
  daily_rate?: Numeric;
  weekly_discount?: Numeric;
  monthly_discount?: Numeric;
  security_deposit?: Numeric;
}

export interface Vehicle {
  id: string;
  name: string;
  make: string;
  model: string;
  year: number;
  category: VehicleCategory;
  color: string | null;
  daily_rate: Numeric;
  rental_status: RentalStatus;
  description: string | null;
  features: string[];
  location: string | null;
  specifications: VehicleSpecifications;
  pricing: VehiclePricing;
  images: unknown[];
  primary_image: string | null;
}

export interface RentalQuote {
  days: number;
  daily_rate: Numeric;
  base_total: Numeric;
  discount_percent: Numeric;
  total: Numeric;
}

/** A row of `search_available_vehicles`. */
export type AvailableVehicle = Vehicle & Omit<RentalQuote, 'daily_rate'>;

/** What `book_vehicle` returns. */
export interface BookVehicleResult {
  id: string;
  total_amount: Numeric;
  days: number;
  discount_percent: Numeric;
  booking_status: BookingStatus;
}

export interface Profile {
  id: string;
  user_id: string;
  username: string | null;
  email: string | null;
  full_name: string | null;
  phone: string | null;
  role: 'user' | 'admin';
  /** booking messages by e-mail (default on) and by text message (default off). */
  notify_email: boolean;
  notify_sms: boolean;
  updated_at: string;
}

export interface AirportService {
  code: 'vip' | 'standard' | 'baggage';
  position: number;
  name: string;
  description: string;
  price: Numeric;
}

export interface DiagnosticService {
  code: 'mechanical' | 'electronic' | 'climate' | 'reset' | 'programming' | 'key_programming';
  position: number;
  name: string;
  description: string;
  price: Numeric;
}

export interface PremiumService {
  code: 'private_driver' | 'vip_concierge' | 'business_pack';
  position: number;
  name: string;
  description: string;
  price_per_day: Numeric;
}

interface BookingBase {
  id: string;
  user_id: string | null;
  total_amount: Numeric;
  booking_status: BookingStatus;
  created_at: string;
}

export type BookingPaymentMethod = 'card' | 'mobile' | 'bank' | 'digital_wallet';
export type MobileMoneyProvider = 'mpesa' | 'orange' | 'airtel';

export interface VehicleBooking extends BookingBase {
  vehicle_id: string;
  start_date: string;
  end_date: string;
  pickup_location: string | null;
  dropoff_location: string | null;
  special_requests: string | null;
  /** How the customer means to pay (V38); null for bookings made without the reservation dialog. */
  payment_method?: BookingPaymentMethod | null;
  mobile_money_provider?: MobileMoneyProvider | null;
  mobile_money_phone?: string | null;
  payment_reference?: string | null;
  pickup_time?: string | null;
  passengers?: number | null;
  vehicles?: Pick<Vehicle, 'name' | 'make' | 'model' | 'primary_image'> | null;
}

export interface AirportBooking extends BookingBase {
  service_type: AirportService['code'];
  flight_type: 'arrival' | 'departure';
  flight_date: string;
  flight_time: string;
  flight_number: string;
  passengers: number;
  special_requests: string | null;
}

export interface DiagnosticBooking extends BookingBase {
  service_type: DiagnosticService['code'];
  service_name: string | null;
  service_price: Numeric | null;
  vehicle_type: string;
  appointment_date: string;
  appointment_time: string;
  customer_email: string;
  customer_phone: string;
  notes: string | null;
}

export interface PremiumBooking extends BookingBase {
  service_type: PremiumService['code'];
  service_name: string | null;
  service_price_per_day: Numeric | null;
  start_date: string;
  duration_days: number;
  customer_name: string;
  customer_email: string;
  customer_phone: string;
  special_requirements: string | null;
}

export interface ContactMessageInsert {
  name: string;
  email: string;
  phone?: string | null;
  subject: 'reservation' | 'information' | 'support' | 'other';
  message: string;
  source: 'contact' | 'support';
}

export interface BlogPost {
  id: string;
  slug: string;
  title: string;
  excerpt: string;
  content: string;
  author: string;
  category: string | null;
  cover_image: string | null;
  published_at: string | null;
}
