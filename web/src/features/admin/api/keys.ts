/** TanStack Query keys of the back office, one factory. */
export const adminKeys = {
  all: ['admin'] as const,
  dashboard: () => [...adminKeys.all, 'dashboard'] as const,
  bookings: () => [...adminKeys.all, 'bookings'] as const,
  analytics: (start: string, end: string) => [...adminKeys.all, 'analytics', start, end] as const,
  users: () => [...adminKeys.all, 'users'] as const,
  vehicles: () => [...adminKeys.all, 'vehicles'] as const,
  settings: () => [...adminKeys.all, 'settings'] as const,
  messages: (box: string) => [...adminKeys.all, 'messages', box] as const,
  unread: () => [...adminKeys.all, 'unread'] as const,
  aal: (accessToken: string | undefined) => [...adminKeys.all, 'aal', accessToken ?? ''] as const,
  factors: () => [...adminKeys.all, 'factors'] as const,
};
