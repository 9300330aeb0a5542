import { lazy, Suspense, type ReactNode } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { Shell } from './shell';
import { TablesRoute } from './routes/tables';
import { AuditRoute } from './routes/audit';
import { Loading } from '@/components/ui/states';

// The SQL editor brings CodeMirror: loaded when the screen is opened.
const SqlRoute = lazy(() => import('./routes/sql'));
// Auth → Users and API & keys: loaded when opened.
const AuthUsersRoute = lazy(() => import('./routes/auth-users'));
const ApiRoute = lazy(() => import('./routes/api-docs'));
const later = (element: ReactNode) => <Suspense fallback={<Loading />}>{element}</Suspense>;

export const router = createBrowserRouter(
  [
    {
      path: '/',
      element: <Shell />,
      children: [
        { index: true, element: <Navigate to="/tables/public" replace /> },
        { path: 'signin', element: <Navigate to="/tables/public" replace /> },
        { path: 'tables', element: <Navigate to="/tables/public" replace /> },
        { path: 'tables/:schema', element: <TablesRoute /> },
        { path: 'tables/:schema/:table', element: <TablesRoute /> },
        {
          path: 'sql',
          element: (
            <Suspense fallback={<Loading label="Loading the editor…" />}>
              <SqlRoute />
            </Suspense>
          ),
        },
        { path: 'audit', element: <AuditRoute /> },
        // Auth → Users and API & keys
        { path: 'auth/users', element: later(<AuthUsersRoute />) },
        { path: 'auth/users/:id', element: later(<AuthUsersRoute />) },
        { path: 'api', element: later(<ApiRoute />) },
        { path: 'api/tables/:table', element: later(<ApiRoute />) },
        { path: '*', element: <p className="p-4">This page does not exist.</p> },
      ],
    },
  ],
  { basename: '/studio' },
);
