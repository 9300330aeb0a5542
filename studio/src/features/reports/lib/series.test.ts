import { describe, expect, it } from 'vitest';
import type { Bucket } from '../api/reports';
import {
  byteUnit,
  cacheHitRatio,
  connectionsByState,
  errorRate,
  formatBytes,
  formatPercent,
  latency,
  realtimeConnections,
  requestsBySurface,
  storageByBucket,
  surfacesOf,
} from './series';

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
  db_connections: {},
  cache_hit_ratio: null,
  storage_bytes: {},
  realtime_connections: null,
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

describe('the sampled figures', () => {
  const SAMPLED = [
    bucket('2026-12-06T12:00:00Z', {}),
    bucket('2026-12-06T12:01:00Z', {}, { db_connections: { idle: 4, active: 1 }, cache_hit_ratio: 0.99, storage_bytes: { avatars: 2048 }, realtime_connections: 3 }),
    bucket('2026-12-06T12:02:00Z', {}, { db_connections: { idle: 5 }, cache_hit_ratio: 0.5, storage_bytes: { avatars: 3072, docs: 1024 }, realtime_connections: 0 }),
  ];

  it('draws one connection series per state, busiest first, 0 where a sampled bucket lacks it and a gap where nothing was sampled', () => {
    const data = connectionsByState(SAMPLED);
    expect(data.series).toEqual([
      { label: 'idle', values: [null, 4, 5] },
      { label: 'active', values: [null, 1, 0] },
    ]);
  });

  it('gives the cache hit ratio in percent and the realtime sockets as sampled', () => {
    expect(cacheHitRatio(SAMPLED).series[0]?.values).toEqual([null, 99, 50]);
    expect(realtimeConnections(SAMPLED).series[0]?.values).toEqual([null, 3, 0]);
  });

  it('draws storage per bucket in the unit of the largest value', () => {
    const { data, unit } = storageByBucket(SAMPLED);
    expect(unit).toBe('KiB');
    expect(data.series).toEqual([
      { label: 'avatars', values: [null, 2, 3] },
      { label: 'docs', values: [null, 0, 1] },
    ]);
    expect(byteUnit(0)).toEqual({ unit: 'B', scale: 1 });
    expect(byteUnit(5 * 1024 ** 3)).toEqual({ unit: 'GiB', scale: 1024 ** 3 });
  });

  it('draws an empty line when nothing was sampled', () => {
    expect(connectionsByState([bucket('2026-12-06T12:00:00Z', {})]).series).toEqual([{ label: 'connections', values: [null] }]);
    expect(storageByBucket([bucket('2026-12-06T12:00:00Z', {})]).data.series).toEqual([{ label: 'no bucket', values: [null] }]);
  });
});
