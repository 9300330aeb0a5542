import { addDaysIso } from '@/lib/format';

/** A taken period of a vehicle, [start, end) in ISO dates, as `vehicle_taken_dates` returns it. */
export interface TakenRange {
  start_date: string;
  end_date: string;
  status: 'booked' | 'held';
}

export type DayState = 'free' | 'booked' | 'held';

/** One state per day from `from` over `days` days; a day both booked and held counts as booked. */
export function dayStates(ranges: TakenRange[], from: string, days: number): { date: string; state: DayState }[] {
  const out: { date: string; state: DayState }[] = [];
  for (let i = 0; i < days; i++) {
    const date = addDaysIso(from, i);
    const taken = ranges.filter((r) => r.start_date <= date && date < r.end_date);
    const state: DayState = taken.some((r) => r.status === 'booked') ? 'booked' : taken.length ? 'held' : 'free';
    out.push({ date, state });
  }
  return out;
}

/**
 * The first day from `from` that starts `length` free days in a row within the window (the
 * next free dates for a rental of that length), or null when there is none in the window.
 */
export function nextFreeStart(ranges: TakenRange[], from: string, windowDays: number, length = 1): string | null {
  const states = dayStates(ranges, from, windowDays);
  let run = 0;
  for (let i = 0; i < states.length; i++) {
    run = states[i]!.state === 'free' ? run + 1 : 0;
    if (run >= length) return states[i - length + 1]!.date;
  }
  return null;
}

/** Weeks (Monday first) covering the month of `monthIso` (yyyy-MM-01), days outside it as null. */
export function monthGrid(monthIso: string): (string | null)[][] {
  const [y, m] = monthIso.split('-').map(Number) as [number, number];
  const first = new Date(Date.UTC(y, m - 1, 1));
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const lead = (first.getUTCDay() + 6) % 7;
  const cells: (string | null)[] = Array.from({ length: lead }, () => null);
  for (let d = 1; d <= daysInMonth; d++) cells.push(`${monthIso.slice(0, 8)}${String(d).padStart(2, '0')}`);
  while (cells.length % 7) cells.push(null);
  const weeks: (string | null)[][] = [];
  for (let i = 0; i < cells.length; i += 7) weeks.push(cells.slice(i, i + 7));
  return weeks;
}
