/** Search, filters and sorts of the bookings, vehicles and users lists (back-office.md section 9). */
import type { AdminBooking, AdminUser, AdminVehicle, BookingKind } from '../types';

export interface BookingFilters {
  search: string;
  kind: BookingKind | 'all';
  status: string;
  sort: 'created_at' | 'start_date' | 'total_amount' | 'user_name';
  from: string;
  to: string;
}

export const emptyBookingFilters: BookingFilters = { search: '', kind: 'all', status: 'all', sort: 'created_at', from: '', to: '' };

export function hasBookingFilters(f: BookingFilters): boolean {
  return f.search.trim() !== '' || f.kind !== 'all' || f.status !== 'all' || f.from !== '' || f.to !== '';
}

/** Text a booking's search covers: customer name and e-mail, id, and what its kind adds. */
function haystack(b: AdminBooking): string {
  const r = b.raw;
  const extra =
    b.kind === 'vehicle'
      ? [(r.vehicles as Record<string, unknown> | null)?.name, (r.vehicles as Record<string, unknown> | null)?.make, (r.vehicles as Record<string, unknown> | null)?.license_plate]
      : b.kind === 'airport'
        ? [r.flight_number]
        : b.kind === 'diagnostic'
          ? [r.vehicle_type, r.service_name]
          : [r.customer_name, r.service_name];
  return [b.customer.full_name, b.customer.email, b.id, ...extra].filter(Boolean).join(' ').toLowerCase();
}

/** The bookings screen's list: filtered, then sorted (the original offered sorts but applied none). */
export function filterBookings(list: AdminBooking[], f: BookingFilters): AdminBooking[] {
  const q = f.search.trim().toLowerCase();
  const out = list.filter(
    (b) =>
      (!q || haystack(b).includes(q)) &&
      (f.kind === 'all' || b.kind === f.kind) &&
      (f.status === 'all' || b.booking_status === f.status) &&
      (!f.from || (b.date !== null && b.date >= f.from)) &&
      (!f.to || (b.date !== null && b.date <= f.to)),
  );
  const by: Record<BookingFilters['sort'], (a: AdminBooking, b: AdminBooking) => number> = {
    created_at: (a, b) => b.created_at.localeCompare(a.created_at),
    start_date: (a, b) => (b.date ?? '').localeCompare(a.date ?? ''),
    total_amount: (a, b) => b.total_amount - a.total_amount,
    user_name: (a, b) => (a.customer.full_name ?? '').localeCompare(b.customer.full_name ?? '', 'fr'),
  };
  return [...out].sort(by[f.sort]);
}

/** Tiles of the bookings screen: average basket over all bookings (section 9). */
export function bookingTiles(list: AdminBooking[]) {
  const revenue = list.filter((b) => b.booking_status !== 'cancelled').reduce((s, b) => s + b.total_amount, 0);
  return {
    total: list.length,
    pending: list.filter((b) => b.booking_status === 'pending').length,
    confirmed: list.filter((b) => b.booking_status === 'confirmed').length,
    active: list.filter((b) => b.booking_status === 'active').length,
    revenue: Math.round(revenue * 100) / 100,
    average: list.length ? Math.round((revenue / list.length) * 100) / 100 : 0,
  };
}

export type VehicleSort = 'created_at' | 'name' | 'category' | 'daily_rate' | 'booking_count';

export function filterVehicles(list: AdminVehicle[], search: string, status: string, sort: VehicleSort): AdminVehicle[] {
  const q = search.trim().toLowerCase();
  const out = list.filter(
    (v) => (status === 'all' || v.rental_status === status) && (!q || [v.name, v.make, v.model, v.license_plate].some((x) => x?.toLowerCase().includes(q))),
  );
  const by: Record<VehicleSort, (a: AdminVehicle, b: AdminVehicle) => number> = {
    created_at: (a, b) => b.created_at.localeCompare(a.created_at),
    name: (a, b) => a.name.localeCompare(b.name, 'fr'),
    category: (a, b) => a.category.localeCompare(b.category),
    daily_rate: (a, b) => Number(b.daily_rate) - Number(a.daily_rate),
    booking_count: (a, b) => (b.bookings?.length ?? 0) - (a.bookings?.length ?? 0),
  };
  return [...out].sort(by[sort]);
}

/** Bookings count, revenue (cancelled excluded) and last booking date of a vehicle. */
export function vehicleFigures(v: AdminVehicle) {
  const list = v.bookings ?? [];
  const revenue = list.filter((b) => b.booking_status !== 'cancelled').reduce((s, b) => s + Number(b.total_amount), 0);
  const last = list.reduce<string | null>((m, b) => (!m || b.created_at > m ? b.created_at : m), null);
  return { count: list.length, revenue, last };
}

export type UserSort = 'created_at' | 'name' | 'email' | 'booking_count';

export function filterUsers(list: AdminUser[], search: string, role: 'all' | 'user' | 'admin', sort: UserSort): AdminUser[] {
  const q = search.trim().toLowerCase();
  const out = list.filter((u) => (role === 'all' || u.role === role) && (!q || [u.full_name, u.email, u.phone].some((x) => x?.toLowerCase().includes(q))));
  const by: Record<UserSort, (a: AdminUser, b: AdminUser) => number> = {
    created_at: (a, b) => b.created_at.localeCompare(a.created_at),
    name: (a, b) => (a.full_name ?? '').localeCompare(b.full_name ?? '', 'fr'),
    email: (a, b) => (a.email ?? '').localeCompare(b.email ?? ''),
    booking_count: (a, b) => Number(b.booking_count) - Number(a.booking_count),
  };
  return [...out].sort(by[sort]);
}
