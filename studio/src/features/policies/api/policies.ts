/** The policies screen's calls: a schema's tables with RLS and policies, their writes (SQL shown first), the tester. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';

export const policyKeys = {
  list: (schema: string) => ['policies', schema] as const,
  users: (q: string) => ['policies', 'users', q] as const,
};

export const COMMANDS = ['all', 'select', 'insert', 'update', 'delete'] as const;
export type Command = (typeof COMMANDS)[number];

const policySchema = z.object({
  name: z.string(),
  command: z.enum(COMMANDS),
  roles: z.array(z.string()),
  permissive: z.boolean(),
  using: z.string().nullable(),
  with_check: z.string().nullable(),
});
export type Policy = z.infer<typeof policySchema>;

const tableSchema = z.object({
  name: z.string(),
  rls: z.boolean(),
  force_rls: z.boolean(),
  policies: z.array(policySchema),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
});
export type PolicyTable = z.infer<typeof tableSchema>;

export function usePolicies(schema: string) {
  return useQuery({
    queryKey: policyKeys.list(schema),
    queryFn: () => api(`/policies?schema=${encodeURIComponent(schema)}`, z.object({ tables: z.array(tableSchema) })).then((r) => r.tables),
  });
}

export type PolicyDraft = { schema: string; table: string; name: string; command: Command; roles: string[]; permissive: boolean; using: string | null; with_check: string | null };

/** A write of the screen: `{policy, replaces}` to /policies, `{name}` to /policies/drop, `{enabled}` to /policies/rls. */
export type PolicyWrite =
  | { path: '/policies'; body: { policy: PolicyDraft; replaces?: string } }
  | { path: '/policies/drop'; body: { schema: string; table: string; name: string } }
  | { path: '/policies/rls'; body: { schema: string; table: string; enabled: boolean } };

const applied = z.object({ sql: z.string(), applied: z.boolean() });

/** The SQL a write would run, without running it. */
export const previewWrite = (w: PolicyWrite) => api(w.path, applied, { method: 'POST', body: { ...w.body, dry_run: true } });

export function useApplyWrite(schema: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (w: PolicyWrite) => api(w.path, applied, { method: 'POST', body: w.body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: policyKeys.list(schema) }),
  });
}

export type Caller = { kind: 'service_role' } | { kind: 'anon' } | { kind: 'user'; id: string };
export type Operation =
  | { kind: 'select'; filters: { column: string; op: string; value: unknown }[] }
  | { kind: 'insert'; row: Record<string, unknown> }
  | { kind: 'update'; key: Record<string, unknown>; values: Record<string, unknown> }
  | { kind: 'delete'; key: Record<string, unknown> };

const testSchema = z.object({
  allowed: z.boolean(),
  rows: z.array(z.record(z.string(), z.unknown())),
  affected: z.number(),
  total: z.number().nullable(),
  error: z.object({ sqlstate: z.string(), message: z.string(), detail: z.string().nullish(), hint: z.string().nullish() }).nullable(),
});
export type TestOutcome = z.infer<typeof testSchema>;

export function useTestPolicy() {
  return useMutation({
    mutationFn: (t: { schema: string; table: string; run_as: Caller; operation: Operation }) => api('/policies/test', testSchema, { method: 'POST', body: t }),
  });
}

const userSchema = z.object({ id: z.string(), email: z.string().nullable(), phone: z.string().nullable() });

export function useUsers(q: string) {
  return useQuery({ queryKey: policyKeys.users(q), queryFn: () => api(`/users?q=${encodeURIComponent(q)}`, z.object({ users: z.array(userSchema) })).then((r) => r.users) });
}

/** The schemas to pick from (the platform's is not among them). */
export function usePolicySchemas() {
  return useQuery({ queryKey: ['policies', 'schemas'], queryFn: () => api('/schemas', z.object({ schemas: z.array(z.string()) })).then((r) => r.schemas) });
}
