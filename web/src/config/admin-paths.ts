/** Every route of the back office (/admin/*), in one place (the customer site's are in paths.ts). */
export const adminPaths = {
  login: '/admin/login',
  root: '/admin',
  dashboard: '/admin/dashboard',
  bookings: '/admin/bookings',
  calendar: '/admin/calendar',
  vehicles: '/admin/vehicles',
  users: '/admin/users',
  messages: '/admin/messages',
  reports: '/admin/reports',
  settings: '/admin/settings',
  security: '/admin/security',
} as const;
