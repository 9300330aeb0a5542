import { useEffect, useState } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { ApiError, setUnauthenticatedHandler } from '@/lib/api';
import { sessionKeys } from '@/features/auth/api/session';
import { router } from './router';

function makeClient() {
  const client = new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, refetchOnWindowFocus: false, retry: (n, e) => !(e instanceof ApiError && e.status < 500) && n < 2 },
    },
  });
  // A 401 anywhere (idle expiry, removed operator): back to sign-in.
  setUnauthenticatedHandler(() => {
    client.setQueryData(sessionKeys.current, null);
  });
  return client;
}

export function App() {
  const [client] = useState(makeClient);
  useEffect(() => () => setUnauthenticatedHandler(() => {}), []);
  return (
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
