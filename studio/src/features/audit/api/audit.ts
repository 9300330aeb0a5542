import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';

export const auditKeys = { list: ['audit'] as const };

const entrySchema = z.object({
  id: z.number(),
  operator: z.string(),
  action: z.string(),
  target: z.string().nullable(),
  detail: z.unknown(),
  at: z.string(),
});
export type AuditEntry = z.infer<typeof entrySchema>;

export function useAudit() {
  return useQuery({ queryKey: auditKeys.list, queryFn: () => api('/audit?limit=200', z.object({ entries: z.array(entrySchema) })).then((r) => r.entries) });
}
