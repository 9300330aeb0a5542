import { Suspense } from 'react';
import { Navigate, Outlet, Route, useLocation } from 'react-router';
import { Spinner } from '@/components/ui/states';
import { adminPaths } from '@/config/admin-paths';
import { lazyPage } from './lazy-page';
import { RouteErrorBoundary } from './layout/route-error';

/*
 * The back office (/admin/*): every module is loaded lazily, so the customer pages never load
 * admin code (nothing outside these routes imports src/features/admin).
 */
const AdminLogin = lazyPage(() => import('./routes/admin/login'));
const AdminLayout = lazyPage(() => import('./routes/admin/layout'));
const Dashboard = lazyPage(() => import('./routes/admin/dashboard'));
const Bookings = lazyPage(() => import('./routes/admin/bookings'));
const Calendar = lazyPage(() => import('./routes/admin/calendar'));
const Vehicles = lazyPage(() => import('./routes/admin/vehicles'));
const Users = lazyPage(() => import('./routes/admin/users'));
const Messages = lazyPage(() => import('./routes/admin/messages'));
const Reports = lazyPage(() => import('./routes/admin/reports'));
const Settings = lazyPage(() => import('./routes/admin/settings'));
const Security = lazyPage(() => import('./routes/admin/security'));

/** Catches a failing admin page and shows a spinner while its code loads. */
function AdminFrame() {
  const { pathname } = useLocation();
  return (
    <RouteErrorBoundary resetKey={pathname}>
      <Suspense fallback={<Spinner />}>
        <Outlet />
      </Suspense>
    </RouteErrorBoundary>
  );
}

export const adminRoutes = (
  <Route path="admin" element={<AdminFrame />}>
    <Route path="login" element={<AdminLogin />} />
    <Route element={<AdminLayout />}>
      <Route index element={<Dashboard />} />
      <Route path="dashboard" element={<Dashboard />} />
      <Route path="bookings" element={<Bookings />} />
      <Route path="calendar" element={<Calendar />} />
      <Route path="vehicles" element={<Vehicles />} />
      <Route path="users" element={<Users />} />
      <Route path="messages" element={<Messages />} />
      <Route path="reports" element={<Reports />} />
      <Route path="settings" element={<Settings />} />
      <Route path="security" element={<Security />} />
      <Route path="*" element={<Navigate to={adminPaths.dashboard} replace />} />
    </Route>
  </Route>
);
