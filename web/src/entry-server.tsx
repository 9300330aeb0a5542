/*
 * Build-time rendering of the public pages (run by scripts/prerender.mjs after `vite build`):
 * the HTML a visitor sees while the JavaScript loads, which the browser then hydrates. No data
 * is fetched here: lists render their loading outlines, the session is "not known yet".
 */
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import { AppContent, AppProviders, newQueryClient } from '@/app/app';
import { prerenderedPages, prerenderedPatterns, routePatterns } from '@/app/router';
import { ssrHead } from '@/components/ui/page';

export const paths = Object.keys(prerenderedPages);

/** Pages with a parameter, rendered in their loading state (the parameter written `_name`). */
export const patterns = Object.keys(prerenderedPatterns);

/** The paths the site answers, for the server's 404s (dist/routes.json). */
export const routes = routePatterns();

/** The columns of the vehicle page's request, for its early start (scripts/early-vehicle.js). */
export { VEHICLE_COLUMNS as vehicleColumns } from '@/features/vehicles/api/vehicles';

/** `{ html, title }` of one page. */
export async function render(path: string): Promise<{ html: string; title: string }> {
  await (prerenderedPages[path] ?? prerenderedPatterns[path.replace(/\/_([a-z]+)/g, '/:$1')])?.preload();
  ssrHead.title = '';
  const html = renderToString(
    <AppProviders client={newQueryClient()}>
      <StaticRouter location={path}>
        <AppContent />
      </StaticRouter>
    </AppProviders>,
  );
  return { html, title: ssrHead.title };
}
