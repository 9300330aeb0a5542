import { beforeEach, describe, expect, it, vi } from 'vitest';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen } from '@testing-library/react';
import { AppError } from '@/lib/errors';
import { normalizeBooking, updateBooking, updateBookingStatus } from './api/bookings';
import { BookingEditDialog } from './components/booking-edit-dialog';
import { bookingStatusChoices, nextBookingStatuses } from './lib/labels';

// The one supabase client, faked: records each update with its filters and answers `answer`.
const calls: { table: string; values: unknown; filters: [string, unknown][] }[] = [];
let answer: { data: unknown; error: unknown };
vi.mock('@/lib/supabase', () => ({
  supabase: () => ({
    from: (table: string) => ({
      update: (values: unknown) => {
        const call = { table, values, filters: [] as [string, unknown][] };
        calls.push(call);
        const chain = {
          eq: (column: string, value: unknown) => {
            call.filters.push([column, value]);
            return chain;
          },
          select: async () => answer,
        };
        return chain;
      },
    }),
  }),
}));

const row = {
  id: 'b1000000-0000-4000-8000-000000000001', user_id: 'u1', vehicle_id: 'v', start_date: '2026-11-22', end_date: '2026-11-24', total_amount: 180,
  booking_status: 'pending', created_at: '2026-11-20T10:00:00+00:00', updated_at: '2026-11-20T10:00:00.123456+00:00',
  pickup_location: 'Gombe', dropoff_location: null, special_requests: null,
};
const booking = normalizeBooking('vehicle', row, {});

beforeEach(() => {
  calls.length = 0;
  answer = { data: [{ id: row.id }], error: null };
});

describe('the status state machine the database enforces', () => {
  it('pending → confirmed or cancelled, confirmed → active or cancelled, active → completed; completed and cancelled are final', () => {
    expect(nextBookingStatuses).toEqual({
      pending: ['confirmed', 'cancelled'],
      confirmed: ['active', 'cancelled'],
      active: ['completed'],
      completed: [],
      cancelled: [],
    });
  });
  it('a selector offers the current status first, then where it may go', () => {
    expect(bookingStatusChoices('pending')).toEqual(['pending', 'confirmed', 'cancelled']);
    expect(bookingStatusChoices('cancelled')).toEqual(['cancelled']);
  });
});

describe('conditional updates of the back office', () => {
  it('a status change applies only if the booking still has the status shown', async () => {
    await updateBookingStatus('airport', 'a1', 'pending', 'confirmed');
    expect(calls).toEqual([{ table: 'airport_bookings', values: { booking_status: 'confirmed' }, filters: [['id', 'a1'], ['booking_status', 'pending']] }]);
  });
  it('when no row matched, someone changed it meanwhile: « Cette réservation a été modifiée entre-temps »', async () => {
    answer = { data: [], error: null };
    const failure = updateBookingStatus('vehicle', 'b1', 'pending', 'confirmed');
    await expect(failure).rejects.toBeInstanceOf(AppError);
    await expect(failure).rejects.toMatchObject({ code: 'booking_changed', message: 'Cette réservation a été modifiée entre-temps' });
  });
  it("a refusal of the database keeps its own message (a vehicle already taken)", async () => {
    answer = { data: null, error: { code: 'PT409', message: 'Ce véhicule est déjà réservé sur ces dates' } };
    await expect(updateBookingStatus('vehicle', 'b1', 'pending', 'confirmed')).rejects.toMatchObject({ code: 'PT409', message: 'Ce véhicule est déjà réservé sur ces dates.' });
  });
  it('an edit applies only if the booking is as shown (same updated_at)', async () => {
    await updateBooking('vehicle', booking.id, { pickup_location: 'Limete' }, booking);
    expect(calls[0]?.filters).toEqual([['id', booking.id], ['updated_at', '2026-11-20T10:00:00.123456+00:00']]);
    answer = { data: [], error: null };
    await expect(updateBooking('vehicle', booking.id, { pickup_location: 'Limete' }, booking)).rejects.toMatchObject({ code: 'booking_changed' });
  });
});

describe('the edit dialog when it loses the race', () => {
  it('says « Cette réservation a été modifiée entre-temps » and stays open; its status choices are the allowed ones', async () => {
    answer = { data: [], error: null };
    const onClose = vi.fn();
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { mutations: { retry: false } } })}>
        <BookingEditDialog booking={booking} onClose={onClose} />
      </QueryClientProvider>,
    );
    const status = await screen.findByLabelText('Statut');
    expect([...(status as HTMLSelectElement).options].map((o) => o.value)).toEqual(['pending', 'confirmed', 'cancelled']);
    fireEvent.change(screen.getByLabelText('Lieu de prise en charge'), { target: { value: 'Limete' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sauvegarder' }));
    expect(await screen.findByText('Cette réservation a été modifiée entre-temps')).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
    expect(calls[0]?.filters).toContainEqual(['updated_at', row.updated_at]);
  });
});
