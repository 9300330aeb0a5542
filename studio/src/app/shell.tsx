import { NavLink, Outlet } from 'react-router';
import { useSession, useSignOut } from '@/features/auth/api/session';
import { SignInForm } from '@/features/auth/components/sign-in-form';
import { Button } from '@/components/ui/button';
import { ErrorNote, Loading } from '@/components/ui/states';
import { paths } from '@/lib/paths';

const NAV = [
  { to: paths.tables(), label: 'Table editor' },
  { to: paths.sql, label: 'SQL editor' },
  // Storage and policies screens
  { to: paths.storage(), label: 'Storage' },
  { to: paths.policies(), label: 'Policies' },
  // Auth → Users and API & keys
  { to: paths.authUsers, label: 'Users' },
  // Auth settings, mail templates, signing keys
  { to: paths.authSettings, label: 'Auth settings' },
  { to: paths.authTemplates, label: 'Mail templates' },
  { to: paths.signingKeys, label: 'Signing keys' },
  { to: paths.api(), label: 'API & keys' },
  // Realtime inspector and Edge Functions
  { to: paths.realtime, label: 'Realtime' },
  { to: paths.function(), label: 'Functions' },
  { to: paths.audit, label: 'Audit log' },
  // Database
  { to: paths.backups, label: 'Backups' },
  // Logs and reports
  { to: paths.logs(), label: 'Logs' },
  { to: paths.reports, label: 'Reports' },
  { to: paths.database.roles, label: 'Database' },
];

/** The frame of every screen once signed in; the sign-in form otherwise. */
export function Shell() {
  const session = useSession();
  const signOut = useSignOut();
  if (session.isPending) return <Loading />;
  if (session.error) return <ErrorNote error={session.error} />;
  if (!session.data) return <SignInForm />;
  return (
    <div className="flex h-full flex-col md:flex-row">
      <aside className="flex shrink-0 flex-row items-center gap-1 bg-slate-900 px-2 py-1 text-slate-100 md:w-48 md:flex-col md:items-stretch md:py-3">
        <p className="px-2 text-sm font-semibold tracking-wide md:mb-3">Studio</p>
        <nav aria-label="Main" className="flex flex-1 flex-row gap-1 overflow-x-auto md:flex-col">
          {NAV.map((n) => (
            <NavLink
              key={n.to}
              to={n.to}
              className={({ isActive }) => `rounded px-2 py-1 text-sm whitespace-nowrap ${isActive ? 'bg-emerald-700 text-white' : 'text-slate-200 hover:bg-slate-800'}`}
            >
              {n.label}
            </NavLink>
          ))}
        </nav>
        <div className="flex items-center gap-2 md:flex-col md:items-stretch">
          <NavLink to={paths.account} className="truncate px-2 text-xs whitespace-nowrap text-slate-300 underline-offset-2 hover:underline" title="Your account">
            <span className="md:hidden">Account</span>
            <span className="hidden md:inline">{session.data.operator.email}</span>
          </NavLink>
          <Button variant="inverse" onClick={() => signOut.mutate()}>
            Sign out
          </Button>
        </div>
      </aside>
      <main className="min-h-0 min-w-0 flex-1">
        <Outlet />
      </main>
    </div>
  );
}
