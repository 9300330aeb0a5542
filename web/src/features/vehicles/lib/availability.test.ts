import { describe, expect, it } from 'vitest';
import { dayStates, monthGrid, nextFreeStart, type TakenRange } from './availability';

const ranges: TakenRange[] = [
  { start_date: '2026-12-03', end_date: '2026-12-05', status: 'booked' },
  { start_date: '2026-12-04', end_date: '2026-12-07', status: 'held' },
];

describe('dayStates', () => {
  it('marks each day free, held or booked, the end day free again', () => {
    expect(dayStates(ranges, '2026-12-02', 6).map((d) => `${d.date.slice(8)}:${d.state}`)).toEqual(['02:free', '03:booked', '04:booked', '05:held', '06:held', '07:free']);
  });
});

describe('nextFreeStart', () => {
  it('finds the first day free, and the first run of free days long enough', () => {
    expect(nextFreeStart(ranges, '2026-12-03', 30)).toBe('2026-12-07');
    expect(nextFreeStart(ranges, '2026-12-01', 30, 3)).toBe('2026-12-07');
    expect(nextFreeStart(ranges, '2026-12-01', 30, 2)).toBe('2026-12-01');
  });
  it('says null when the window has no such run', () => {
    expect(nextFreeStart([{ start_date: '2026-12-01', end_date: '2027-01-01', status: 'booked' }], '2026-12-01', 31)).toBeNull();
  });
});

describe('monthGrid', () => {
  it('lays a month out in weeks starting on Monday', () => {
    const weeks = monthGrid('2026-12-01'); // 1 December 2026 is a Tuesday
    expect(weeks[0]).toEqual([null, '2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04', '2026-12-05', '2026-12-06']);
    expect(weeks.at(-1)).toEqual(['2026-12-28', '2026-12-29', '2026-12-30', '2026-12-31', null, null, null]);
    expect(weeks.flat().filter(Boolean)).toHaveLength(31);
  });
});
