import { createRoutesFromElements, Route, Routes, type RouteObject } from 'react-router';
import { RootLayout } from './layout/root-layout';
import { lazyPage, type LazyPage } from './lazy-page';
// The landing page comes with the app itself: one request less before it shows.
import Home from './routes/home';
import { adminRoutes } from './admin-routes';

/*
 * One lazily loaded module per route (src/app/routes/*), in react-router's declarative mode:
 * the site has no loaders or actions, and the data router would add about 20 KB (gzip) to the
 * JavaScript every page loads (see docs/web.md).
 */
const Fleet = lazyPage(() => import('./routes/fleet'));
const VehiclePage = lazyPage(() => import('./routes/fleet-vehicle'));
const CarRental = lazyPage(() => import('./routes/car-rental'));
const Services = lazyPage(() => import('./routes/services'));
const Premium = lazyPage(() => import('./routes/premium-service'));
const Diagnostics = lazyPage(() => import('./routes/diagnostics'));
const Airport = lazyPage(() => import('./routes/airport-service'));
const Support = lazyPage(() => import('./routes/support'));
const Booking = lazyPage(() => import('./routes/booking'));
const Blog = lazyPage(() => import('./routes/blog'));
const BlogArticle = lazyPage(() => import('./routes/blog-article'));
const About = lazyPage(() => import('./routes/about'));
const Locations = lazyPage(() => import('./routes/locations'));
const Contact = lazyPage(() => import('./routes/contact'));
const Login = lazyPage(() => import('./routes/login'));
const Register = lazyPage(() => import('./routes/register'));
const ForgotPassword = lazyPage(() => import('./routes/forgot-password'));
const VerifyEmail = lazyPage(() => import('./routes/verify-email'));
const ResetPassword = lazyPage(() => import('./routes/reset-password'));
const Profile = lazyPage(() => import('./routes/profile'));
const NotFound = lazyPage(() => import('./routes/not-found'));

/**
 * The pages rendered to HTML at build time (scripts/prerender.mjs), by path: what a visitor
 * sees before the JavaScript has run. Pages that depend on the visitor (profile, login with a
 * remembered e-mail, links from e-mails, blog articles) are left to the browser.
 */
export const prerenderedPages: Record<string, LazyPage | null> = {
  '/': null,
  '/fleet': Fleet,
  '/car-rental': CarRental,
  '/services': Services,
  '/premium-service': Premium,
  '/diagnostics': Diagnostics,
  '/airport-service': Airport,
  '/support': Support,
  '/booking': Booking,
  '/reserve': Booking,
  '/blog': Blog,
  '/about': About,
  '/locations': Locations,
  '/contact': Contact,
  '/register': Register,
  '/forgot-password': ForgotPassword,
};

/** Every route of the site, the back office's included, as <Route> elements. */
const routeElements = (
  <>
    {/* The back office (/admin/*): its own layout and lazily loaded chunks (admin-routes.tsx). */}
    {adminRoutes}
    <Route element={<RootLayout />}>
      <Route index element={<Home />} />
      <Route path="fleet" element={<Fleet />} />
      <Route path="fleet/:id" element={<VehiclePage />} />
      <Route path="car-rental" element={<CarRental />} />
      <Route path="services" element={<Services />} />
      <Route path="premium-service" element={<Premium />} />
      <Route path="diagnostics" element={<Diagnostics />} />
      <Route path="airport-service" element={<Airport />} />
      <Route path="support" element={<Support />} />
      <Route path="booking" element={<Booking />} />
      <Route path="reserve" element={<Booking />} />
      <Route path="blog" element={<Blog />} />
      <Route path="blog/:id" element={<BlogArticle />} />
      <Route path="about" element={<About />} />
      <Route path="locations" element={<Locations />} />
      <Route path="contact" element={<Contact />} />
      <Route path="login" element={<Login />} />
      <Route path="register" element={<Register />} />
      <Route path="forgot-password" element={<ForgotPassword />} />
      <Route path="verify-email" element={<VerifyEmail />} />
      <Route path="reset-password" element={<ResetPassword />} />
      <Route path="profile" element={<Profile />} />
      <Route path="*" element={<NotFound />} />
    </Route>
  </>
);

/**
 * Pages with a parameter rendered at build time in their loading state, by pattern: the server
 * sends that page for any path of the pattern (`/fleet/<id>`), so the header and footer show at
 * once instead of an empty page while the JavaScript loads (scripts/prerender.mjs writes
 * `/fleet/:id` to dist/fleet/_id/index.html).
 */
export const prerenderedPatterns: Record<string, LazyPage> = {
  '/fleet/:id': VehiclePage,
};

export function AppRoutes() {
  return <Routes>{routeElements}</Routes>;
}

/**
 * The paths the site answers (`/fleet/:id`, `/admin/*`, …), for the server: any other path is
 * answered 404 with the app's « Page introuvable » (scripts/prerender.mjs writes them to
 * dist/routes.json). The catch-all of the public site is left out; the back office's, which
 * sends any /admin/... to its dashboard, is kept.
 */
export function routePatterns(): string[] {
  const out = new Set<string>();
  const walk = (routes: RouteObject[], prefix: string) => {
    for (const r of routes) {
      const here = r.index ? prefix : r.path ? `${prefix.replace(/\/$/, '')}/${r.path}` : prefix;
      if (r.path === '*' && prefix === '') continue;
      if (r.index || (r.path && !r.children)) out.add(here || '/');
      if (r.children) walk(r.children, here);
    }
  };
  walk(createRoutesFromElements(routeElements), '');
  return [...out].sort();
}

