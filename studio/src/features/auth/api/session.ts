import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api, ApiError, setCsrfToken } from '@/lib/api';

export const sessionKeys = { current: ['session'] as const };

const sessionSchema = z.object({
  operator: z.object({ id: z.string(), email: z.string() }),
  csrf_token: z.string(),
});
export type Session = z.infer<typeof sessionSchema>;

/** The signed-in operator, or `null` when there is no session. */
export async function getSession(): Promise<Session | null> {
  try {
    const s = await api('/session', sessionSchema);
    setCsrfToken(s.csrf_token);
    return s;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw e;
  }
}

export function useSession() {
  return useQuery({ queryKey: sessionKeys.current, queryFn: getSession, staleTime: Infinity, retry: false });
}

export const signInSchema = z.object({
  email: z.string().trim().min(1, 'Enter your e-mail address').email('Enter an e-mail address'),
  password: z.string().min(1, 'Enter your password'),
  /** The TOTP code, once the server asked for it (an operator with two-factor sign-in). */
  code: z.string().trim().optional(),
});
export type SignInInput = z.infer<typeof signInSchema>;

export function useSignIn() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: SignInInput) => api('/signin', sessionSchema, { method: 'POST', body: input }),
    onSuccess: (s) => {
      setCsrfToken(s.csrf_token);
      qc.setQueryData(sessionKeys.current, s);
    },
  });
}

export function useSignOut() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api('/signout', z.unknown(), { method: 'POST' }),
    onSettled: () => {
      setCsrfToken(null);
      qc.clear();
      qc.setQueryData(sessionKeys.current, null);
    },
  });
}
