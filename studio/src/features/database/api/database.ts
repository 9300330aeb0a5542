import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';

/** Query keys of the Database section. */
export const databaseKeys = {
  all: ['database'] as const,
  roles: ['database', 'roles'] as const,
  extensions: ['database', 'extensions'] as const,
  migrations: ['database', 'migrations'] as const,
  sizes: ['database', 'table-sizes'] as const,
  indexes: ['database', 'indexes'] as const,
};

const roleSchema = z.object({
  name: z.string(),
  superuser: z.boolean(),
  inherit: z.boolean(),
  create_role: z.boolean(),
  create_db: z.boolean(),
  can_login: z.boolean(),
  replication: z.boolean(),
  bypass_rls: z.boolean(),
  connection_limit: z.number(),
  valid_until: z.string().nullable(),
  system: z.boolean(),
  member_of: z.array(z.string()),
  connections: z.number(),
  /** Why the forms refuse this role (the platform's, Postgres's, the server's own); null when editable. */
  protected: z.string().nullable(),
});
export type Role = z.infer<typeof roleSchema>;

export function useRoles() {
  return useQuery({ queryKey: databaseKeys.roles, queryFn: () => api('/database/roles', z.object({ roles: z.array(roleSchema) })).then((r) => r.roles) });
}

const extensionSchema = z.object({
  name: z.string(),
  default_version: z.string().nullable(),
  installed_version: z.string().nullable(),
  schema: z.string().nullable(),
  comment: z.string().nullable(),
  /** Every version the server has, oldest first. */
  versions: z.array(z.string()),
  /** The versions an installed extension's scripts can update it to, oldest first. */
  updates: z.array(z.string()),
});
export type Extension = z.infer<typeof extensionSchema>;

export function useExtensions() {
  return useQuery({
    queryKey: databaseKeys.extensions,
    queryFn: () => api('/database/extensions', z.object({ extensions: z.array(extensionSchema) })).then((r) => r.extensions),
  });
}

export type ExtensionSwitch = { name: string; enabled: boolean; schema?: string; cascade?: boolean; dry_run?: boolean };
const appliedSchema = z.object({ sql: z.string(), applied: z.boolean() });

export const switchExtension = (input: ExtensionSwitch) => api('/database/extensions', appliedSchema, { method: 'POST', body: input });

/** Runs an extension switch; the lists of extensions (and the tables, whose types may change) are read again. */
export function useSwitchExtension() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: switchExtension,
    onSuccess: (out) => {
      if (out.applied) void qc.invalidateQueries({ queryKey: databaseKeys.all });
    },
  });
}

const migrationsSchema = z.object({
  project: z.array(z.object({ version: z.string(), name: z.string(), statements: z.number() })).nullable(),
  platform: z.array(z.object({ version: z.string(), name: z.string(), applied_on: z.string().nullable() })),
});
export type Migrations = z.infer<typeof migrationsSchema>;

export function useMigrations() {
  return useQuery({ queryKey: databaseKeys.migrations, queryFn: () => api('/database/migrations', migrationsSchema) });
}

const sizeSchema = z.object({
  schema: z.string(),
  name: z.string(),
  kind: z.string(),
  total_bytes: z.number(),
  table_bytes: z.number(),
  index_bytes: z.number(),
  toast_bytes: z.number(),
  estimated_rows: z.number().nullable(),
  seq_scan: z.number().nullable(),
  idx_scan: z.number().nullable(),
});
export type TableSize = z.infer<typeof sizeSchema>;

export function useTableSizes() {
  return useQuery({ queryKey: databaseKeys.sizes, queryFn: () => api('/database/table-sizes', z.object({ tables: z.array(sizeSchema) })).then((r) => r.tables) });
}

const indexesSchema = z.object({
  unused: z.array(
    z.object({ schema: z.string(), table: z.string(), name: z.string(), bytes: z.number(), scans: z.number(), definition: z.string(), drop_sql: z.string() }),
  ),
  seq_scanned: z.array(
    z.object({
      schema: z.string(),
      name: z.string(),
      seq_scan: z.number(),
      seq_rows_read: z.number(),
      idx_scan: z.number(),
      live_rows: z.number(),
      rows_per_seq_scan: z.number(),
      columns: z.array(z.string()),
      create_sql: z.string(),
    }),
  ),
  unindexed_foreign_keys: z.array(
    z.object({ schema: z.string(), table: z.string(), name: z.string(), columns: z.array(z.string()), references: z.string(), create_sql: z.string() }),
  ),
  many_rows: z.number(),
  stats_reset: z.string().nullable(),
});
export type IndexHints = z.infer<typeof indexesSchema>;

export function useIndexHints() {
  return useQuery({ queryKey: databaseKeys.indexes, queryFn: () => api('/database/indexes', indexesSchema) });
}

export type ExtensionUpdate = { name: string; version?: string; dry_run?: boolean };

/** `alter extension … update [to …]` (with dry_run: its SQL only). */
export const updateExtension = (input: ExtensionUpdate) => api('/database/extensions/update', appliedSchema, { method: 'POST', body: input });

/** The attributes a role form sends; an absent one is left as it is (alter) or at Postgres's default (create). */
export type RoleAttributes = {
  login?: boolean;
  inherit?: boolean;
  create_db?: boolean;
  create_role?: boolean;
  bypass_rls?: boolean;
  connection_limit?: number;
  /** Empty: no expiry. */
  valid_until?: string;
  password?: string;
  clear_password?: boolean;
};

export type TablePrivilege = 'select' | 'insert' | 'update' | 'delete';

/** Every write of Database › Roles, as the server takes it. */
export type RoleWrite =
  | { kind: 'create'; name: string; attributes: RoleAttributes }
  | { kind: 'alter'; name: string; attributes: RoleAttributes }
  | { kind: 'drop'; name: string; dropOwned: boolean }
  | { kind: 'membership'; name: string; role: string; grant: boolean }
  | { kind: 'privileges'; name: string; schema: string; table: string | null; privileges: TablePrivilege[]; grant: boolean };

const rolePath = (name: string) => `/database/roles/${encodeURIComponent(name)}`;

/** Sends a role write; with `dryRun` the server answers its SQL and runs nothing. */
export function sendRoleWrite(write: RoleWrite, dryRun: boolean) {
  const dry_run = dryRun;
  switch (write.kind) {
    case 'create':
      return api('/database/roles', appliedSchema, { method: 'POST', body: { name: write.name, ...write.attributes, dry_run } });
    case 'alter':
      return api(rolePath(write.name), appliedSchema, { method: 'PATCH', body: { ...write.attributes, dry_run } });
    case 'drop':
      return api(`${rolePath(write.name)}?drop_owned=${write.dropOwned}&dry_run=${dry_run}`, appliedSchema, { method: 'DELETE' });
    case 'membership':
      return api(`${rolePath(write.name)}/membership`, appliedSchema, { method: 'POST', body: { role: write.role, grant: write.grant, dry_run } });
    case 'privileges':
      return api(`${rolePath(write.name)}/privileges`, appliedSchema, {
        method: 'POST',
        body: { schema: write.schema, table: write.table, privileges: write.privileges, grant: write.grant, dry_run },
      });
  }
}

/** Runs a role write or an extension update; the Database lists are read again. */
export function useDatabaseWrite<T>(send: (input: T) => Promise<{ sql: string; applied: boolean }>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: () => void qc.invalidateQueries({ queryKey: databaseKeys.all }),
  });
}

/** The schemas, for the privileges form. */
export function useSchemaNames() {
  return useQuery({ queryKey: ['database', 'schemas'], queryFn: () => api('/schemas', z.object({ schemas: z.array(z.string()) })).then((r) => r.schemas) });
}

/** The tables of a schema, for the privileges form. */
export function useTableNames(schema: string) {
  return useQuery({
    queryKey: ['database', 'tables', schema],
    enabled: schema !== '',
    queryFn: () => api(`/tables?schema=${encodeURIComponent(schema)}`, z.object({ tables: z.array(z.object({ name: z.string() })) })).then((r) => r.tables.map((t) => t.name)),
  });
}
