import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderHook, waitFor } from '@testing-library/react';
import { FakeRealtime } from '@/test/fake-realtime';
import { initSupabase, supabaseClient } from '@/lib/supabase';
import type { TableChange } from '@/lib/realtime';
import { myBookingKeys, toMyBookings, type MyBooking } from './bookings';
import { myBookingsAfterChanges, useLiveMyBookings } from './live-bookings';

const uid = 'aaaaaaaa-0000-4000-8000-000000000001';
const vehicleRow = {
  id: 'b1000000-0000-4000-8000-000000000001', user_id: uid, vehicle_id: 'v', start_date: '2026-11-22', end_date: '2026-11-24', pickup_location: null,
  dropoff_location: null, special_requests: null, total_amount: 180, booking_status: 'pending', created_at: '2026-11-20T10:00:00+00:00', updated_at: '2026-11-20T10:00:00+00:00',
} as const;
const airportRow = {
  id: 'b2000000-0000-4000-8000-000000000002', user_id: uid, service_type: 'vip', flight_type: 'arrival', flight_date: '2026-11-30', flight_time: '14:30:00',
  flight_number: 'ET863', passengers: 2, special_requests: null, total_amount: 300, booking_status: 'pending', created_at: '2026-11-21T10:00:00+00:00',
} as const;
const cached = (): MyBooking[] => toMyBookings([{ ...vehicleRow, vehicles: { name: 'Toyota Corolla', make: 'Toyota', model: 'Corolla', primary_image: null } }], [airportRow], [], []);
const update = (table: string, row: Record<string, unknown>): TableChange => ({ table, eventType: 'UPDATE', new: row, old: { id: row.id } });

describe('what a change does to « Mes réservations »', () => {
  it('an administrator confirms a rental: its status changes in place, the vehicle name stays', () => {
    const before = cached();
    const { list, refetch } = myBookingsAfterChanges(before, [update('bookings', { ...vehicleRow, booking_status: 'confirmed' })]);
    expect(refetch).toBe(false);
    expect(list?.map((b) => [b.kind, b.status, b.title])).toEqual([
      ['airport', 'pending', 'Service VIP'],
      ['vehicle', 'confirmed', 'Toyota Corolla'],
    ]);
    expect(before[1]?.status).toBe('pending'); // the cached list is not mutated
  });
  it('new dates re-priced by the database show with their total', () => {
    const { list } = myBookingsAfterChanges(cached(), [update('bookings', { ...vehicleRow, end_date: '2026-11-26', total_amount: 360 })]);
    expect(list?.[1]).toMatchObject({ detail: 'Du 22 novembre 2026 au 26 novembre 2026', total: 360, title: 'Toyota Corolla' });
  });
  it('a service booking is rebuilt from its row, and keeps its place', () => {
    const { list } = myBookingsAfterChanges(cached(), [update('airport_bookings', { ...airportRow, passengers: 3, booking_status: 'active', created_at: '2026-11-21 10:00:00+00' })]);
    expect(list?.[0]).toMatchObject({ kind: 'airport', status: 'active', createdAt: '2026-11-21T10:00:00+00:00' });
    expect(list?.[0]?.detail).toMatch(/3 passagers$/);
  });
  it('a deleted booking leaves; the delete of a row not listed changes nothing', () => {
    const before = cached();
    expect(myBookingsAfterChanges(before, [{ table: 'airport_bookings', eventType: 'DELETE', new: {}, old: { id: airportRow.id } }]).list?.map((b) => b.kind)).toEqual(['vehicle']);
    const other = myBookingsAfterChanges(before, [{ table: 'bookings', eventType: 'DELETE', new: {}, old: { id: 'elsewhere' } }]);
    expect(other).toEqual({ list: before, refetch: false });
  });
  it('a new booking, an unknown one, a truncated change or an empty cache ask for a refetch', () => {
    expect(myBookingsAfterChanges(cached(), [{ table: 'premium_service_bookings', eventType: 'INSERT', new: { id: 'n' }, old: {} }]).refetch).toBe(true);
    expect(myBookingsAfterChanges(cached(), [update('diagnostic_bookings', { id: 'unknown' })]).refetch).toBe(true);
    expect(myBookingsAfterChanges(cached(), [{ ...update('bookings', vehicleRow), errors: ['Error 413: Payload Too Large'] }]).refetch).toBe(true);
    expect(myBookingsAfterChanges(undefined, [update('bookings', vehicleRow)])).toEqual({ list: undefined, refetch: true });
  });
  it('changes of other tables are ignored; a batch applies in order', () => {
    const before = cached();
    expect(myBookingsAfterChanges(before, [update('vehicles', { id: vehicleRow.id })])).toEqual({ list: before, refetch: false });
    const { list } = myBookingsAfterChanges(before, [update('bookings', { ...vehicleRow, booking_status: 'confirmed' }), update('bookings', { ...vehicleRow, booking_status: 'active' })]);
    expect(list?.[1]?.status).toBe('active');
  });
});

/*
 * The hook with the real supabase-js client and TanStack Query, against an in-memory /realtime/v1
 * (src/test/fake-realtime.ts) installed as the browser's WebSocket.
 */
describe('useLiveMyBookings', () => {
  const server = new FakeRealtime();
  const b64url = (v: unknown) => btoa(JSON.stringify(v)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const accessToken = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: uid, role: 'authenticated', aal: 'aal1', exp })}.signature`;

  beforeAll(() => {
    vi.stubGlobal('WebSocket', server.WebSocket);
    // a signed-in customer's stored session (supabase-js's default key for this URL)
    window.localStorage.setItem(
      'sb-127-auth-token',
      JSON.stringify({
        access_token: accessToken, refresh_token: 'refresh', token_type: 'bearer', expires_in: 3600, expires_at: exp,
        user: { id: uid, aud: 'authenticated', role: 'authenticated', email: 'client@example.cd', app_metadata: {}, user_metadata: {}, created_at: '2026-01-01T00:00:00Z' },
      }),
    );
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
    qc.setQueryData(myBookingKeys.list(uid), cached());
    const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={qc}>{children}</QueryClientProvider>;
    return { qc, wrapper };
  };

  it('the client keeps the spec settings: heartbeat every 30 s, reconnect after 1, 2, 5, then 10 s', async () => {
    const realtime = (await supabaseClient()).realtime;
    expect(realtime.heartbeatIntervalMs).toBe(30_000);
    expect([1, 2, 3, 4, 5, 9].map((tries) => realtime.reconnectAfterMs(tries))).toEqual([1000, 2000, 5000, 10000, 10000, 10000]);
  });

  it('waits for the user, joins with the access token, applies a status change, leaves on unmount', async () => {
    const { qc, wrapper } = setup();
    const { result, rerender, unmount } = renderHook(({ userId }: { userId: string | undefined }) => useLiveMyBookings(userId), { wrapper, initialProps: { userId: undefined as string | undefined } });
    expect(result.current).toBe('off');
    expect(server.joins()).toHaveLength(0);

    rerender({ userId: uid });
    await waitFor(() => expect(result.current).toBe('live'));
    const join = server.joins().at(-1);
    const topic = join?.[2] as string;
    expect(topic).toMatch(/^realtime:my-bookings:\d+$/);
    expect(join?.[4]).toMatchObject({
      access_token: accessToken,
      config: {
        postgres_changes: ['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings'].map((table) => ({ event: '*', schema: 'public', table, filter: `user_id=eq.${uid}` })),
        postgres_changes_options: { wait: true },
      },
    });
    expect(server.urls.at(-1)).toMatch(/^ws:\/\/127\.0\.0\.1:54321\/realtime\/v1\/websocket\?apikey=anon-key/);
    // joined: the list is read again (changes made before the join were not sent)
    expect(qc.getQueryState(myBookingKeys.list(uid))?.isInvalidated).toBe(true);

    server.change('bookings', 'UPDATE', { ...vehicleRow, booking_status: 'confirmed' }, { id: vehicleRow.id });
    await waitFor(() => expect(qc.getQueryData<MyBooking[]>(myBookingKeys.list(uid))?.find((b) => b.kind === 'vehicle')?.status).toBe('confirmed'));

    unmount();
    await waitFor(() => expect(server.framesOf(topic, 'phx_leave')).toHaveLength(1));
    expect(server.joinedTopics()).not.toContain(topic);
  });

  it('a new booking refetches the list', async () => {
    const { qc, wrapper } = setup();
    const { result, unmount } = renderHook(() => useLiveMyBookings(uid), { wrapper });
    await waitFor(() => expect(result.current).toBe('live'));
    // as if the join's own refetch were done: the cache is fresh again
    qc.setQueryData(myBookingKeys.list(uid), cached());
    expect(qc.getQueryState(myBookingKeys.list(uid))?.isInvalidated).toBe(false);
    server.change('premium_service_bookings', 'INSERT', { id: 'b3000000-0000-4000-8000-000000000003', user_id: uid });
    await waitFor(() => expect(qc.getQueryState(myBookingKeys.list(uid))?.isInvalidated).toBe(true));
    expect(qc.getQueryData<MyBooking[]>(myBookingKeys.list(uid))).toHaveLength(2); // the rental's name needs the read
    unmount();
  });
});
