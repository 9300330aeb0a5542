/**
 * The table editor's structure: a table's constraints, foreign keys, indexes and switches;
 * the structure forms' writes (`/ddl`, shown as SQL first with `dry_run`, then run); the
 * foreign-key picker's pages; CSV import and the export's address.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, API_BASE } from '@/lib/api';
import { tableKeys, type RowQuery } from './tables';

export const structureKeys = {
  structure: (schema: string, table: string) => ['structure', schema, table] as const,
  fk: (schema: string, table: string, column: string, q: string) => ['fk-picker', schema, table, column, q] as const,
};

const referencesSchema = z.object({ schema: z.string(), table: z.string(), columns: z.array(z.string()), on_delete: z.string() });
const constraintSchema = z.object({
  name: z.string(),
  /** p primary key, u unique, c check, f foreign key, x exclusion */
  type: z.string(),
  definition: z.string(),
  columns: z.array(z.string()),
  references: referencesSchema.nullable(),
});
const indexSchema = z.object({ name: z.string(), definition: z.string(), unique: z.boolean(), primary: z.boolean(), method: z.string(), constraint: z.boolean() });
const structureSchema = z.object({ rls: z.boolean(), realtime: z.boolean(), constraints: z.array(constraintSchema), indexes: z.array(indexSchema) });
export type Structure = z.infer<typeof structureSchema>;
export type Constraint = z.infer<typeof constraintSchema>;

const path = (schema: string, table: string) => `/tables/${encodeURIComponent(schema)}/${encodeURIComponent(table)}`;

export function useStructure(schema: string, table: string, enabled = true) {
  return useQuery({ queryKey: structureKeys.structure(schema, table), queryFn: () => api(`${path(schema, table)}/structure`, structureSchema), enabled });
}

/** The one-column foreign keys of a table: column → what it references. */
export function foreignKeys(structure: Structure | undefined): Map<string, z.infer<typeof referencesSchema>> {
  const out = new Map<string, z.infer<typeof referencesSchema>>();
  for (const c of structure?.constraints ?? []) if (c.type === 'f' && c.references && c.columns.length === 1) out.set(c.columns[0]!, c.references);
  return out;
}

export type DefaultValue = { kind: 'value' | 'expression'; value: string };
export type FkAction = 'no_action' | 'restrict' | 'cascade' | 'set_null' | 'set_default';
export type Reference = { schema: string; table: string; columns: string[]; on_delete: FkAction };
export type ColumnDef = {
  name: string;
  type: string;
  default?: DefaultValue | null;
  nullable: boolean;
  unique: boolean;
  primary_key: boolean;
  identity: boolean;
  references?: Reference | null;
};
type At = { schema: string; table: string };
/** One structure change, as the server's `ddl_sql::Ddl` reads it. */
export type Ddl =
  | ({ op: 'create_table'; columns: ColumnDef[]; rls: boolean } & At)
  | ({ op: 'drop_table'; cascade?: boolean } & At)
  | ({ op: 'rename_table'; rename_to: string } & At)
  | ({ op: 'add_column'; column: ColumnDef } & At)
  | ({ op: 'alter_column'; column: string; rename_to?: string; type?: string; default?: DefaultValue; drop_default?: boolean; not_null?: boolean } & At)
  | ({ op: 'drop_column'; column: string; cascade?: boolean } & At)
  | ({ op: 'add_unique'; name?: string; columns: string[] } & At)
  | ({ op: 'add_check'; name?: string; expression: string } & At)
  | ({ op: 'add_foreign_key'; name?: string; columns: string[]; references: Reference } & At)
  | ({ op: 'drop_constraint'; name: string } & At)
  | ({ op: 'create_index'; name?: string; columns: string[]; unique: boolean; method: 'btree' | 'hash' | 'gin' | 'gist' | 'brin' } & At)
  | ({ op: 'drop_index'; name: string } & At)
  | ({ op: 'set_rls'; enabled: boolean } & At)
  | ({ op: 'set_realtime'; enabled: boolean } & At);

const ddlResult = z.object({ sql: z.string(), statements: z.array(z.string()), expressions: z.array(z.string()), applied: z.boolean() });
export type DdlResult = z.infer<typeof ddlResult>;

/** The SQL a change would run, without running it. */
export const previewDdl = (ddl: Ddl) => api('/ddl', ddlResult, { method: 'POST', body: { ...ddl, dry_run: true } });

/** Run a change; the table list, the relation, its structure and rows are read again. */
export function useApplyDdl() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (ddl: Ddl) => api('/ddl', ddlResult, { method: 'POST', body: ddl }),
    onSuccess: (_r, ddl) => {
      void qc.invalidateQueries({ queryKey: tableKeys.tables(ddl.schema) });
      void qc.invalidateQueries({ queryKey: tableKeys.relation(ddl.schema, ddl.table) });
      void qc.invalidateQueries({ queryKey: structureKeys.structure(ddl.schema, ddl.table) });
      void qc.invalidateQueries({ queryKey: tableKeys.rows(ddl.schema, ddl.table) });
      void qc.invalidateQueries({ queryKey: ['policies'] });
    },
  });
}

const fkPage = z.object({
  schema: z.string(),
  table: z.string(),
  column: z.string(),
  columns: z.array(z.string()),
  rows: z.array(z.record(z.string(), z.unknown())),
  next: z.string().nullable(),
});
export type FkPage = z.infer<typeof fkPage>;

export function fetchFkPage(schema: string, table: string, column: string, q: string, after: string | null, signal?: AbortSignal) {
  const params = new URLSearchParams({ column });
  if (q) params.set('q', q);
  if (after !== null) params.set('after', after);
  return api(`${path(schema, table)}/references?${params}`, fkPage, { signal });
}

/** Rows go in all at once or not at all; a bad row is named by its number (from 1). */
export function useImportRows(schema: string, table: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: { columns: string[]; rows: (string | null)[][] }) =>
      api(`${path(schema, table)}/import`, z.object({ inserted: z.number() }), { method: 'POST', body: input }),
    onSuccess: () => qc.invalidateQueries({ queryKey: tableKeys.rows(schema, table) }),
  });
}

/** The export's address: every row of the view (filters and sort), streamed as CSV. */
export function exportUrl(schema: string, table: string, query: RowQuery): string {
  return `${API_BASE}${path(schema, table)}/export?q=${encodeURIComponent(JSON.stringify(query))}`;
}
