/** Every route of the dashboard (under the /studio base). */
export const paths = {
  signIn: '/signin',
  tables: (schema?: string, table?: string) =>
    table && schema ? `/tables/${encodeURIComponent(schema)}/${encodeURIComponent(table)}` : schema ? `/tables/${encodeURIComponent(schema)}` : '/tables',
  sql: '/sql',
  audit: '/audit',
  // Database
  backups: '/database/backups',
};
