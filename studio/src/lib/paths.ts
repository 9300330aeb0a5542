/** Every route of the dashboard (under the /studio base). */
export const paths = {
  signIn: '/signin',
  tables: (schema?: string, table?: string) =>
    table && schema ? `/tables/${encodeURIComponent(schema)}/${encodeURIComponent(table)}` : schema ? `/tables/${encodeURIComponent(schema)}` : '/tables',
  sql: '/sql',
  audit: '/audit',
  // Auth → Users and API & keys
  authUsers: '/auth/users',
  authUser: (id: string) => `/auth/users/${encodeURIComponent(id)}`,
  api: (table?: string) => (table ? `/api/tables/${encodeURIComponent(table)}` : '/api'),
};
