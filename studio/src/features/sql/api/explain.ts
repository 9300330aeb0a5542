import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';
import type { RunAs } from './run-sql';

const explainSchema = z.object({
  plan: z.unknown(),
  error: z
    .object({
      statement: z.number(),
      sqlstate: z.string(),
      message: z.string(),
      detail: z.string().nullish(),
      hint: z.string().nullish(),
      position: z.number().nullish(),
    })
    .nullable(),
});
export type ExplainOutcome = z.infer<typeof explainSchema>;

/** `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` of one statement as the chosen caller, always rolled back by the server. */
export function useExplain() {
  return useMutation({
    mutationFn: (input: { sql: string; run_as: RunAs }) => api('/sql/explain', explainSchema, { method: 'POST', body: input }),
  });
}
