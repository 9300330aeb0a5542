import { lazy, Suspense, type ReactNode } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { Shell } from './shell';
import { TablesRoute } from './routes/tables';
import { AuditRoute } from './routes/audit';
import { BackupsRoute } from './routes/backups';
import { Loading } from '@/components/ui/states';

// The SQL editor brings CodeMirror: loaded when the screen is opened.
const SqlRoute = lazy(() => import('./routes/sql'));
// Storage and policies screens: chunks of their own, loaded when opened.
const StorageRoute = lazy(() => import('./routes/storage').then((m) => ({ default: m.StorageRoute })));
const S3KeysRoute = lazy(() => import('./routes/storage').then((m) => ({ default: m.S3KeysRoute })));
const PoliciesRoute = lazy(() => import('./routes/policies').then((m) => ({ default: m.PoliciesRoute })));
const later = (node: ReactNode) => <Suspense fallback={<Loading />}>{node}</Suspense>;
// Auth → Users and API & keys: loaded when opened.
const AuthUsersRoute = lazy(() => import('./routes/auth-users'));
const ApiRoute = lazy(() => import('./routes/api-docs'));
// Logs and reports (the reports bring uPlot): loaded when opened.
const LogsRoute = lazy(() => import('./routes/logs'));
const ReportsRoute = lazy(() => import('./routes/reports'));
// Auth settings, mail templates, signing keys and the operator's account: loaded when opened.
const AuthSettingsRoute = lazy(() => import('./routes/auth-config').then((m) => ({ default: m.AuthSettingsRoute })));
const TemplatesRoute = lazy(() => import('./routes/auth-config').then((m) => ({ default: m.TemplatesRoute })));
const SigningKeysRoute = lazy(() => import('./routes/auth-config').then((m) => ({ default: m.SigningKeysRoute })));
const AccountRoute = lazy(() => import('./routes/auth-config').then((m) => ({ default: m.AccountRoute })));
// Database › roles, extensions, migrations, table sizes, indexes: one chunk, loaded when opened.
const databaseRoute = (name: 'RolesRoute' | 'ExtensionsRoute' | 'MigrationsRoute' | 'TableSizesRoute' | 'IndexesRoute') =>
  lazy(() => import('./routes/database').then((m) => ({ default: m[name] })));
const RolesRoute = databaseRoute('RolesRoute');
const ExtensionsRoute = databaseRoute('ExtensionsRoute');
const MigrationsRoute = databaseRoute('MigrationsRoute');
const TableSizesRoute = databaseRoute('TableSizesRoute');
const IndexesRoute = databaseRoute('IndexesRoute');
// Realtime inspector and Edge Functions: loaded when opened (realtime-js, CodeMirror).
const RealtimeRoute = lazy(() => import('./routes/realtime'));
const FunctionsRoute = lazy(() => import('./routes/functions').then((m) => ({ default: m.FunctionsRoute })));
const FunctionSecretsRoute = lazy(() => import('./routes/functions').then((m) => ({ default: m.FunctionSecretsRoute })));

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
        // Storage and policies screens
        { path: 'storage', element: later(<StorageRoute />) },
        { path: 'storage/:bucket', element: later(<StorageRoute />) },
        { path: 'storage-keys', element: later(<S3KeysRoute />) },
        { path: 'policies', element: <Navigate to="/policies/public" replace /> },
        { path: 'policies/:schema', element: later(<PoliciesRoute />) },
        // Database
        { path: 'database', element: <Navigate to="/database/backups" replace /> },
        { path: 'database/backups', element: <BackupsRoute /> },
        { path: 'database/roles', element: later(<RolesRoute />) },
        { path: 'database/extensions', element: later(<ExtensionsRoute />) },
        { path: 'database/migrations', element: later(<MigrationsRoute />) },
        { path: 'database/table-sizes', element: later(<TableSizesRoute />) },
        { path: 'database/indexes', element: later(<IndexesRoute />) },
        // Auth → Users and API & keys
        { path: 'auth/users', element: later(<AuthUsersRoute />) },
        { path: 'auth/users/:id', element: later(<AuthUsersRoute />) },
        // Auth settings, mail templates, signing keys; the operator's account
        { path: 'auth/settings', element: later(<AuthSettingsRoute />) },
        { path: 'auth/templates', element: later(<TemplatesRoute />) },
        { path: 'auth/signing-keys', element: later(<SigningKeysRoute />) },
        { path: 'account', element: later(<AccountRoute />) },
        { path: 'api-docs', element: later(<ApiRoute />) },
        { path: 'api-docs/tables/:table', element: later(<ApiRoute />) },
        // Logs and reports
        { path: 'logs', element: <Navigate to="/logs/requests" replace /> },
        { path: 'logs/:source', element: later(<LogsRoute />) },
        { path: 'reports', element: later(<ReportsRoute />) },
        // Realtime inspector and Edge Functions
        { path: 'realtime', element: later(<RealtimeRoute />) },
        { path: 'functions', element: later(<FunctionsRoute />) },
        { path: 'functions/:slug', element: later(<FunctionsRoute />) },
        { path: 'functions-secrets', element: later(<FunctionSecretsRoute />) },
        { path: '*', element: <p className="p-4">This page does not exist.</p> },
      ],
    },
  ],
  { basename: '/studio' },
);
