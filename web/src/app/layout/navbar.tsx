import { useEffect, useRef, useState } from 'react';
import { Link, NavLink, useLocation, useNavigate } from 'react-router';
import { ChevronDown, Menu, ShoppingCart, X, CarFront, UserRound, LogOut, Shield } from 'lucide-react';
import { notify } from '@/lib/notify';
import { useSession } from '@/lib/session';
import { paths } from '@/config/paths';
import { useCompany } from '@/lib/site-settings';
import { buttonClass } from '@/components/ui/button';
import { useSignOut } from '@/features/auth/api/auth';
import { cn } from '@/lib/cn';
import { cartLabel, usePendingCount } from '@/features/profile/api/bookings';
import { navLinks, navMenus, type NavLinkItem, type NavMenu } from './nav-items';

type ButtonVariant = NonNullable<Parameters<typeof buttonClass>[0]>;

/** A visitor's Connexion, S'inscrire and Réserver, in the button styles of the bar they stand in. */
function GuestLinks({ login, register }: { login: ButtonVariant; register: ButtonVariant }) {
  return (
    <>
      <Link to={paths.login} className={buttonClass(login)}>
        Connexion
      </Link>
      <Link to={paths.register} className={buttonClass(register)}>
        S'inscrire
      </Link>
      <Link to={paths.booking} className={buttonClass('accent')}>
        Réserver
      </Link>
    </>
  );
}

/** A list of the mobile menu: one full-width link per entry. */
function MobileLinks({ links, className }: { links: NavLinkItem[]; className?: string }) {
  return (
    <ul className={className}>
      {links.map((l) => (
        <li key={l.label}>
          <Link to={l.to} className="block rounded-md px-2 py-2 text-slate-900 hover:bg-blue-50">
            {l.label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

function useCloseOnOutside(open: boolean, close: () => void) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) close();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close();
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open, close]);
  return ref;
}

function Dropdown({ menu }: { menu: NavMenu }) {
  const [open, setOpen] = useState(false);
  const ref = useCloseOnOutside(open, () => setOpen(false));
  const id = `menu-${menu.label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <div className="relative" ref={ref}>
      <button
        type="button"
        className="inline-flex items-center gap-1 whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium text-slate-800 hover:bg-slate-100"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen((o) => !o)}
      >
        {menu.label} <ChevronDown className={cn('h-4 w-4 transition-transform', open && 'rotate-180')} aria-hidden="true" />
      </button>
      {open && (
        <ul id={id} className="absolute left-0 z-40 mt-1 w-56 rounded-xl border border-slate-200 bg-white py-2 shadow-lg">
          {menu.items.map((item) => (
            <li key={item.label}>
              <Link to={item.to} onClick={() => setOpen(false)} className="block px-4 py-2 text-sm text-slate-800 hover:bg-blue-50">
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function AccountMenu({ onSignOut }: { onSignOut: () => void }) {
  const { user, profile, isAdmin } = useSession();
  const [open, setOpen] = useState(false);
  const ref = useCloseOnOutside(open, () => setOpen(false));
  const name = profile?.full_name || user?.email || '';
  return (
    <div className="relative" ref={ref}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls="account-menu"
        aria-label={`Mon compte (${name})`}
        onClick={() => setOpen((o) => !o)}
        className="flex h-10 w-10 items-center justify-center rounded-full bg-blue-900 text-sm font-bold text-white hover:bg-blue-800"
      >
        {name.slice(0, 1).toUpperCase() || <UserRound className="h-5 w-5" aria-hidden="true" />}
      </button>
      {open && (
        <ul id="account-menu" className="absolute right-0 z-40 mt-2 w-56 rounded-xl border border-slate-200 bg-white py-2 shadow-lg">
          <li className="truncate px-4 py-2 text-xs text-slate-600">{user?.email}</li>
          <li>
            <Link to={paths.profile} onClick={() => setOpen(false)} className="flex items-center gap-2 px-4 py-2 text-sm hover:bg-blue-50">
              <UserRound className="h-4 w-4" aria-hidden="true" /> Mon Profil
            </Link>
          </li>
          {isAdmin && (
            <li>
              <Link to={paths.adminDashboard} onClick={() => setOpen(false)} className="flex items-center gap-2 px-4 py-2 text-sm hover:bg-blue-50">
                <Shield className="h-4 w-4" aria-hidden="true" /> Administration
              </Link>
            </li>
          )}
          <li>
            <button
              type="button"
              onClick={() => {
                setOpen(false);
                onSignOut();
              }}
              className="flex w-full items-center gap-2 px-4 py-2 text-left text-sm text-red-700 hover:bg-red-50"
            >
              <LogOut className="h-4 w-4" aria-hidden="true" /> Se déconnecter
            </button>
          </li>
        </ul>
      )}
    </div>
  );
}

/** The cart: the signed-in customer's bookings on /profile, with how many are pending. */
function CartLink({ mobile = false }: { mobile?: boolean }) {
  const { user } = useSession();
  const pending = usePendingCount(user?.id);
  const label = cartLabel(pending);
  if (mobile)
    return (
      <Link to={paths.profile} aria-label={label} className={buttonClass('outline')}>
        <ShoppingCart className="h-5 w-5" aria-hidden="true" /> Panier
        <span className="rounded-full bg-blue-900 px-2 py-0.5 text-xs font-bold text-white" data-testid="cart-count" aria-hidden="true">
          {pending}
        </span>
      </Link>
    );
  return (
    <Link to={paths.profile} aria-label={label} className="relative rounded-full p-2 text-slate-700 hover:bg-slate-100">
      <ShoppingCart className="h-5 w-5" aria-hidden="true" />
      {pending > 0 && (
        <span className="absolute -right-0.5 -top-0.5 flex h-4 min-w-4 items-center justify-center rounded-full bg-amber-400 px-1 text-[10px] font-bold text-slate-950" data-testid="cart-count" aria-hidden="true">
          {pending}
        </span>
      )}
    </Link>
  );
}

export function Navbar() {
  const { user, isAdmin } = useSession();
  const company = useCompany();
  const [mobileOpen, setMobileOpen] = useState(false);
  const location = useLocation();
  const navigate = useNavigate();
  const signOut = useSignOut();
  useEffect(() => setMobileOpen(false), [location.pathname, location.search]);

  const handleSignOut = () =>
    signOut.mutate(undefined, {
      onSuccess: () => {
        notify.success('Vous êtes déconnecté');
        navigate(paths.login);
      },
      onError: () => notify.error('Erreur lors de la déconnexion'),
    });

  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/95 backdrop-blur print:hidden">
      <nav aria-label="Navigation principale" className="mx-auto flex max-w-7xl items-center justify-between gap-2 px-4 py-3">
        <Link to={paths.home} className="flex items-center gap-2 whitespace-nowrap font-extrabold text-blue-950">
          <CarFront className="h-7 w-7 text-amber-500" aria-hidden="true" />
          <span className="text-base sm:text-lg">{company.name}</span>
        </Link>
        <div className="hidden items-center gap-0.5 xl:flex">
          {navMenus.map((m) => (
            <Dropdown key={m.label} menu={m} />
          ))}
          {navLinks.map((l) => (
            <NavLink
              key={l.to}
              to={l.to}
              className={({ isActive }) => cn('whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium hover:bg-slate-100', isActive ? 'text-blue-900 underline underline-offset-4' : 'text-slate-800')}
            >
              {l.label}
            </NavLink>
          ))}
        </div>
        <div className="hidden items-center gap-2 xl:flex">
          {user ? (
            <>
              <CartLink />
              <AccountMenu onSignOut={handleSignOut} />
            </>
          ) : (
            <GuestLinks login="ghost" register="outline" />
          )}
        </div>
        <button
          type="button"
          className="rounded-md p-2 text-slate-800 hover:bg-slate-100 xl:hidden"
          aria-expanded={mobileOpen}
          aria-controls="mobile-menu"
          aria-label={mobileOpen ? 'Fermer le menu' : 'Ouvrir le menu'}
          onClick={() => setMobileOpen((o) => !o)}
        >
          {mobileOpen ? <X className="h-6 w-6" aria-hidden="true" /> : <Menu className="h-6 w-6" aria-hidden="true" />}
        </button>
      </nav>
      {mobileOpen && (
        <div id="mobile-menu" className="max-h-[80vh] overflow-y-auto border-t border-slate-200 bg-white px-4 pb-6 xl:hidden">
          {navMenus.map((m) => (
            <div key={m.label} className="border-b border-slate-100 py-3">
              <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-slate-600">{m.label}</p>
              <MobileLinks links={m.items} />
            </div>
          ))}
          <MobileLinks links={navLinks} className="border-b border-slate-100 py-3" />
          <div className="flex flex-col gap-2 pt-4">
            {user ? (
              <>
                <CartLink mobile />
                <Link to={paths.profile} className={buttonClass('outline')}>
                  Mon Profil
                </Link>
                {isAdmin && (
                  <Link to={paths.adminDashboard} className={buttonClass('secondary')}>
                    Administration
                  </Link>
                )}
                <button type="button" className={buttonClass('danger')} onClick={handleSignOut}>
                  Se déconnecter
                </button>
              </>
            ) : (
              <GuestLinks login="outline" register="secondary" />
            )}
          </div>
        </div>
      )}
    </header>
  );
}
