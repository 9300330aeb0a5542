import { describe, expect, it } from 'vitest';
import { clashesOf, dayIndex, layoutCalendar } from './calendar';
import type { AdminBooking } from '../types';

const booking = (id: string, vehicle: string, date: string, end: string, status: AdminBooking['booking_status']): AdminBooking => ({
  kind: 'vehicle',
  id,
  user_id: null,
  booking_status: status,
  total_amount: 0,
  created_at: '2026-11-01T00:00:00Z',
  updated_at: null,
  customer: { full_name: 'X', email: null, phone: null, role: null },
  subject: 'V',
  detail: '',
  date,
  end,
  raw: { vehicle_id: vehicle },
});

describe('layoutCalendar', () => {
  it('places each rental as a bar of its occupied days, cut at the window', () => {
    const [row] = layoutCalendar(['v1'], [booking('a', 'v1', '2026-12-03', '2026-12-06', 'confirmed'), booking('b', 'v1', '2026-11-28', '2026-12-02', 'active')], '2026-12-01', 14);
    expect(row!.bars.map((b) => [b.booking.id, b.start, b.span, b.cutStart, b.cutEnd, b.lane])).toEqual([
      ['b', 0, 1, true, false, 0],
      ['a', 2, 3, false, false, 0],
    ]);
    expect(row!.lanes).toBe(1);
  });

  it('puts overlapping bookings in separate lanes and flags the clash both ways', () => {
    const rows = layoutCalendar(
      ['v1', 'v2'],
      [booking('c', 'v1', '2026-12-03', '2026-12-06', 'confirmed'), booking('p', 'v1', '2026-12-05', '2026-12-08', 'pending'), booking('q', 'v2', '2026-12-05', '2026-12-08', 'pending')],
      '2026-12-01',
      14,
    );
    const bars = rows[0]!.bars;
    expect(bars.map((b) => [b.booking.id, b.lane, b.clashes])).toEqual([
      ['c', 0, ['p']],
      ['p', 1, ['c']],
    ]);
    expect(rows[0]!.lanes).toBe(2);
    expect(rows[1]!.bars[0]!.clashes).toEqual([]);
  });

  it('leaves out cancelled and completed bookings, other kinds, and what falls outside the window', () => {
    const service = { ...booking('s', 'v1', '2026-12-03', '2026-12-04', 'pending'), kind: 'airport' as const };
    const [row] = layoutCalendar(['v1'], [booking('x', 'v1', '2026-12-03', '2026-12-06', 'cancelled'), booking('y', 'v1', '2027-01-03', '2027-01-06', 'confirmed'), service], '2026-12-01', 14);
    expect(row!.bars).toEqual([]);
  });

  it('a same-day rental takes its day; the return day is free for the next rental', () => {
    const a = booking('a', 'v1', '2026-12-03', '2026-12-03', 'confirmed');
    const b = booking('b', 'v1', '2026-12-04', '2026-12-05', 'pending');
    expect(clashesOf(b, [a, b])).toEqual([]);
    expect(layoutCalendar(['v1'], [a], '2026-12-01', 7)[0]!.bars[0]!.span).toBe(1);
  });
});

describe('dayIndex', () => {
  it('counts days across a month end', () => {
    expect(dayIndex('2026-11-30', '2026-12-02')).toBe(2);
  });
});
