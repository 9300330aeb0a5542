/** The log explorer's filters, the time range they cover and the query string the server reads. */
import { z } from 'zod';

export const SURFACES = ['rest', 'auth', 'storage', 'realtime', 'functions', 'studio', 'platform', 'site'] as const;
export const STATUSES = ['2xx', '3xx', '4xx', '5xx', 'error'] as const;
export const RANGES = ['15m', '1h', '24h', '7d', 'all', 'custom'] as const;
export type Range = (typeof RANGES)[number];

const RANGE_MS: Record<Exclude<Range, 'all' | 'custom'>, number> = {
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
};

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const requestId = /^[A-Za-z0-9_-]{1,64}$/;

/** The filter form: what the operator typed, checked before it is sent. */
export const filtersSchema = z
  .object({
    surface: z.union([z.literal(''), z.enum(SURFACES)]),
    path: z.string().trim().max(200),
    status: z.union([z.literal(''), z.enum(STATUSES), z.string().regex(/^[1-5]\d\d$/, 'A status class or code')]),
    user: z.string().trim().refine((v) => v === '' || uuid.test(v), 'A user id is a UUID'),
    requestId: z.string().trim().refine((v) => v === '' || requestId.test(v), 'Letters, digits, - and _ only'),
    range: z.enum(RANGES),
    from: z.string(),
    to: z.string(),
  })
  .refine((f) => f.range !== 'custom' || f.from !== '', { message: 'Pick where the range starts', path: ['from'] })
  .refine((f) => f.range !== 'custom' || f.to === '' || f.from === '' || new Date(f.from) < new Date(f.to), {
    message: 'The end comes after the start',
    path: ['to'],
  });
export type RequestFilters = z.infer<typeof filtersSchema>;

export const NO_FILTERS: RequestFilters = { surface: '', path: '', status: '', user: '', requestId: '', range: '24h', from: '', to: '' };

/** A `datetime-local` value (the browser's local time) as an ISO instant. */
function localToIso(value: string): string | undefined {
  if (!value) return undefined;
  const t = new Date(value);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
}

/** The instants the range covers (`undefined`: open on that side). */
export function rangeBounds(f: Pick<RequestFilters, 'range' | 'from' | 'to'>, now: Date): { from?: string; to?: string } {
  if (f.range === 'all') return {};
  if (f.range === 'custom') return { from: localToIso(f.from), to: localToIso(f.to) };
  return { from: new Date(now.getTime() - RANGE_MS[f.range]).toISOString() };
}

/** `?surface=…&path=…&status=…&user=…&request_id=…&from=…&to=…&before=|after=…&limit=…`: only what is set. */
export function requestsQuery(f: RequestFilters, now: Date, page: { before?: number; after?: number }, limit: number): string {
  const params = new URLSearchParams();
  if (f.surface) params.set('surface', f.surface);
  if (f.path.trim()) params.set('path', f.path.trim());
  if (f.status) params.set('status', f.status);
  if (f.user.trim()) params.set('user', f.user.trim());
  if (f.requestId.trim()) params.set('request_id', f.requestId.trim());
  const { from, to } = rangeBounds(f, now);
  // The live tail asks for what is newer than it has: the start of a rolling range does not apply.
  if (from && page.after === undefined) params.set('from', from);
  if (to) params.set('to', to);
  if (page.before !== undefined) params.set('before', String(page.before));
  if (page.after !== undefined) params.set('after', String(page.after));
  params.set('limit', String(limit));
  return `?${params.toString()}`;
}

/** Rows newly seen by the live tail put before those already shown: newest first, each id once, at most `max`. */
export function mergeNewest<T extends { id: number }>(newer: T[], shown: T[], max: number): T[] {
  const seen = new Set<number>();
  const out: T[] = [];
  for (const row of [...newer, ...shown].sort((a, b) => b.id - a.id)) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    out.push(row);
    if (out.length >= max) break;
  }
  return out;
}

/** The colour of a status, by class. */
export function statusTone(status: number): 'emerald' | 'slate' | 'amber' | 'red' {
  if (status >= 500) return 'red';
  if (status >= 400) return 'amber';
  if (status >= 300) return 'slate';
  return 'emerald';
}
