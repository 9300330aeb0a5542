import { useEffect, type ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router';
import { SessionProvider } from '@/lib/session';
import { ToastHost } from '@/lib/notify';
import { AppRoutes } from './router';
import { useSiteSettings } from '@/lib/site-settings';
import { displayCurrency, setDisplayCurrency } from '@/lib/format';

export function newQueryClient() {
  return new QueryClient({
    defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 30_000 } },
  });
}

/** Everything around the routes; the router itself differs between the browser and the prerender. */
export function AppProviders({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={client}>
      <SessionProvider>
        {children}
        <ToastHost />
      </SessionProvider>
    </QueryClientProvider>
  );
}

/** Marks the page as interactive (`<html data-ready>`): end-to-end tests wait for it. */
function ReadyMark() {
  useEffect(() => {
    document.documentElement.dataset.ready = 'true';
  }, []);
  return null;
}

/**
 * What goes inside the router. The browser (BrowserRouter) and the build-time render
 * (StaticRouter) must render the very same tree: hydration reuses the HTML only where they agree,
 * and ids from useId (which label dialogs and fields) depend on the tree's shape.
 */
export function AppContent() {
  const settings = useSiteSettings();
  // prices everywhere follow the back office's currency: set it before the pages render, and
  // render them again (a new key) when it changes; dollars, the default, change nothing.
  setDisplayCurrency(settings.currency, settings.exchangeRate);
  const { currency, rate } = displayCurrency();
  return (
    <>
      <AppRoutes key={`${currency}:${rate}`} />
      <ReadyMark />
    </>
  );
}

const queryClient = newQueryClient();

export function App() {
  return (
    <AppProviders client={queryClient}>
      <BrowserRouter>
        <AppContent />
      </BrowserRouter>
    </AppProviders>
  );
}
