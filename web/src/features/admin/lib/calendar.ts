/**
 * The fleet calendar's layout (vehicles x days): each rental as a bar from its first to its last
 * occupied day within the window, bars that overlap on one vehicle in separate lanes, and the
 * clashes flagged: a pending request whose dates overlap a confirmed or active rental of the same
 * vehicle (confirming it would be refused), or two pending requests on the same dates.
 */
import { addDaysIso } from '@/lib/format';
import type { AdminBooking } from '../types';

export interface CalendarBar {
  booking: AdminBooking;
  /** 0-based column of the first day shown, and the number of days shown. */
  start: number;
  span: number;
  lane: number;
  /** the bar goes on before or after the window */
  cutStart: boolean;
  cutEnd: boolean;
  /** ids of the bookings it clashes with */
  clashes: string[];
}

export interface CalendarRow {
  vehicleId: string;
  bars: CalendarBar[];
  lanes: number;
}

const LIVE = new Set(['pending', 'confirmed', 'active']);

/** The days a rental occupies, [start, end) with a same-day rental taking its day. */
function occupied(b: AdminBooking): [string, string] | null {
  if (!b.date) return null;
  const end = b.end && b.end > b.date ? b.end : addDaysIso(b.date, 1);
  return [b.date, end];
}

function overlaps(a: [string, string], b: [string, string]) {
  return a[0] < b[1] && b[0] < a[1];
}

/** The clashes of `b` among the other live rentals of its vehicle. */
export function clashesOf(b: AdminBooking, sameVehicle: AdminBooking[]): string[] {
  const span = occupied(b);
  if (!span || b.booking_status !== 'pending') {
    // a confirmed rental clashes with the pending requests on its dates (seen from their side too)
    if (!span || !LIVE.has(b.booking_status)) return [];
    return sameVehicle.filter((o) => o.id !== b.id && o.booking_status === 'pending' && overlaps(span, occupied(o) ?? ['', ''])).map((o) => o.id);
  }
  return sameVehicle.filter((o) => o.id !== b.id && LIVE.has(o.booking_status) && overlaps(span, occupied(o) ?? ['', ''])).map((o) => o.id);
}

export function layoutCalendar(vehicleIds: string[], bookings: AdminBooking[], from: string, days: number): CalendarRow[] {
  const to = addDaysIso(from, days);
  const byVehicle = new Map<string, AdminBooking[]>();
  for (const b of bookings) {
    const vid = b.kind === 'vehicle' ? (b.raw.vehicle_id as string | undefined) : undefined;
    if (!vid || !LIVE.has(b.booking_status)) continue;
    byVehicle.set(vid, [...(byVehicle.get(vid) ?? []), b]);
  }
  return vehicleIds.map((vehicleId) => {
    const mine = (byVehicle.get(vehicleId) ?? []).sort((a, b) => (a.date ?? '').localeCompare(b.date ?? ''));
    const laneEnds: string[] = [];
    const bars: CalendarBar[] = [];
    for (const b of mine) {
      const span = occupied(b);
      if (!span || !overlaps(span, [from, to])) continue;
      let lane = laneEnds.findIndex((end) => end <= span[0]);
      if (lane === -1) lane = laneEnds.push(span[1]) - 1;
      else laneEnds[lane] = span[1];
      const first = span[0] < from ? from : span[0];
      const last = span[1] > to ? to : span[1];
      bars.push({
        booking: b,
        start: dayIndex(from, first),
        span: dayIndex(first, last),
        lane,
        cutStart: span[0] < from,
        cutEnd: span[1] > to,
        clashes: clashesOf(b, mine),
      });
    }
    return { vehicleId, bars, lanes: Math.max(1, laneEnds.length) };
  });
}

/** Whole days from `a` to `b` (ISO dates). */
export function dayIndex(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}
