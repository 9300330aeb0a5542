import { useMutation, useMutationState, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, ApiError } from '@/lib/api';

export const functionKeys = {
  list: ['functions'] as const,
  one: (slug: string) => ['functions', 'one', slug] as const,
  logs: (slug: string) => ['functions', 'logs', slug] as const,
  deploy: (slug: string) => ['functions', 'deploy', slug] as const,
  secrets: ['functions', 'secrets'] as const,
  users: (q: string) => ['functions', 'users', q] as const,
};

const listed = z.object({
  slug: z.string(),
  name: z.string(),
  source: z.enum(['deployed', 'folder']),
  version: z.number().nullable(),
  verify_jwt: z.boolean(),
  updated_at: z.string().nullable(),
  overrides_folder: z.boolean(),
  invocations: z.object({ total: z.number(), errors: z.number() }).nullable(),
});
export type ListedFunction = z.infer<typeof listed>;
const listSchema = z.object({ runtime: z.string().nullable(), metrics: z.boolean(), functions: z.array(listed) });

/** Every function, with its invocation counts (refreshed every 5 s). */
export function useFunctions() {
  return useQuery({ queryKey: functionKeys.list, queryFn: () => api('/functions', listSchema), refetchInterval: 5000 });
}

const deployedSchema = z.object({
  slug: z.string(),
  name: z.string(),
  version: z.number(),
  verify_jwt: z.boolean(),
  entrypoint_path: z.string(),
  sha256: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DeployedFunction = z.infer<typeof deployedSchema>;
const fileSchema = z.object({ path: z.string(), content: z.string().nullable(), binary: z.boolean().optional() });
const oneSchema = z.object({ function: deployedSchema, files: z.array(fileSchema) });
export type FunctionSource = z.infer<typeof oneSchema>;

/** A deployed function with its files; `null` when none is deployed under that name. */
export function useFunction(slug: string) {
  return useQuery({
    queryKey: functionKeys.one(slug),
    queryFn: () =>
      api(`/functions/${encodeURIComponent(slug)}`, oneSchema).catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      }),
  });
}

export type DeployInput = { slug: string; verify_jwt: boolean; entrypoint_path: string; files: { path: string; content: string }[] };

const deployedAnswer = z.object({ function: deployedSchema });

export function useDeploy(slug: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationKey: functionKeys.deploy(slug),
    mutationFn: ({ slug, ...body }: DeployInput) => api(`/functions/${encodeURIComponent(slug)}/deploy`, deployedAnswer, { method: 'POST', body }),
    onSuccess: (_, v) => {
      void qc.invalidateQueries({ queryKey: functionKeys.list });
      void qc.invalidateQueries({ queryKey: functionKeys.one(v.slug) });
    },
  });
}

/**
 * The version of this function's latest deploy from this page, read from the mutation cache, so it
 * outlives the editor, which is mounted afresh for each deployed version.
 */
export function useLastDeployedVersion(slug: string): number | undefined {
  const versions = useMutationState({
    filters: { mutationKey: functionKeys.deploy(slug), status: 'success' },
    select: (m) => (m.state.data as z.infer<typeof deployedAnswer> | undefined)?.function.version,
  });
  return versions.at(-1);
}

export function useDeleteFunction() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (slug: string) => api(`/functions/${encodeURIComponent(slug)}`, z.null(), { method: 'DELETE' }),
    onSuccess: (_, slug) => {
      void qc.invalidateQueries({ queryKey: functionKeys.list });
      qc.removeQueries({ queryKey: functionKeys.one(slug) });
    },
  });
}

const invokedSchema = z.object({
  status: z.number(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  truncated: z.boolean(),
  bytes: z.number(),
  duration_ms: z.number(),
});
export type Invoked = z.infer<typeof invokedSchema>;
export type InvokeInput = { slug: string; method: string; path: string; headers: Record<string, string>; body: string | null; run_as: 'anon' | 'none' | { user: string } };

/** Invoke a function through the studio backend (which mints the caller's token). */
export function useInvoke() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ slug, ...body }: InvokeInput) => api(`/functions/${encodeURIComponent(slug)}/invoke`, invokedSchema, { method: 'POST', body }),
    onSettled: (_, __, v) => {
      void qc.invalidateQueries({ queryKey: functionKeys.logs(v.slug) });
      void qc.invalidateQueries({ queryKey: functionKeys.list });
    },
  });
}

const logLine = z.object({
  level: z.string(),
  message: z.string(),
  request_id: z.string().nullable(),
  execution_id: z.string().nullable(),
  timestamp: z.string().nullable(),
});
export type LogLine = z.infer<typeof logLine>;

/** The latest lines the function printed, polled every 2 s while `live`. */
export function useFunctionLogs(slug: string, live: boolean) {
  return useQuery({
    queryKey: functionKeys.logs(slug),
    queryFn: () => api(`/functions/${encodeURIComponent(slug)}/logs?limit=200`, z.object({ lines: z.array(logLine) })).then((r) => r.lines),
    refetchInterval: live ? 2000 : false,
  });
}

const secretsSchema = z.object({ secrets: z.array(z.object({ name: z.string(), updated_at: z.string() })) });

export function useSecrets() {
  return useQuery({ queryKey: functionKeys.secrets, queryFn: () => api('/functions-secrets', secretsSchema).then((r) => r.secrets) });
}

export function useSetSecret() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (s: { name: string; value: string }) => api('/functions-secrets', z.null(), { method: 'POST', body: s }),
    onSuccess: () => qc.invalidateQueries({ queryKey: functionKeys.secrets }),
  });
}

export function useUnsetSecret() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api(`/functions-secrets/${encodeURIComponent(name)}`, z.null(), { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: functionKeys.secrets }),
  });
}

const usersSchema = z.object({
  users: z.array(z.object({ id: z.string(), email: z.string().nullable(), phone: z.string().nullable(), is_anonymous: z.boolean() })),
});

export function useUserSearch(q: string) {
  return useQuery({
    queryKey: functionKeys.users(q),
    queryFn: () => api(`/users?q=${encodeURIComponent(q)}`, usersSchema).then((r) => r.users),
    placeholderData: (prev) => prev,
  });
}
