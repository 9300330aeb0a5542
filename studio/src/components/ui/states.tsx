import type { ReactNode } from 'react';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p role="status" className="p-4 text-sm text-slate-600">
      {label}
    </p>
  );
}

export function ErrorNote({ error, action }: { error: unknown; action?: ReactNode }) {
  const message = error instanceof Error ? error.message : 'Something went wrong';
  return (
    <div role="alert" className="m-3 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800">
      <p>{message}</p>
      {action}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="p-4 text-sm text-slate-600">{children}</p>;
}
