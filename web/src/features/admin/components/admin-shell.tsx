/** The back office's frame: a side navigation (a top bar on small screens) and the page. */
import { Suspense, type ReactNode } from 'react';
import { Link, NavLink, useNavigate } from 'react-router';
import { BarChart3, CalendarCheck, CalendarRange, Car, LayoutDashboard, LogOut, Mail, Settings, ShieldCheck, Users, ExternalLink } from 'lucide-react';
import { useUnreadCount } from '../api/messages';
import { notify } from '@/lib/notify';
import { Spinner } from '@/components/ui/states';
import { adminPaths } from '@/config/admin-paths';
import { paths } from '@/config/paths';
import { site } from '@/config/site';
import { cn } from '@/lib/cn';
import { supabaseClient } from '@/lib/supabase';

const items = [
  { to: adminPaths.dashboard, label: 'Tableau de bord', icon: LayoutDashboard },
  { to: adminPaths.bookings, label: 'Réservations', icon: CalendarCheck },
  { to: adminPaths.calendar, label: 'Calendrier', icon: CalendarRange },
  { to: adminPaths.vehicles, label: 'Véhicules', icon: Car },
  { to: adminPaths.users, label: 'Utilisateurs', icon: Users },
  { to: adminPaths.messages, label: 'Messages', icon: Mail },
  { to: adminPaths.reports, label: 'Rapports', icon: BarChart3 },
  { to: adminPaths.settings, label: 'Paramètres', icon: Settings },
  { to: adminPaths.security, label: 'Sécurité', icon: ShieldCheck },
];

export function AdminShell({ email, children }: { email: string | null; children: ReactNode }) {
  const navigate = useNavigate();
  const unread = useUnreadCount().data ?? 0;
  const logout = async () => {
    const { error } = await (await supabaseClient()).auth.signOut();
    if (error) notify.error('Erreur lors de la déconnexion');
    navigate(adminPaths.login, { replace: true });
  };
  return (
    <div className="min-h-screen bg-slate-100 lg:flex">
      <a href="#admin-contenu" className="skip-link">
        Aller au contenu
      </a>
      <aside className="bg-blue-950 text-white lg:sticky lg:top-0 lg:flex lg:h-screen lg:w-64 lg:shrink-0 lg:flex-col">
        <div className="flex items-center justify-between gap-2 px-4 py-4">
          <Link to={adminPaths.dashboard} className="font-bold leading-tight">
            {site.name}
            <span className="block text-xs font-normal text-blue-200">Administration</span>
          </Link>
        </div>
        <nav aria-label="Administration" className="overflow-x-auto px-2 pb-2 lg:flex-1 lg:pb-0">
          <ul className="flex gap-1 lg:flex-col">
            {items.map(({ to, label, icon: Icon }) => (
              <li key={to}>
                <NavLink
                  to={to}
                  className={({ isActive }) =>
                    cn(
                      'flex items-center gap-2 whitespace-nowrap rounded-lg px-3 py-2 text-sm font-medium focus-visible:outline-3 focus-visible:outline-amber-400',
                      isActive ? 'bg-amber-400 text-slate-950' : 'text-blue-50 hover:bg-blue-900',
                    )
                  }
                >
                  <Icon className="h-4 w-4" aria-hidden="true" />
                  {label}
                  {to === adminPaths.messages && unread > 0 && (
                    <span className="ml-auto rounded-full bg-red-600 px-2 py-0.5 text-xs font-bold text-white" data-testid="unread-count" aria-label={`${unread} non lu(s)`}>
                      {unread}
                    </span>
                  )}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="flex flex-wrap items-center gap-2 border-t border-blue-900 px-4 py-3 text-sm lg:flex-col lg:items-stretch">
          {email && <p className="truncate text-blue-200" title={email}>{email}</p>}
          <Link to={paths.home} className="inline-flex items-center gap-2 text-blue-50 hover:underline">
            <ExternalLink className="h-4 w-4" aria-hidden="true" /> Voir le site
          </Link>
          <button type="button" onClick={logout} className="inline-flex items-center gap-2 text-left text-blue-50 hover:underline focus-visible:outline-3 focus-visible:outline-amber-400">
            <LogOut className="h-4 w-4" aria-hidden="true" /> Déconnexion
          </button>
        </div>
      </aside>
      <main id="admin-contenu" tabIndex={-1} className="min-w-0 flex-1 px-4 py-6 sm:px-6 lg:px-8">
        <Suspense fallback={<Spinner />}>{children}</Suspense>
      </main>
    </div>
  );
}
