import { useMutation, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api, apiText } from '@/lib/api';

export const apiDocsKeys = {
  settings: ['api-settings'] as const,
  types: ['api-types'] as const,
  tables: ['api-tables'] as const,
  table: (name: string) => ['api-table', name] as const,
};

const settingsSchema = z.object({ url: z.string(), publishable_key: z.string(), anon_key: z.string() });

/** The API's URL and its publishable keys (public by design; no secret comes this way). */
export function useApiSettings() {
  return useQuery({ queryKey: apiDocsKeys.settings, queryFn: () => api('/project/api', settingsSchema) });
}

export type SecretKind = 'secret' | 'service_role';

/** Ask for a secret key: a POST the server audits; the answer is kept only in the component. */
export function useRevealKey() {
  return useMutation({ mutationFn: (key: SecretKind) => api('/project/api/reveal', z.object({ key: z.string() }), { method: 'POST', body: { key } }).then((r) => r.key) });
}

/** The generated TypeScript types (what `server gen types typescript` prints). */
export function useTypes() {
  return useQuery({ queryKey: apiDocsKeys.types, queryFn: () => apiText('/types') });
}

const tablesSchema = z.object({ tables: z.array(z.object({ name: z.string(), kind: z.string() })) });

/** The public schema's tables and views (what the API serves by default). */
export function usePublicTables() {
  return useQuery({ queryKey: apiDocsKeys.tables, queryFn: () => api('/tables?schema=public', tablesSchema).then((r) => r.tables) });
}

const relationSchema = z.object({
  schema: z.string(),
  name: z.string(),
  primary_key: z.array(z.string()),
  columns: z.array(z.object({ name: z.string(), udt: z.string(), category: z.string(), nullable: z.boolean(), default: z.string().nullable(), read_only: z.boolean(), enum_values: z.array(z.string()).nullable() })),
});

export function usePublicTable(name: string | undefined) {
  return useQuery({
    queryKey: apiDocsKeys.table(name ?? ''),
    enabled: !!name,
    queryFn: () => api(`/tables/public/${encodeURIComponent(name ?? '')}`, relationSchema),
  });
}
