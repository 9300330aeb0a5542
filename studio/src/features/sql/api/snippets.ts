import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';

export const snippetKeys = { list: ['snippets'] as const };

const snippetSchema = z.object({ id: z.string(), name: z.string(), sql: z.string(), created_at: z.string(), updated_at: z.string() });
export type Snippet = z.infer<typeof snippetSchema>;

/** A snippet's name as the form checks it (the server checks the same, and that it is not taken). */
export const snippetNameSchema = z.object({
  name: z.string().trim().min(1, 'Give the snippet a name').max(200, 'At most 200 characters'),
});
export type SnippetName = z.infer<typeof snippetNameSchema>;

/** The operator's own snippets, by name. */
export function useSnippets() {
  return useQuery({ queryKey: snippetKeys.list, queryFn: () => api('/snippets', z.object({ snippets: z.array(snippetSchema) })).then((r) => r.snippets) });
}

const one = z.object({ snippet: snippetSchema });

export function useCreateSnippet() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: { name: string; sql: string }) => api('/snippets', one, { method: 'POST', body: input }).then((r) => r.snippet),
    onSuccess: () => qc.invalidateQueries({ queryKey: snippetKeys.list }),
  });
}

export function useUpdateSnippet() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...change }: { id: string; name?: string; sql?: string }) =>
      api(`/snippets/${encodeURIComponent(id)}`, one, { method: 'PATCH', body: change }).then((r) => r.snippet),
    onSuccess: () => qc.invalidateQueries({ queryKey: snippetKeys.list }),
  });
}

export function useDeleteSnippet() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/snippets/${encodeURIComponent(id)}`, z.null(), { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: snippetKeys.list }),
  });
}
