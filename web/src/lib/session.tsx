import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { Session, SupabaseClient, User } from '@supabase/supabase-js';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { hasStoredSession, loadedSupabaseClient, onSupabaseLoaded, supabaseClient } from './supabase';
import { fetchOwnProfile, profileKeys } from './profile-api';
import { errorCode } from './errors';
import type { Profile } from '@/types/database';

interface SessionState {
  /** True until the stored session (or the one in the URL) has been read. */
  loading: boolean;
  session: Session | null;
  user: User | null;
  profile: Profile | null;
  profileLoading: boolean;
  isAdmin: boolean;
  /** The last auth event, e.g. PASSWORD_RECOVERY. */
  lastEvent: string | null;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(null);
  const [loading, setLoading] = useState(true);
  const [lastEvent, setLastEvent] = useState<string | null>(null);
  const queryClient = useQueryClient();

  useEffect(() => {
    let active = true;
    let subscription: { unsubscribe(): void } | undefined;
    // the session is known once supabase-js is loaded; a visitor with no stored session needs it
    // only when they sign in (a page then loads it, and this follows).
    const attach = (client: SupabaseClient) => {
      client.auth.getSession().then(({ data }) => {
        if (!active) return;
        setSession(data.session);
        setLoading(false);
      });
      subscription = client.auth.onAuthStateChange((event, next) => {
        setLastEvent(event);
        setSession(next);
        setLoading(false);
        if (event === 'SIGNED_OUT') queryClient.clear();
      }).data.subscription;
    };
    if (!loadedSupabaseClient() && !hasStoredSession()) setLoading(false);
    const stop = onSupabaseLoaded(attach);
    return () => {
      active = false;
      stop();
      subscription?.unsubscribe();
    };
  }, [queryClient]);

  const user = session?.user ?? null;
  const profileQuery = useQuery({
    queryKey: profileKeys.own(user?.id),
    queryFn: () => fetchOwnProfile(user as User),
    enabled: !!user,
    staleTime: 60_000,
  });

  // A session whose profile cannot be read (other than for a network failure) is not usable.
  const profileError = profileQuery.error;
  useEffect(() => {
    if (profileError && errorCode(profileError) !== 'network') void supabaseClient().then((c) => c.auth.signOut({ scope: 'local' }));
  }, [profileError]);

  const value = useMemo<SessionState>(
    () => ({
      loading,
      session,
      user,
      profile: profileQuery.data ?? null,
      profileLoading: !!user && profileQuery.isPending,
      isAdmin: profileQuery.data?.role === 'admin',
      lastEvent,
    }),
    [loading, session, user, profileQuery.data, profileQuery.isPending, lastEvent],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const ctx = useContext(SessionContext);
  if (!ctx) throw new Error('useSession outside SessionProvider');
  return ctx;
}
