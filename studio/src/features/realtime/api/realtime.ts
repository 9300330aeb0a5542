import { useMutation, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';

export const realtimeKeys = {
  publication: ['realtime', 'publication'] as const,
  instances: ['realtime', 'instances'] as const,
  users: (q: string) => ['realtime', 'users', q] as const,
};

const publicationSchema = z.object({
  exists: z.boolean(),
  tables: z.array(z.object({ schema: z.string(), table: z.string(), replica_identity: z.string() })),
});
export type Publication = z.infer<typeof publicationSchema>;

/** The tables of the `supabase_realtime` publication. */
export function usePublication() {
  return useQuery({ queryKey: realtimeKeys.publication, queryFn: () => api('/realtime/publication', publicationSchema) });
}

const topicSchema = z.object({ topic: z.string(), private: z.boolean(), channels: z.number(), presences: z.number() });
const instancesSchema = z.object({
  this: z.object({
    instance: z.string(),
    connections: z.number(),
    channels: z.number(),
    max_connections: z.number(),
    topics: z.array(topicSchema),
  }),
  peers: z.array(
    z.object({ instance: z.string(), seconds_since_hello: z.number(), connections: z.number().nullable(), channels: z.number().nullable() }),
  ),
});
export type Instances = z.infer<typeof instancesSchema>;

/** The sockets and channels of this instance and of the peers it hears (refreshed every 3 s). */
export function useInstances() {
  return useQuery({ queryKey: realtimeKeys.instances, queryFn: () => api('/realtime/instances', instancesSchema), refetchInterval: 3000 });
}

const tokenSchema = z.object({
  apikey: z.string(),
  access_token: z.string(),
  expires_at: z.number(),
  role: z.string(),
  sub: z.string().nullable(),
});
export type InspectorToken = z.infer<typeof tokenSchema>;

/** A short-lived token for the chosen caller, minted by the server (audited). */
export function useMintToken() {
  return useMutation({
    mutationFn: (runAs: 'anon' | { user: string }) => api('/realtime/token', tokenSchema, { method: 'POST', body: { run_as: runAs } }),
  });
}

const usersSchema = z.object({
  users: z.array(z.object({ id: z.string(), email: z.string().nullable(), phone: z.string().nullable(), is_anonymous: z.boolean() })),
});

export function useUserSearch(q: string) {
  return useQuery({
    queryKey: realtimeKeys.users(q),
    queryFn: () => api(`/users?q=${encodeURIComponent(q)}`, usersSchema).then((r) => r.users),
    placeholderData: (prev) => prev,
  });
}
