/** Report buckets turned into the column arrays a chart draws (x in Unix seconds), and number formats. */
import type { Bucket } from '../api/reports';

export type Series = { label: string; values: (number | null)[] };
export type ChartData = { x: number[]; series: Series[] };

/** Surfaces in a stable order: the busiest first, then by name. */
export function surfacesOf(buckets: Bucket[]): string[] {
  const totals = new Map<string, number>();
  for (const b of buckets) for (const [s, v] of Object.entries(b.by_surface)) totals.set(s, (totals.get(s) ?? 0) + v);
  return [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([s]) => s);
}

const xOf = (buckets: Bucket[]) => buckets.map((b) => Math.floor(new Date(b.at).getTime() / 1000));

/** Requests per second, one series per surface (0 where a bucket has none). */
export function requestsBySurface(buckets: Bucket[]): ChartData {
  const surfaces = surfacesOf(buckets);
  return {
    x: xOf(buckets),
    series: surfaces.length
      ? surfaces.map((s) => ({ label: s, values: buckets.map((b) => b.by_surface[s] ?? 0) }))
      : [{ label: 'all', values: buckets.map(() => 0) }],
  };
}

/** p50, p95, p99 latency (null where a bucket has no request: the line breaks). */
export function latency(buckets: Bucket[]): ChartData {
  return {
    x: xOf(buckets),
    series: [
      { label: 'p50', values: buckets.map((b) => b.p50_ms) },
      { label: 'p95', values: buckets.map((b) => b.p95_ms) },
      { label: 'p99', values: buckets.map((b) => b.p99_ms) },
    ],
  };
}

/** Share of answers that were 5xx and 4xx, in percent (null where a bucket has no request). */
export function errorRate(buckets: Bucket[]): ChartData {
  const pct = (n: number, total: number) => (total > 0 ? (100 * n) / total : null);
  return {
    x: xOf(buckets),
    series: [
      { label: '5xx %', values: buckets.map((b) => pct(b.errors, b.requests)) },
      { label: '4xx %', values: buckets.map((b) => pct(b.client_errors, b.requests)) },
    ],
  };
}

export function activeUsers(buckets: Bucket[]): ChartData {
  return { x: xOf(buckets), series: [{ label: 'users', values: buckets.map((b) => b.active_users) }] };
}

/** A bucket holds samples when the sampler wrote in it (it writes the realtime count every round). */
const sampled = (b: Bucket) => b.realtime_connections !== null;

/** Keys of a per-key figure, the largest on average first, then by name. */
function keysOf(buckets: Bucket[], pick: (b: Bucket) => Record<string, number>): string[] {
  const totals = new Map<string, number>();
  for (const b of buckets) for (const [k, v] of Object.entries(pick(b))) totals.set(k, (totals.get(k) ?? 0) + v);
  return [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k]) => k);
}

/** One series per key (0 where a sampled bucket lacks it, null where nothing was sampled), scaled by `scale`. */
function perKey(buckets: Bucket[], pick: (b: Bucket) => Record<string, number>, empty: string, scale = 1): ChartData {
  const keys = keysOf(buckets, pick);
  return {
    x: xOf(buckets),
    series: keys.length
      ? keys.map((k) => ({ label: k, values: buckets.map((b) => (sampled(b) ? (pick(b)[k] ?? 0) / scale : null)) }))
      : [{ label: empty, values: buckets.map(() => null) }],
  };
}

/** Database connections, one series per state (pg_stat_activity's, sampled). */
export const connectionsByState = (buckets: Bucket[]) => perKey(buckets, (b) => b.db_connections, 'connections');

/** Cache hit ratio in percent (null where not sampled). */
export function cacheHitRatio(buckets: Bucket[]): ChartData {
  return { x: xOf(buckets), series: [{ label: 'hit %', values: buckets.map((b) => (b.cache_hit_ratio === null ? null : 100 * b.cache_hit_ratio)) }] };
}

/** The unit that shows `max` bytes with a few digits, and its size in bytes. */
export function byteUnit(max: number): { unit: string; scale: number } {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (max >= 1024 ** (i + 1) && i < units.length - 1) i++;
  return { unit: units[i] ?? 'B', scale: 1024 ** i };
}

/** Storage used, one series per bucket, in the unit that fits the largest value. */
export function storageByBucket(buckets: Bucket[]): { data: ChartData; unit: string } {
  const max = Math.max(0, ...buckets.flatMap((b) => Object.values(b.storage_bytes)));
  const { unit, scale } = byteUnit(max);
  return { data: perKey(buckets, (b) => b.storage_bytes, 'no bucket', scale), unit };
}

/** Realtime sockets open, summed over the instances. */
export function realtimeConnections(buckets: Bucket[]): ChartData {
  return { x: xOf(buckets), series: [{ label: 'sockets', values: buckets.map((b) => b.realtime_connections) }] };
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export const formatPercent = (ratio: number | null) => (ratio === null ? '—' : `${(ratio * 100).toFixed(ratio > 0.999 && ratio < 1 ? 2 : 1)} %`);
