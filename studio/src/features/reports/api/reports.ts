import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';

export const PERIODS = ['15m', '1h', '24h', '7d'] as const;
export type Period = (typeof PERIODS)[number];

export const reportKeys = { report: (period: Period) => ['reports', period] as const };

const bucketSchema = z.object({
  at: z.string(),
  requests: z.number(),
  per_second: z.number(),
  by_surface: z.record(z.string(), z.number()),
  errors: z.number(),
  client_errors: z.number(),
  p50_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  p99_ms: z.number().nullable(),
  active_users: z.number(),
  // The sampler's figures (means over the bucket; null and empty where nothing was sampled).
  db_connections: z.record(z.string(), z.number()),
  cache_hit_ratio: z.number().nullable(),
  storage_bytes: z.record(z.string(), z.number()),
  realtime_connections: z.number().nullable(),
});
export type Bucket = z.infer<typeof bucketSchema>;

const reportSchema = z.object({
  period: z.enum(PERIODS),
  bucket_seconds: z.number(),
  request_log_enabled: z.boolean(),
  /** Seconds between two samples of the database, storage and realtime figures (0: not sampled). */
  sample_seconds: z.number(),
  buckets: z.array(bucketSchema),
  totals: z.object({
    requests: z.number(),
    errors: z.number(),
    client_errors: z.number(),
    error_rate: z.number(),
    p50_ms: z.number().nullable(),
    p95_ms: z.number().nullable(),
    p99_ms: z.number().nullable(),
    active_users: z.number(),
  }),
  database: z.object({
    connections: z.array(z.object({ state: z.string(), count: z.number() })),
    max_connections: z.number().nullable(),
    cache_hit_ratio: z.number().nullable(),
  }),
  statements: z.object({
    available: z.boolean(),
    reason: z.string().optional(),
    hint: z.string().optional(),
    rows: z.array(z.object({ query: z.string(), calls: z.number(), total_ms: z.number(), mean_ms: z.number(), rows: z.number() })),
  }),
  storage: z.array(z.object({ bucket: z.string(), objects: z.number(), bytes: z.number() })),
  realtime: z.object({ connections: z.number(), channels: z.number() }),
});
export type Report = z.infer<typeof reportSchema>;

/** How often a report is fetched again while on screen: the bucket width, between 5 s and a minute. */
export const refreshMs = (period: Period) => ({ '15m': 5000, '1h': 10_000, '24h': 60_000, '7d': 60_000 })[period];

export function useReport(period: Period) {
  return useQuery({
    queryKey: reportKeys.report(period),
    queryFn: ({ signal }) => api(`/reports?period=${period}`, reportSchema, { signal }),
    refetchInterval: refreshMs(period),
    placeholderData: keepPreviousData,
  });
}
