/**
 * The back office's frame: a dark side column as tall as the page, whose navigation stays in view
 * as the page scrolls (icons only between 1024 and 1280 px, where the tables need the width), a
 * top bar whose entries wrap on small screens, and the page.
 */
import { Suspense, type ReactNode } from 'react';
import { Link, NavLink, useNavigate } from 'react-router';
import { BarChart3, CalendarCheck, CalendarRange, Car, LayoutDashboard, LogOut, Mail, Settings, ShieldCheck, Users, ExternalLink } from 'lucide-react';
import { useUnreadCount } from '../api/messages';
import { notify } from '@/lib/notify';
import { Spinner } from '@/components/ui/states';
import { adminPaths } from '@/config/admin-paths';
import { paths } from '@/config/paths';
import { cn } from '@/lib/cn';
import { supabaseClient } from '@/lib/supabase';
import { useCompany } from '@/lib/site-settings';

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
  // the company's name as the settings say (« Paramètres » changes it), not the built-in one
  const company = useCompany();
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
      {/* the dark column stretches with the page; its content stays in view as the page scrolls */}
      <aside className="bg-blue-950 text-white lg:w-16 lg:shrink-0 xl:w-64" data-testid="admin-sidebar">
        <div className="lg:sticky lg:top-0 lg:flex lg:h-screen lg:flex-col lg:overflow-y-auto">
        <div className="flex items-center justify-between gap-2 px-4 py-4 lg:px-2 xl:px-4">
          <Link to={adminPaths.dashboard} className="min-w-0 font-bold leading-tight lg:hidden xl:block" data-testid="admin-company">
            {company.name}
            <span className="block text-xs font-normal text-blue-200">Administration</span>
          </Link>
          <Link to={adminPaths.dashboard} className="hidden h-10 w-12 items-center justify-center rounded-lg bg-amber-400 text-sm font-extrabold text-slate-950 lg:flex xl:hidden" title={`${company.name} — Administration`} aria-label={`${company.name} — Administration`}>
            {initials(company.name)}
          </Link>
        </div>
        <nav aria-label="Administration" className="px-2 pb-2 lg:flex-1 lg:pb-0">
          <ul className="flex flex-wrap gap-1 lg:flex-col lg:flex-nowrap">
            {items.map(({ to, label, icon: Icon }) => (
              <li key={to}>
                <NavLink
                  to={to}
                  title={label}
                  className={({ isActive }) =>
                    cn(
                      'relative flex items-center gap-2 whitespace-nowrap rounded-lg px-3 py-2 text-sm font-medium focus-visible:outline-3 focus-visible:outline-amber-400 lg:justify-center xl:justify-start',
                      isActive ? 'bg-amber-400 text-slate-950' : 'text-blue-50 hover:bg-blue-900',
                    )
                  }
                >
                  <Icon className="h-4 w-4 shrink-0" aria-hidden="true" />
                  <span className="lg:sr-only xl:not-sr-only">{label}</span>
                  {to === adminPaths.messages && unread > 0 && (
                    <span className="ml-auto rounded-full lg:absolute lg:-right-1 lg:-top-1 lg:ml-0 lg:px-1.5 xl:static xl:ml-auto xl:px-2 bg-red-600 px-2 py-0.5 text-xs font-bold text-white" data-testid="unread-count" aria-label={`${unread} non lu(s)`}>
                      {unread}
                    </span>
                  )}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="flex flex-wrap items-center gap-2 border-t border-blue-900 px-4 py-3 text-sm lg:flex-col lg:items-stretch lg:px-2 xl:px-4">
          {email && <p className="truncate text-blue-200 lg:sr-only xl:not-sr-only" title={email}>{email}</p>}
          <Link to={paths.home} className="inline-flex items-center gap-2 text-blue-50 hover:underline lg:justify-center lg:py-1 xl:justify-start" title="Voir le site">
            <ExternalLink className="h-4 w-4 shrink-0" aria-hidden="true" /> <span className="lg:sr-only xl:not-sr-only">Voir le site</span>
          </Link>
          <button type="button" onClick={logout} className="inline-flex items-center gap-2 text-left text-blue-50 hover:underline focus-visible:outline-3 focus-visible:outline-amber-400 lg:justify-center lg:py-1 xl:justify-start" title="Déconnexion">
            <LogOut className="h-4 w-4 shrink-0" aria-hidden="true" /> <span className="lg:sr-only xl:not-sr-only">Déconnexion</span>
          </button>
        </div>
        </div>
      </aside>
      <main id="admin-contenu" tabIndex={-1} className="min-w-0 flex-1 px-4 py-6 sm:px-6 xl:px-8">
        <Suspense fallback={<Spinner />}>{children}</Suspense>
      </main>
    </div>
  );
}

/** « KP » for « Kinshasa Prestige Auto »: the compact sidebar's mark. */
function initials(name: string): string {
  const letters = name.split(/\s+/).filter(Boolean).map((w) => w[0]!.toUpperCase());
  return letters.slice(0, 2).join('') || 'A';
}
