import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './index.css';
import { initialUrl, initSupabase } from '@/lib/supabase';
import { loadRuntimeConfig } from '@/config/env';

void initialUrl; // captured before the client reads the URL fragment

const root = createRoot(document.getElementById('root') as HTMLElement);

// The app's code loads while /config.json is fetched; nothing calls the client before render.
Promise.all([loadRuntimeConfig(), import('@/app/app')])
  .then(([config, { App }]) => {
    initSupabase(config);
    root.render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  })
  .catch((err: unknown) => {
    console.error(err);
    root.render(
      <main style={{ fontFamily: 'system-ui', maxWidth: 560, margin: '4rem auto', padding: '0 1rem' }}>
        <h1>Service momentanément indisponible</h1>
        <p>Le site ne parvient pas à joindre le serveur. Veuillez réessayer dans quelques instants.</p>
      </main>,
    );
  });
