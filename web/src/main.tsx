import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import './index.css';
import { initialUrl, initSupabase } from '@/lib/supabase';
import { loadRuntimeConfig } from '@/config/env';
import { App } from '@/app/app';
import { prerenderedPages } from '@/app/router';

void initialUrl; // captured before the client reads the URL fragment

const container = document.getElementById('root') as HTMLElement;
const app = (
  <StrictMode>
    <App />
  </StrictMode>
);

/*
 * A page rendered at build time (scripts/prerender.mjs) is hydrated once its module is loaded;
 * the same page with a query string (a filter, a pre-selected vehicle) or any other page is
 * rendered afresh. /config.json is preloaded by index.html; nothing calls the client before.
 */
async function start() {
  const config = await loadRuntimeConfig();
  initSupabase(config);
  const path = window.location.pathname.replace(/(.)\/$/, '$1');
  const prerendered = container.firstElementChild !== null && path in prerenderedPages;
  if (prerendered && window.location.search === '') {
    await prerenderedPages[path]?.preload();
    // In a transition, hydration yields to the browser between components (time-slicing) instead
    // of blocking the main thread in one long task; the page is already readable meanwhile.
    startTransition(() => {
      hydrateRoot(container, app);
    });
  } else {
    // what the server sent (a page rendered ahead in its loading state, /fleet/:id) stays on
    // screen until React's first commit replaces it: no blank frame, nothing shifts. Rendered in a
    // transition, as hydration is: React yields to the browser between components instead of
    // blocking it in one long task (the vehicle page's total blocking time).
    const root = createRoot(container);
    startTransition(() => {
      root.render(app);
    });
  }
}

start().catch((err: unknown) => {
  console.error(err);
  container.replaceChildren();
  createRoot(container).render(
    <main style={{ fontFamily: 'system-ui', maxWidth: 560, margin: '4rem auto', padding: '0 1rem' }}>
      <h1>Service momentanément indisponible</h1>
      <p>Le site ne parvient pas à joindre le serveur. Veuillez réessayer dans quelques instants.</p>
    </main>,
  );
});
