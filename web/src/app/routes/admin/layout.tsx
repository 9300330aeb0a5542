import { Suspense } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { ShieldAlert } from 'lucide-react';
import { ButtonLink } from '@/components/ui/button';
import { adminPaths } from '@/config/admin-paths';
import { paths } from '@/config/paths';
import { useSession } from '@/lib/session';
import { AdminShell } from '@/features/admin/components/admin-shell';
import { MfaChallenge } from '@/features/admin/components/mfa-challenge';
import { useAssuranceLevel } from '@/features/admin/api/mfa';
import { guardDecision } from '@/features/admin/lib/guard';
import { ErrorState, Spinner } from '@/components/ui/states';

export const ACCESS_DENIED = "Accès refusé - Vous n'avez pas les permissions nécessaires.";

/**
 * The guard of /admin/*: an administrator, not only a signed-in user (the original checked only
 * the latter). The database refuses every admin call of a customer anyway (row-level security
 * with is_admin(), admin-only functions): this only spares them a broken screen.
 * An administrator with a verified second factor whose session is still aal1 gets the two-factor
 * challenge instead of the pages (the database refuses them every admin call until aal2, V45).
 */
export default function AdminLayout() {
  const { loading, session, user, profile, profileLoading, isAdmin } = useSession();
  const location = useLocation();
  const aal = useAssuranceLevel(session?.access_token, isAdmin);
  const decision = guardDecision({ loading: loading || profileLoading, signedIn: !!user, isAdmin, aal: aal.data ?? null });
  if (aal.isError && decision === 'loading') return <ErrorState message={aal.error.message} onRetry={() => void aal.refetch()} />;
  if (decision === 'loading') return <Spinner label="Chargement…" />;
  if (decision === 'sign-in' || !user) return <Navigate to={`${adminPaths.login}?redirect=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  if (decision === 'challenge') return <MfaChallenge />;
  if (decision === 'denied') {
    return (
      <main className="mx-auto max-w-xl px-4 py-20 text-center">
        <ShieldAlert className="mx-auto mb-4 h-10 w-10 text-red-700" aria-hidden="true" />
        <h1 className="text-2xl font-bold text-blue-950">{ACCESS_DENIED}</h1>
        <p className="mt-3 text-slate-700">Cet espace est réservé aux administrateurs.</p>
        <div className="mt-6 flex justify-center gap-3">
          <ButtonLink to={paths.home} variant="outline">
            Retour à l'accueil
          </ButtonLink>
          <ButtonLink to={paths.profile}>Mon espace</ButtonLink>
        </div>
      </main>
    );
  }
  return (
    <AdminShell email={profile?.email ?? user.email ?? null}>
      <Suspense fallback={<Spinner label="Chargement…" />}>
        <Outlet />
      </Suspense>
    </AdminShell>
  );
}
