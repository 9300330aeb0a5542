/** Every route of the customer site, in one place. */
export const paths = {
  home: '/',
  fleet: '/fleet',
  vehicle: (id: string) => `/fleet/${encodeURIComponent(id)}`,
  carRental: '/car-rental',
  services: '/services',
  premium: '/premium-service',
  diagnostics: '/diagnostics',
  airport: '/airport-service',
  support: '/support',
  booking: '/booking',
  reserve: '/reserve',
  blog: '/blog',
  blogArticle: (id: string) => `/blog/${encodeURIComponent(id)}`,
  about: '/about',
  locations: '/locations',
  contact: '/contact',
  login: '/login',
  register: '/register',
  forgotPassword: '/forgot-password',
  verifyEmail: '/verify-email',
  resetPassword: '/reset-password',
  profile: '/profile',
  adminDashboard: '/admin/dashboard',
} as const;

export type VehicleCategory = 'economic' | 'luxury' | 'suv' | 'utility';
export const fleetPath = (category?: VehicleCategory) => (category ? `${paths.fleet}?category=${category}` : paths.fleet);
