import { describe, expect, it } from 'vitest';
import { cartLabel, pendingCount, toMyBookings, totalSpent } from './bookings';
import type { AirportBooking, PremiumBooking, VehicleBooking } from '@/types/database';

const vehicle = {
  id: 'aaaaaaaa-1', user_id: 'u', vehicle_id: 'v', start_date: '2026-11-22', end_date: '2026-11-23', pickup_location: null,
  dropoff_location: null, special_requests: null, total_amount: 90, booking_status: 'pending', created_at: '2026-11-22T10:00:00Z',
  vehicles: { name: 'Toyota Corolla', make: 'Toyota', model: 'Corolla', primary_image: null },
} satisfies VehicleBooking;
const airport = {
  id: 'bbbbbbbb-2', user_id: 'u', service_type: 'vip', flight_type: 'arrival', flight_date: '2026-11-30', flight_time: '14:30:00',
  flight_number: 'ET863', passengers: 2, special_requests: null, total_amount: 300, booking_status: 'cancelled', created_at: '2026-11-22T11:00:00Z',
} satisfies AirportBooking;
const premium = {
  id: 'cccccccc-3', user_id: 'u', service_type: 'business_pack', service_name: 'Pack Business', service_price_per_day: 300, start_date: '2026-12-01',
  duration_days: 2, customer_name: 'J', customer_email: 'j@x.cd', customer_phone: '0612345678', special_requirements: null,
  total_amount: 600, booking_status: 'confirmed', created_at: '2026-11-21T09:00:00Z',
} satisfies PremiumBooking;

describe('my bookings', () => {
  it('merges the kinds newest first', () => {
    const list = toMyBookings([vehicle], [airport], [], [premium]);
    expect(list.map((b) => b.kind)).toEqual(['airport', 'vehicle', 'premium']);
    expect(list[0]?.detail).toMatch(/Vol ET863 \(arrivée\) le 30 novembre 2026 à 14:30 · 2 passagers/);
    expect(list[2]?.detail).toBe('À partir du 1 décembre 2026 · 2 jours');
  });
  it('shows what the reservation dialog recorded with a vehicle booking', () => {
    const dialog = { ...vehicle, pickup_time: '09:30:00', passengers: 3, payment_method: 'bank', payment_reference: 'VIR-AB12CD34' } satisfies VehicleBooking;
    expect(toMyBookings([dialog], [], [], [])[0]?.detail).toBe(
      'Du 22 novembre 2026 au 23 novembre 2026 (prise en charge à 09:30) · 3 personnes · Paiement prévu : Virement bancaire (référence VIR-AB12CD34)',
    );
    expect(toMyBookings([vehicle], [], [], [])[0]?.detail).toBe('Du 22 novembre 2026 au 23 novembre 2026');
  });
  it('excludes cancelled bookings from the total spent', () => {
    expect(totalSpent(toMyBookings([vehicle], [airport], [], [premium]))).toBe(690);
  });
  it('the cart counts the pending bookings, in French', () => {
    const list = toMyBookings([vehicle], [airport], [], [premium]);
    expect(pendingCount(list)).toBe(1);
    expect(pendingCount(undefined)).toBe(0);
    expect(cartLabel(1)).toBe('Panier : 1 réservation en attente');
    expect(cartLabel(3)).toBe('Panier : 3 réservations en attente');
    expect(cartLabel(0, false)).toBe('Panier : 0 réservation');
  });
});
