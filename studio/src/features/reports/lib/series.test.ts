import { describe, expect, it } from 'vitest';
import type { Bucket } from '../api/reports';
import { errorRate, formatBytes, formatPercent, latency, requestsBySurface, surfacesOf } from './series';

const bucket = (at: string, by: Record<string, number>, extra: Partial<Bucket> = {}): Bucket => ({
  at,
  requests: Object.values(by).reduce((a, b) => a + b, 0) * 60,
  per_second: 0,
  by_surface: by,
  errors: 0,
  client_errors: 0,
  p50_ms: null,
  p95_ms: null,
  p99_ms: null,
  active_users: 0,
  ...extra,
});

const BUCKETS = [
  bucket('2026-12-06T12:00:00Z', { rest: 1, auth: 0.5 }),
  bucket('2026-12-06T12:01:00Z', {}),
  bucket('2026-12-06T12:02:00Z', { storage: 2 }, { requests: 10, errors: 1, client_errors: 2, p50_ms: 3, p95_ms: 9, p99_ms: 12 }),
];

describe('requestsBySurface', () => {
  it('has one series per surface, busiest first, with zeros where a bucket has none', () => {
    expect(surfacesOf(BUCKETS)).toEqual(['storage', 'rest', 'auth']);
    const data = requestsBySurface(BUCKETS);
    expect(data.x).toEqual([1796558400, 1796558460, 1796558520]);
    expect(data.series[0]).toEqual({ label: 'storage', values: [0, 0, 2] });
  });

  it('draws a flat line when nothing was recorded', () => {
    expect(requestsBySurface([bucket('2026-12-06T12:00:00Z', {})]).series).toEqual([{ label: 'all', values: [0] }]);
  });
});

it('breaks the latency line where there was no request', () => {
  expect(latency(BUCKETS).series[1]?.values).toEqual([null, null, 9]);
});

it('gives error rates in percent of the bucket', () => {
  const rates = errorRate(BUCKETS);
  expect(rates.series[0]?.values[2]).toBe(10);
  expect(rates.series[1]?.values[2]).toBe(20);
  expect(rates.series[0]?.values[1]).toBeNull();
});

it('formats sizes and ratios', () => {
  expect(formatBytes(512)).toBe('512 B');
  expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
  expect(formatPercent(0.5)).toBe('50.0 %');
  expect(formatPercent(null)).toBe('—');
});
