import { createBrowserRouter, type RouteObject } from 'react-router';
import { RootLayout } from './layout/root-layout';
import { RouteError } from './layout/route-error';

/** One lazily loaded module per route (src/app/routes/*). */
const lazy = (load: () => Promise<{ default: React.ComponentType }>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    errorElement: <RouteError />,
    children: [
      { index: true, ...lazy(() => import('./routes/home')) },
      { path: 'fleet', ...lazy(() => import('./routes/fleet')) },
      { path: 'car-rental', ...lazy(() => import('./routes/car-rental')) },
      { path: 'services', ...lazy(() => import('./routes/services')) },
      { path: 'premium-service', ...lazy(() => import('./routes/premium-service')) },
      { path: 'diagnostics', ...lazy(() => import('./routes/diagnostics')) },
      { path: 'airport-service', ...lazy(() => import('./routes/airport-service')) },
      { path: 'support', ...lazy(() => import('./routes/support')) },
      { path: 'booking', ...lazy(() => import('./routes/booking')) },
      { path: 'reserve', ...lazy(() => import('./routes/booking')) },
      { path: 'blog', ...lazy(() => import('./routes/blog')) },
      { path: 'blog/:id', ...lazy(() => import('./routes/blog-article')) },
      { path: 'about', ...lazy(() => import('./routes/about')) },
      { path: 'locations', ...lazy(() => import('./routes/locations')) },
      { path: 'contact', ...lazy(() => import('./routes/contact')) },
      { path: 'login', ...lazy(() => import('./routes/login')) },
      { path: 'register', ...lazy(() => import('./routes/register')) },
      { path: 'forgot-password', ...lazy(() => import('./routes/forgot-password')) },
      { path: 'verify-email', ...lazy(() => import('./routes/verify-email')) },
      { path: 'reset-password', ...lazy(() => import('./routes/reset-password')) },
      { path: 'profile', ...lazy(() => import('./routes/profile')) },
      // The back office (/admin/*) is mounted here by its own module (another feature).
      { path: '*', ...lazy(() => import('./routes/not-found')) },
    ],
  },
];

export const router = createBrowserRouter(routes);
