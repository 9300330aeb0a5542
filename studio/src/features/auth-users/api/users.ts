import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';
import { usersQuery, type UserFilters } from '../lib/filters';

export const PAGE_SIZE = 50;

export const authUserKeys = {
  all: ['auth-users'] as const,
  list: (filters: UserFilters) => ['auth-users', 'list', filters] as const,
  detail: (id: string) => ['auth-users', 'detail', id] as const,
};

const summarySchema = z.object({
  id: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  created_at: z.string(),
  last_sign_in_at: z.string().nullable(),
  confirmed: z.boolean(),
  banned_until: z.string().nullable(),
  is_anonymous: z.boolean(),
  providers: z.array(z.string()),
  mfa: z.boolean(),
});
export type UserSummary = z.infer<typeof summarySchema>;

const pageSchema = z.object({ users: z.array(summarySchema), next: z.string().nullable() });

/** The users matching the filters, newest first, a page at a time (keyset on the server). */
export function useUsers(filters: UserFilters) {
  return useInfiniteQuery({
    queryKey: authUserKeys.list(filters),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) => api(`/auth/users${usersQuery(filters, pageParam, PAGE_SIZE)}`, pageSchema, { signal }),
    getNextPageParam: (last) => last.next,
  });
}

const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    phone: z.string(),
    role: z.string(),
    created_at: z.string(),
    email_confirmed_at: z.string().optional(),
    last_sign_in_at: z.string().optional(),
    banned_until: z.string().optional(),
    invited_at: z.string().optional(),
    is_anonymous: z.boolean(),
    app_metadata: z.record(z.string(), z.unknown()),
    user_metadata: z.record(z.string(), z.unknown()),
  })
  .loose();
export type AuthUser = z.infer<typeof userSchema>;

const detailSchema = z.object({
  user: userSchema,
  identities: z.array(z.object({ id: z.string(), provider: z.string(), provider_id: z.string(), email: z.string().nullable(), created_at: z.string().nullable(), last_sign_in_at: z.string().nullable() })),
  factors: z.array(z.object({ id: z.string(), friendly_name: z.string().nullable(), factor_type: z.string(), status: z.string(), created_at: z.string() })),
  sessions: z.array(
    z.object({
      id: z.string(),
      aal: z.string().nullable(),
      user_agent: z.string().nullable(),
      ip: z.string().nullable(),
      created_at: z.string().nullable(),
      refreshed_at: z.string().nullable(),
      not_after: z.string().nullable(),
    }),
  ),
  events: z.array(z.object({ id: z.string(), action: z.string().nullable(), actor: z.string().nullable(), traits: z.unknown(), ip: z.string().nullable(), created_at: z.string() })),
});
export type UserDetail = z.infer<typeof detailSchema>;

export function useUser(id: string) {
  return useQuery({ queryKey: authUserKeys.detail(id), queryFn: () => api(`/auth/users/${encodeURIComponent(id)}`, detailSchema) });
}

const userAnswer = z.object({ user: userSchema });

/** A write on users: on success every users query is read again. */
function useUserWrite<V, T>(write: (vars: V) => Promise<T>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: write, onSuccess: () => qc.invalidateQueries({ queryKey: authUserKeys.all }) });
}

export function useCreateUser() {
  return useUserWrite((v: { email: string; password: string; auto_confirm: boolean }) => api('/auth/users', userAnswer, { method: 'POST', body: v }).then((r) => r.user));
}

export function useInviteUser() {
  return useUserWrite((v: { email: string }) => api('/auth/invite', userAnswer, { method: 'POST', body: v }).then((r) => r.user));
}

const userPath = (id: string) => `/auth/users/${encodeURIComponent(id)}`;

export function useSendLink(id: string) {
  return useUserWrite((kind: 'recovery' | 'magiclink') => api(`${userPath(id)}/send-link`, userAnswer, { method: 'POST', body: { kind } }));
}

export function useBan(id: string) {
  return useUserWrite((duration: string) => api(`${userPath(id)}/ban`, userAnswer, { method: 'POST', body: { duration } }));
}

export function useSignOutEverywhere(id: string) {
  return useUserWrite(() => api(`${userPath(id)}/sign-out`, z.object({ ended: z.number() }), { method: 'POST' }));
}

export function useSaveMetadata(id: string) {
  return useUserWrite((v: { app_metadata?: Record<string, unknown>; user_metadata?: Record<string, unknown> }) => api(`${userPath(id)}/metadata`, userAnswer, { method: 'PUT', body: v }));
}

/** Delete a user; only the lists are read again (the caller leaves the user's page, which is gone). */
export function useDeleteUser(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (soft: boolean) => api(userPath(id), z.null(), { method: 'DELETE', body: { soft } }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['auth-users', 'list'] });
    },
  });
}

/** Remove one of the user's MFA factors (the sessions it raised drop to aal1). */
export function useDeleteFactor(id: string) {
  return useUserWrite((factor: string) => api(`${userPath(id)}/factors/${encodeURIComponent(factor)}`, z.object({ factor: z.unknown() }), { method: 'DELETE' }));
}
