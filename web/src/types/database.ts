/**
 * The row types the site uses, derived from the generated `Database` type (`./supabase.ts`,
 * printed by `make types` from web/supabase's migrations: never edit it by hand, `make test`
 * fails when it drifts). What the database only knows as `text` or `jsonb` is narrowed here to
 * what its check constraints and functions allow: the status and category codes below, and the
 * shape of the vehicles' `specifications` and `pricing` documents (`jsonb`, `Json` in the
 * generated type). Everything else is the generated column's type.
 */
import type { Database, Tables, TablesInsert } from './supabase';

export type { Database, Json, Tables, TablesInsert, TablesUpdate } from './supabase';

export type VehicleCategory = 'economic' | 'luxury' | 'suv' | 'utility';
export type RentalStatus = 'available' | 'rented' | 'maintenance' | 'retired';
export type BookingStatus = 'pending' | 'confirmed' | 'active' | 'completed' | 'cancelled';
export type Transmission = 'Manuelle' | 'Automatique' | 'CVT';
export type FuelType = 'Essence' | 'Diesel' | 'Hybride' | 'Électrique' | 'GPL';
/** A price or an amount as the site may hold it (the API sends `numeric` columns as numbers). */
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

/** What a function of `public` returns, one row of it for a set-returning one. */
type Returned<Name extends keyof Database['public']['Functions']> =
  Database['public']['Functions'][Name]['Returns'] extends (infer Row)[] ? Row : Database['public']['Functions'][Name]['Returns'];

/** A vehicle as the pages read it: `vehicles`' columns with its codes and documents narrowed. */
export interface Vehicle
  extends Pick<
    Tables<'vehicles'>,
    'id' | 'name' | 'make' | 'model' | 'year' | 'color' | 'daily_rate' | 'description' | 'features' | 'location' | 'primary_image'
  > {
  category: VehicleCategory;
  rental_status: RentalStatus;
  /** `specifications jsonb`: the keys the back office writes (admin_save_vehicle). */
  specifications: VehicleSpecifications;
  /** `pricing jsonb`. */
  pricing: VehiclePricing;
  /** `images jsonb`: an array of stored image records. */
  images: unknown[];
}

/** A row of `quote_vehicle_rental`. */
export type RentalQuote = Returned<'quote_vehicle_rental'>;

/** A row of `search_available_vehicles`. */
export type AvailableVehicle = Vehicle & Omit<RentalQuote, 'daily_rate'>;

/** What `book_vehicle` returns. */
export interface BookVehicleResult extends Omit<Returned<'book_vehicle'>, 'booking_status'> {
  booking_status: BookingStatus;
}

export interface Profile
  extends Pick<
    Tables<'profiles'>,
    'id' | 'user_id' | 'username' | 'email' | 'full_name' | 'phone' | 'notify_email' | 'notify_sms' | 'updated_at'
  > {
  role: 'user' | 'admin';
}

export interface AirportService extends Omit<Tables<'airport_services'>, 'code'> {
  code: 'vip' | 'standard' | 'baggage';
}

export interface DiagnosticService extends Omit<Tables<'diagnostic_services'>, 'code'> {
  code: 'mechanical' | 'electronic' | 'climate' | 'reset' | 'programming' | 'key_programming';
}

export interface PremiumService extends Omit<Tables<'premium_services'>, 'code'> {
  code: 'private_driver' | 'vip_concierge' | 'business_pack';
}

/** The columns every kind of booking has. */
type BookingBaseColumn = 'id' | 'user_id' | 'total_amount' | 'created_at';

export type BookingPaymentMethod = 'card' | 'mobile' | 'bank' | 'digital_wallet';
export type MobileMoneyProvider = 'mpesa' | 'orange' | 'airtel';

export interface VehicleBooking
  extends Pick<
      Tables<'bookings'>,
      BookingBaseColumn | 'vehicle_id' | 'start_date' | 'end_date' | 'pickup_location' | 'dropoff_location' | 'special_requests'
    >,
    Partial<Pick<Tables<'bookings'>, 'mobile_money_phone' | 'payment_reference' | 'pickup_time' | 'passengers'>> {
  booking_status: BookingStatus;
  /** How the customer means to pay; null for bookings made without the reservation dialog. */
  payment_method?: BookingPaymentMethod | null;
  mobile_money_provider?: MobileMoneyProvider | null;
  vehicles?: Pick<Vehicle, 'name' | 'make' | 'model' | 'primary_image'> | null;
}

export interface AirportBooking
  extends Pick<Tables<'airport_bookings'>, BookingBaseColumn | 'flight_date' | 'flight_time' | 'flight_number' | 'passengers' | 'special_requests'> {
  booking_status: BookingStatus;
  service_type: AirportService['code'];
  flight_type: 'arrival' | 'departure';
}

export interface DiagnosticBooking
  extends Pick<
    Tables<'diagnostic_bookings'>,
    | BookingBaseColumn
    | 'service_name'
    | 'service_price'
    | 'vehicle_type'
    | 'appointment_date'
    | 'appointment_time'
    | 'customer_email'
    | 'customer_phone'
    | 'notes'
  > {
  booking_status: BookingStatus;
  service_type: DiagnosticService['code'];
}

export interface PremiumBooking
  extends Pick<
    Tables<'premium_service_bookings'>,
    | BookingBaseColumn
    | 'service_name'
    | 'service_price_per_day'
    | 'start_date'
    | 'duration_days'
    | 'customer_name'
    | 'customer_email'
    | 'customer_phone'
    | 'special_requirements'
  > {
  booking_status: BookingStatus;
  service_type: PremiumService['code'];
}

export interface ContactMessageInsert extends Pick<TablesInsert<'contact_messages'>, 'name' | 'email' | 'phone' | 'message'> {
  subject: 'reservation' | 'information' | 'support' | 'other';
  source: 'contact' | 'support';
}

export type BlogPost = Pick<
  Tables<'blog_posts'>,
  'id' | 'slug' | 'title' | 'excerpt' | 'content' | 'author' | 'category' | 'cover_image' | 'published_at'
>;
