import { Suspense, useEffect } from 'react';
import { Outlet, ScrollRestoration, useLocation, useNavigation } from 'react-router';
import { Spinner } from '@/components/ui/states';
import { Navbar } from './navbar';
import { Footer } from './footer';
import { StatusStrip } from './status-strip';

export function RootLayout() {
  const navigation = useNavigation();
  const location = useLocation();
  useEffect(() => {
    if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  }, [location.hash, location.pathname]);
  return (
    <div className="flex min-h-screen flex-col">
      <a href="#contenu" className="skip-link">
        Aller au contenu
      </a>
      <StatusStrip />
      <Navbar />
      {navigation.state === 'loading' && <div className="h-1 w-full animate-pulse bg-amber-400" role="progressbar" aria-label="Chargement de la page" />}
      <main id="contenu" className="flex-1" tabIndex={-1}>
        <Suspense fallback={<Spinner />}>
          <Outlet />
        </Suspense>
      </main>
      <Footer />
      <ScrollRestoration />
    </div>
  );
}
