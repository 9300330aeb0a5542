import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';

export type RunAs = { kind: 'owner' } | { kind: 'service_role' } | { kind: 'anon' } | { kind: 'user'; id: string };

const resultSchema = z.object({
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  rows: z.array(z.array(z.string().nullable())),
  offset: z.number(),
  more: z.boolean(),
  pageable: z.boolean(),
  rows_affected: z.number().nullish(),
  elapsed_ms: z.number(),
  sql: z.string(),
});
export type StatementResult = z.infer<typeof resultSchema>;

const runErrorSchema = z.object({
  statement: z.number(),
  sqlstate: z.string(),
  message: z.string(),
  detail: z.string().nullish(),
  hint: z.string().nullish(),
  position: z.number().nullish(),
});
export type RunError = z.infer<typeof runErrorSchema>;

const runSchema = z.object({ results: z.array(resultSchema), error: runErrorSchema.nullable(), committed: z.boolean() });
export type RunOutcome = z.infer<typeof runSchema>;

export type RunInput = { sql: string; run_as: RunAs; rollback: boolean; offset?: number };

export const runSql = (input: RunInput) => api('/sql', runSchema, { method: 'POST', body: input });

/** Runs SQL; a committed run may have changed any table or the schema, so every cached screen is read again (the session excepted). */
export function useRunSql() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: runSql,
    onSuccess: (outcome) => {
      if (outcome.committed) void qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
      else void qc.invalidateQueries({ queryKey: historyKeys.list });
    },
  });
}

export const userKeys = { search: (q: string) => ['users', q] as const };
export const historyKeys = { list: ['sql-history'] as const };

const historySchema = z.object({
  runs: z.array(z.object({ sql: z.string(), run_as: z.unknown(), committed: z.boolean().nullable(), failed: z.boolean().nullable(), at: z.string() })),
});
export type HistoryRun = z.infer<typeof historySchema>['runs'][number];

/** The operator's recent runs (from the audit log), newest first. */
export function useSqlHistory() {
  return useQuery({ queryKey: historyKeys.list, queryFn: () => api('/sql/history', historySchema).then((r) => r.runs) });
}

const userSchema = z.object({ id: z.string(), email: z.string().nullable(), phone: z.string().nullable(), is_anonymous: z.boolean() });
export type AppUser = z.infer<typeof userSchema>;

export function useUserSearch(q: string) {
  return useQuery({
    queryKey: userKeys.search(q),
    queryFn: () => api(`/users?q=${encodeURIComponent(q)}`, z.object({ users: z.array(userSchema) })).then((r) => r.users),
    placeholderData: (prev) => prev,
  });
}
