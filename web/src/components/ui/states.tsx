import type { ReactNode } from 'react';
import { Loader2, Inbox, AlertTriangle } from 'lucide-react';

export function Spinner({ label = 'Chargement…' }: { label?: string }) {
  return (
    <div role="status" className="flex items-center justify-center gap-2 py-10 text-slate-600">
      <Loader2 className="h-5 w-5 animate-spin" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
      <Inbox className="mx-auto mb-3 h-8 w-8 text-slate-400" aria-hidden="true" />
      <p className="font-semibold text-slate-800">{title}</p>
      {children && <div className="mt-2 text-sm text-slate-600">{children}</div>}
    </div>
  );
}

export function ErrorState({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div role="alert" className="rounded-xl border border-red-200 bg-red-50 px-6 py-8 text-center text-red-800">
      <AlertTriangle className="mx-auto mb-2 h-7 w-7" aria-hidden="true" />
      <p>{message}</p>
      {onRetry && (
        <button type="button" onClick={onRetry} className="mt-3 font-semibold underline focus-visible:outline-3 focus-visible:outline-amber-500">
          Réessayer
        </button>
      )}
    </div>
  );
}

/** A list from a query: spinner while loading, the error with a retry, the empty message, or the items. */
export function QueryList<T>({
  query,
  empty,
  children,
}: {
  query: { isPending: boolean; isError: boolean; error: { message: string } | null; data: T[] | undefined; refetch: () => unknown };
  empty: string;
  children: (items: T[]) => ReactNode;
}) {
  if (query.isPending) return <Spinner />;
  if (query.isError || !query.data) return <ErrorState message={query.error?.message ?? ''} onRetry={() => void query.refetch()} />;
  if (query.data.length === 0) return <EmptyState title={empty} />;
  return <>{children(query.data)}</>;
}
