import { Suspense, useEffect } from 'react';
import { Outlet, useLocation } from 'react-router';
import { Spinner } from '@/components/ui/states';
import { Navbar } from './navbar';
import { Footer } from './footer';
import { StatusStrip } from './status-strip';
import { RouteErrorBoundary } from './route-error';
import { MaintenancePage, openDuringMaintenance } from './maintenance';
import { useSiteSettings } from '@/lib/site-settings';
import { useSession } from '@/lib/session';

/** A new page starts at its top, or at the section its URL fragment names. */
function useScrollOnNavigation() {
  const { pathname, hash } = useLocation();
  useEffect(() => {
    const target = hash ? document.getElementById(hash.slice(1)) : null;
    if (target) target.scrollIntoView();
    else window.scrollTo(0, 0);
  }, [pathname, hash]);
}

export function RootLayout() {
  const location = useLocation();
  useScrollOnNavigation();
  const settings = useSiteSettings();
  const { profile } = useSession();
  const closed = settings.maintenanceMode && profile?.role !== 'admin' && !openDuringMaintenance(location.pathname);
  return (
    <div className="flex min-h-screen flex-col">
      <a href="#contenu" className="skip-link">
        Aller au contenu
      </a>
      <StatusStrip />
      <Navbar />
      <main id="contenu" className="flex-1" tabIndex={-1}>
        <RouteErrorBoundary resetKey={location.pathname}>
          {/* A page's code is loading: keep the footer below the fold so nothing jumps when it comes. */}
          <Suspense
            fallback={
              <div className="min-h-screen">
                <Spinner />
              </div>
            }
          >
            {closed ? <MaintenancePage /> : <Outlet />}
          </Suspense>
        </RouteErrorBoundary>
      </main>
      <Footer />
    </div>
  );
}
