import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderHook, waitFor } from '@testing-library/react';
import { FakeRealtime } from '@/test/fake-realtime';
import { initSupabase, supabaseClient } from '@/lib/supabase';
import type { TableChange } from '@/lib/realtime';
import { normalizeBooking } from './api/bookings';
import { adminKeys } from './api/keys';
import { adminBookingsAfterChanges, useLiveAdminBookings, useLiveDashboard } from './api/live';
import type { AdminBooking, CustomerRef } from './types';

const customer: CustomerRef = { full_name: 'Jeanne Mbuyi', email: 'jeanne@example.cd', phone: '+243810000000', role: 'user' };
const rental = {
  id: 'b1000000-0000-4000-8000-000000000001', user_id: 'u1', vehicle_id: 'v', start_date: '2026-11-22', end_date: '2026-11-24', total_amount: 180,
  booking_status: 'pending', created_at: '2026-11-20T10:00:00+00:00', updated_at: null,
  vehicles: { id: 'v', name: 'Toyota Corolla', make: 'Toyota', model: 'Corolla', license_plate: 'KIN-001' },
};
const visitorRental = { ...rental, id: 'b1000000-0000-4000-8000-000000000002', user_id: null, customer_name: 'Patrick Visiteur', customer_email: 'p@example.cd', customer_phone: '+243812345678' };
const list = (): AdminBooking[] => [normalizeBooking('vehicle', rental, { u1: customer }), normalizeBooking('vehicle', visitorRental, {})];
/** A change as Realtime sends it: the table's columns only (no vehicle, no profile). */
const update = (row: Record<string, unknown>): TableChange => {
  const { vehicles: _joined, ...columns } = row;
  return { table: 'bookings', eventType: 'UPDATE', new: columns, old: { id: row.id } };
};

describe('what a change does to the back office bookings list', () => {
  it('a status change applies in place, keeping the vehicle and the customer', () => {
    const before = list();
    const { list: next, refetch } = adminBookingsAfterChanges(before, [update({ ...rental, booking_status: 'confirmed', updated_at: '2026-11-21T08:00:00+00:00' })]);
    expect(refetch).toBe(false);
    expect(next?.[0]).toMatchObject({ booking_status: 'confirmed', subject: 'Toyota Corolla', detail: 'Toyota · Corolla · KIN-001', customer, updated_at: '2026-11-21T08:00:00+00:00' });
    expect(next?.[1]).toBe(before[1]); // the others are untouched
    expect(before[0]?.booking_status).toBe('pending'); // the cached list is not mutated
  });
  it("a visitor's booking keeps the contact it was made with", () => {
    const { list: next } = adminBookingsAfterChanges(list(), [update({ ...visitorRental, booking_status: 'cancelled' })]);
    expect(next?.[1]).toMatchObject({ booking_status: 'cancelled', customer: { full_name: 'Patrick Visiteur', email: 'p@example.cd' } });
  });
  it('a new booking of any kind, a booking moved to another customer or a truncated change asks for a refetch', () => {
    for (const table of ['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings']) {
      expect(adminBookingsAfterChanges(list(), [{ table, eventType: 'INSERT', new: { id: 'n' }, old: {} }]).refetch).toBe(true);
    }
    expect(adminBookingsAfterChanges(list(), [update({ ...rental, user_id: 'u2' })]).refetch).toBe(true);
    expect(adminBookingsAfterChanges(list(), [{ ...update(rental), errors: ['Error 413: Payload Too Large'] }]).refetch).toBe(true);
  });
  it('a deleted booking leaves the list', () => {
    const { list: next, refetch } = adminBookingsAfterChanges(list(), [{ table: 'bookings', eventType: 'DELETE', new: {}, old: { id: rental.id } }]);
    expect([next?.map((b) => b.id), refetch]).toEqual([[visitorRental.id], false]);
  });
});

describe('the live back office hooks', () => {
  const server = new FakeRealtime();
  beforeAll(() => {
    vi.stubGlobal('WebSocket', server.WebSocket);
    initSupabase({ supabaseUrl: 'http://127.0.0.1:54321', anonKey: 'anon-key' });
  });
  afterAll(async () => {
    const client = await supabaseClient();
    await client.removeAllChannels();
    client.auth.stopAutoRefresh();
    vi.unstubAllGlobals();
  });
  const setup = () => {
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={qc}>{children}</QueryClientProvider>;
    return { qc, wrapper };
  };
  const allTables = ['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings'].map((table) => ({ event: '*', schema: 'public', table }));

  it('the bookings list follows every booking, unfiltered, and applies a status change', async () => {
    const { qc, wrapper } = setup();
    qc.setQueryData(adminKeys.bookings(), list());
    const { result, unmount } = renderHook(() => useLiveAdminBookings(), { wrapper });
    await waitFor(() => expect(result.current).toBe('live'));
    expect(server.joins().at(-1)?.[4]).toMatchObject({ config: { postgres_changes: allTables } });
    server.change('bookings', 'UPDATE', { ...update(rental).new, booking_status: 'active' }, { id: rental.id });
    await waitFor(() => expect(qc.getQueryData<AdminBooking[]>(adminKeys.bookings())?.[0]?.booking_status).toBe('active'));
    unmount();
  });

  it('the dashboard is read again when a customer books', async () => {
    const { qc, wrapper } = setup();
    const { result, unmount } = renderHook(() => useLiveDashboard(), { wrapper });
    await waitFor(() => expect(result.current).toBe('live'));
    expect(server.joins().at(-1)?.[2]).toMatch(/^realtime:admin-dashboard:\d+$/);
    qc.setQueryData(adminKeys.dashboard(), { users: 1 });
    server.change('airport_bookings', 'INSERT', { id: 'b2000000-0000-4000-8000-000000000009', user_id: 'u1', booking_status: 'pending' });
    await waitFor(() => expect(qc.getQueryState(adminKeys.dashboard())?.isInvalidated).toBe(true));
    unmount();
  });
});
