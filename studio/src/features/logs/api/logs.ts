import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';
import { requestsQuery, type RequestFilters } from '../lib/filters';

export const PAGE_SIZE = 100;
/** How many new rows one poll of the live tail may bring. */
export const TAIL_SIZE = 500;
/** The live tail's poll, in milliseconds. */
export const TAIL_EVERY_MS = 2000;

export const logKeys = {
  all: ['logs'] as const,
  requests: (f: RequestFilters) => ['logs', 'requests', f] as const,
  tail: (f: RequestFilters, after: number) => ['logs', 'requests', 'tail', f, after] as const,
  request: (id: number) => ['logs', 'request', id] as const,
  postgres: (level: string, q: string) => ['logs', 'postgres', level, q] as const,
  auth: (q: string) => ['logs', 'auth', q] as const,
};

const entrySchema = z.object({
  id: z.number(),
  at: z.string(),
  surface: z.string(),
  method: z.string(),
  path: z.string(),
  route: z.string().nullable(),
  status: z.number(),
  duration_ms: z.number(),
  request_id: z.string(),
  user_id: z.string().nullable(),
  role: z.string().nullable(),
  bytes: z.number().nullable(),
});
export type LogEntry = z.infer<typeof entrySchema>;

const pageSchema = z.object({
  enabled: z.boolean(),
  retention_hours: z.number(),
  entries: z.array(entrySchema),
  next_before: z.number().nullable(),
});
export type RequestPage = z.infer<typeof pageSchema>;

/** The requests matching the filters, newest first, older pages on demand (keyset on the id). */
export function useRequestLog(filters: RequestFilters) {
  return useInfiniteQuery({
    queryKey: logKeys.requests(filters),
    initialPageParam: undefined as number | undefined,
    queryFn: ({ pageParam, signal }) => api(`/logs/requests${requestsQuery(filters, new Date(), { before: pageParam }, PAGE_SIZE)}`, pageSchema, { signal }),
    getNextPageParam: (last) => last.next_before ?? undefined,
  });
}

/** While `live`, the rows newer than `after` every two seconds. */
export function useRequestTail(filters: RequestFilters, after: number, live: boolean) {
  return useQuery({
    queryKey: logKeys.tail(filters, after),
    queryFn: ({ signal }) => api(`/logs/requests${requestsQuery(filters, new Date(), { after }, TAIL_SIZE)}`, pageSchema, { signal }),
    enabled: live,
    refetchInterval: live ? TAIL_EVERY_MS : false,
  });
}

const detailSchema = z.object({ entry: entrySchema, same_request_id: z.array(entrySchema) });

export function useRequestDetail(id: number | null) {
  return useQuery({
    queryKey: logKeys.request(id ?? 0),
    queryFn: ({ signal }) => api(`/logs/requests/${id}`, detailSchema, { signal }),
    enabled: id !== null,
  });
}

const pgLogSchema = z.object({
  available: z.boolean(),
  reason: z.string().optional(),
  file: z.string().nullish(),
  lines: z.array(z.object({ level: z.string().nullable(), text: z.string() })),
});
export type PgLog = z.infer<typeof pgLogSchema>;

/** The tail of the embedded cluster's log, refreshed every two seconds while `live`. */
export function usePostgresLog(level: string, q: string, live: boolean) {
  const params = new URLSearchParams({ level, limit: '500' });
  if (q.trim()) params.set('q', q.trim());
  return useQuery({
    queryKey: logKeys.postgres(level, q.trim()),
    queryFn: ({ signal }) => api(`/logs/postgres?${params.toString()}`, pgLogSchema, { signal }),
    refetchInterval: live ? TAIL_EVERY_MS : false,
    placeholderData: keepPreviousData,
  });
}

const authEntrySchema = z.object({
  id: z.string(),
  at: z.string().nullable(),
  ip: z.string(),
  action: z.unknown(),
  actor: z.unknown(),
  payload: z.unknown(),
});
export type AuthLogEntry = z.infer<typeof authEntrySchema>;

/** `auth.audit_log_entries`, newest first, older pages on demand. */
export function useAuthLog(q: string) {
  return useInfiniteQuery({
    queryKey: logKeys.auth(q.trim()),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) => {
      const params = new URLSearchParams({ limit: '100' });
      if (q.trim()) params.set('q', q.trim());
      if (pageParam) params.set('before', pageParam);
      return api(`/logs/auth?${params.toString()}`, z.object({ entries: z.array(authEntrySchema), next_before: z.string().nullable() }), { signal });
    },
    getNextPageParam: (last) => last.next_before ?? undefined,
  });
}
