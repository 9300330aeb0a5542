/** Every route of the dashboard (under the /studio base). */
export const paths = {
  signIn: '/signin',
  tables: (schema?: string, table?: string) =>
    table && schema ? `/tables/${encodeURIComponent(schema)}/${encodeURIComponent(table)}` : schema ? `/tables/${encodeURIComponent(schema)}` : '/tables',
  sql: '/sql',
  audit: '/audit',
  // Storage and policies screens
  storage: (bucket?: string, prefix?: string) =>
    bucket ? `/storage/${encodeURIComponent(bucket)}${prefix ? `?prefix=${encodeURIComponent(prefix)}` : ''}` : '/storage',
  s3Keys: '/storage-keys',
  policies: (schema = 'public', table?: string) =>
    `/policies/${encodeURIComponent(schema)}${table ? `?table=${encodeURIComponent(table)}` : ''}`,
  // Database
  backups: '/database/backups',
  database: {
    roles: '/database/roles',
    extensions: '/database/extensions',
    migrations: '/database/migrations',
    tableSizes: '/database/table-sizes',
    indexes: '/database/indexes',
  },
  snippet: (id: string) => `/sql?snippet=${encodeURIComponent(id)}`,
  // Auth → Users and API & keys
  authUsers: '/auth/users',
  authUser: (id: string) => `/auth/users/${encodeURIComponent(id)}`,
  // Auth settings, mail templates, signing keys; the operator's account
  authSettings: '/auth/settings',
  authTemplates: '/auth/templates',
  signingKeys: '/auth/signing-keys',
  account: '/account',
  // Realtime inspector and Edge Functions
  realtime: '/realtime',
  function: (slug?: string) => (slug ? `/functions/${encodeURIComponent(slug)}` : '/functions'),
  functionSecrets: '/functions-secrets',
  // Not /api: /studio/api/ is the dashboard's own HTTP API, which a reload would reach.
  api: (table?: string) => (table ? `/api-docs/tables/${encodeURIComponent(table)}` : '/api-docs'),
  // Logs and reports
  logs: (source: 'requests' | 'postgres' | 'auth' = 'requests') => `/logs/${source}`,
  reports: '/reports',
};
