import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, API_BASE } from '@/lib/api';

export const tableKeys = {
  schemas: ['schemas'] as const,
  tables: (schema: string) => ['tables', schema] as const,
  relation: (schema: string, table: string) => ['relation', schema, table] as const,
  rows: (schema: string, table: string) => ['rows', schema, table] as const,
  page: (schema: string, table: string, query: RowQuery) => ['rows', schema, table, query] as const,
};

const tableSchema = z.object({ name: z.string(), kind: z.string(), estimated_rows: z.number().nullable(), rls: z.boolean() });
export type TableSummary = z.infer<typeof tableSchema>;

export const columnSchema = z.object({
  name: z.string(),
  type_name: z.string(),
  udt: z.string(),
  category: z.string(),
  nullable: z.boolean(),
  default: z.string().nullable(),
  read_only: z.boolean(),
  /** An identity column (always or by default): a duplicated row leaves it to its sequence. */
  identity: z.boolean().optional(),
  enum_values: z.array(z.string()).nullable(),
});
export type Column = z.infer<typeof columnSchema>;

const relationSchema = z.object({
  schema: z.string(),
  name: z.string(),
  kind: z.string(),
  columns: z.array(columnSchema),
  primary_key: z.array(z.string()),
});
export type Relation = z.infer<typeof relationSchema>;

export type Row = Record<string, unknown>;
export type FilterOp = 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'like' | 'ilike' | 'is_null' | 'not_null';
export type Filter = { column: string; op: FilterOp; value?: unknown };
export type Sort = { column: string; desc: boolean };
export type RowQuery = { filters: Filter[]; sort: Sort[] };

const cursorSchema = z.union([z.object({ after: z.record(z.string(), z.unknown()) }), z.object({ offset: z.number() })]).nullable();
const pageSchema = z.object({
  rows: z.array(z.record(z.string(), z.unknown())),
  next: cursorSchema,
  paging: z.enum(['keyset', 'offset']),
  elapsed_ms: z.number(),
});
export type RowPage = z.infer<typeof pageSchema>;

export const PAGE_SIZE = 200;

const path = (schema: string, table: string) => `/tables/${encodeURIComponent(schema)}/${encodeURIComponent(table)}`;

export function useSchemas() {
  return useQuery({ queryKey: tableKeys.schemas, queryFn: () => api('/schemas', z.object({ schemas: z.array(z.string()) })).then((r) => r.schemas) });
}

export function useTables(schema: string) {
  return useQuery({
    queryKey: tableKeys.tables(schema),
    queryFn: () => api(`/tables?schema=${encodeURIComponent(schema)}`, z.object({ tables: z.array(tableSchema) })).then((r) => r.tables),
  });
}

export function useRelation(schema: string, table: string, enabled = true) {
  return useQuery({ queryKey: tableKeys.relation(schema, table), queryFn: () => api(path(schema, table), relationSchema), enabled });
}

export function fetchRows(schema: string, table: string, query: RowQuery, cursor: z.infer<typeof cursorSchema>, signal?: AbortSignal) {
  const q = JSON.stringify({ ...query, limit: PAGE_SIZE, ...(cursor ?? {}) });
  return api(`${path(schema, table)}/rows?q=${encodeURIComponent(q)}`, pageSchema, { signal });
}

/** Pages of rows, the next one asked for with the cursor the server gave. */
export function useRows(schema: string, table: string, query: RowQuery) {
  return useInfiniteQuery({
    queryKey: tableKeys.page(schema, table, query),
    queryFn: ({ pageParam, signal }) => fetchRows(schema, table, query, pageParam, signal),
    initialPageParam: null as z.infer<typeof cursorSchema>,
    getNextPageParam: (last) => last.next,
  });
}

const rowResult = z.object({ row: z.record(z.string(), z.unknown()) });

export function useRowWrites(schema: string, table: string) {
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: tableKeys.rows(schema, table) });
  const insert = useMutation({
    mutationFn: (values: Row) => api(`${path(schema, table)}/rows`, rowResult, { method: 'POST', body: { values } }),
    onSuccess: refresh,
  });
  const update = useMutation({
    mutationFn: (input: { key: Row; values: Row }) => api(`${path(schema, table)}/rows`, rowResult, { method: 'PATCH', body: input }),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (keys: Row[]) => api(`${path(schema, table)}/rows`, z.object({ deleted: z.number() }), { method: 'DELETE', body: { keys } }),
    onSuccess: refresh,
  });
  return { insert, update, remove };
}

/** A bytea cell set from `\x…` hex or a file's bytes in base64 (decoded and bound as bytea by the server). */
export function useSetBytes(schema: string, table: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: { key: Row; column: string } & ({ hex: string } | { base64: string })) =>
      api(`${path(schema, table)}/bytes`, rowResult, { method: 'PUT', body: input }),
    onSuccess: () => qc.invalidateQueries({ queryKey: tableKeys.rows(schema, table) }),
  });
}

/** The address that downloads a bytea cell's bytes as a file. */
export function bytesUrl(schema: string, table: string, key: Row, column: string): string {
  const params = new URLSearchParams({ column, key: JSON.stringify(key) });
  return `${API_BASE}${path(schema, table)}/bytes?${params}`;
}
