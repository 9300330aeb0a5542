import { lazy, Suspense } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { Shell } from './shell';
import { TablesRoute } from './routes/tables';
import { AuditRoute } from './routes/audit';
import { AuthUsersRoute } from './routes/auth-users';
import { ApiRoute } from './routes/api-docs';
import { Loading } from '@/components/ui/states';

// The SQL editor brings CodeMirror: loaded when the screen is opened.
const SqlRoute = lazy(() => import('./routes/sql'));

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
        { path: 'auth/users', element: <AuthUsersRoute /> },
        { path: 'auth/users/:id', element: <AuthUsersRoute /> },
        { path: 'api', element: <ApiRoute /> },
        { path: 'api/tables/:table', element: <ApiRoute /> },
        { path: '*', element: <p className="p-4">This page does not exist.</p> },
      ],
    },
  ],
  { basename: '/studio' },
);
