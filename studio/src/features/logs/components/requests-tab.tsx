import { useEffect, useState } from 'react';
import { useRequestLog, useRequestTail, type LogEntry } from '../api/logs';
import { mergeNewest, NO_FILTERS, type RequestFilters } from '../lib/filters';
import { RequestDetail } from './request-detail';
import { RequestFiltersBar } from './request-filters';
import { StatusBadge } from './status-badge';
import { Button } from '@/components/ui/button';
import { ErrorNote, Loading } from '@/components/ui/states';
import { formatMs } from '@/lib/format';

/** Rows the live tail keeps on screen. */
const TAIL_KEEP = 1000;

/** The request log: filters, newest first, older pages on demand, a live tail and a request's detail. */
export function RequestsTab() {
  const [filters, setFilters] = useState<RequestFilters>(NO_FILTERS);
  const [live, setLive] = useState(false);
  const [tail, setTail] = useState<LogEntry[]>([]);
  const [selected, setSelected] = useState<number | null>(null);
  const log = useRequestLog(filters);
  const paged = log.data?.pages.flatMap((p) => p.entries) ?? [];
  const newest = tail[0]?.id ?? paged[0]?.id ?? 0;
  const tailQuery = useRequestTail(filters, newest, live && log.isSuccess);
  useEffect(() => setTail([]), [filters]);
  useEffect(() => {
    const rows = tailQuery.data?.entries;
    if (rows && rows.length > 0) setTail((t) => mergeNewest(rows, t, TAIL_KEEP));
  }, [tailQuery.data]);
  const rows = tail.length > 0 ? mergeNewest(tail, paged, TAIL_KEEP + paged.length) : paged;
  const first = log.data?.pages[0];
  const apply = (f: RequestFilters) => {
    setSelected(null);
    setFilters(f);
  };
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <RequestFiltersBar value={filters} onApply={apply} />
      <div className="flex items-center gap-3 border-b border-slate-200 bg-slate-50 px-3 py-1.5 text-xs text-slate-700">
        <label className="inline-flex items-center gap-1.5 font-medium">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> Live tail (every 2 s)
        </label>
        <span aria-live="polite">
          {rows.length} request{rows.length === 1 ? '' : 's'} shown{live && tailQuery.isFetching ? ' · checking for new ones…' : ''}
        </span>
        {first && <span className="ml-auto">Kept for {first.retention_hours} h</span>}
        <Button
          variant="ghost"
          onClick={() => {
            setTail([]);
            void log.refetch();
          }}
        >
          Refresh
        </Button>
      </div>
      {first && !first.enabled && (
        <p role="note" className="m-3 rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900">
          The request log is off (<code>REQUEST_LOG_ENABLED=false</code>): no new request is recorded.
        </p>
      )}
      {log.isPending && <Loading />}
      {log.error && <ErrorNote error={log.error} />}
      <div className="flex min-h-0 flex-1 flex-col lg:flex-row">
        <div className="min-h-0 flex-1 overflow-auto" tabIndex={0} role="region" aria-label="Requests (scrollable)">
          <table className="w-full text-[13px]">
            <caption className="sr-only">Requests, newest first</caption>
            <thead className="sticky top-0 bg-slate-100 text-left">
              <tr>
                <th scope="col" className="px-2 py-1">Time (UTC)</th>
                <th scope="col" className="px-2 py-1">Surface</th>
                <th scope="col" className="px-2 py-1">Request</th>
                <th scope="col" className="px-2 py-1">Status</th>
                <th scope="col" className="px-2 py-1 text-right">Latency</th>
                <th scope="col" className="hidden px-2 py-1 xl:table-cell">Role</th>
                <th scope="col" className="hidden px-2 py-1 md:table-cell">Request id</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} className={`border-b border-slate-200 align-top ${r.id === selected ? 'bg-emerald-50' : 'bg-white hover:bg-slate-50'}`}>
                  <td className="px-2 py-1 font-mono whitespace-nowrap">{r.at.slice(5, 23).replace('T', ' ')}</td>
                  <td className="px-2 py-1">{r.surface}</td>
                  <td className="max-w-[28rem] truncate px-2 py-1">
                    <button
                      type="button"
                      className="max-w-full truncate text-left font-mono text-emerald-800 underline-offset-2 hover:underline"
                      aria-label={`Show ${r.method} ${r.path} (${r.status})`}
                      aria-pressed={r.id === selected}
                      onClick={() => setSelected(r.id)}
                    >
                      {r.method} {r.path}
                    </button>
                  </td>
                  <td className="px-2 py-1">
                    <StatusBadge status={r.status} />
                  </td>
                  <td className="px-2 py-1 text-right font-mono whitespace-nowrap">{formatMs(r.duration_ms)}</td>
                  <td className="hidden px-2 py-1 xl:table-cell">{r.role ?? ''}</td>
                  <td className="hidden max-w-[16rem] truncate px-2 py-1 font-mono text-xs md:table-cell">{r.request_id}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {log.isSuccess && rows.length === 0 && <p className="p-3 text-sm text-slate-600">No request matches.</p>}
          {log.hasNextPage && (
            <div className="p-2">
              <Button onClick={() => log.fetchNextPage()} disabled={log.isFetchingNextPage}>
                {log.isFetchingNextPage ? 'Loading…' : 'Load older requests'}
              </Button>
            </div>
          )}
        </div>
        {selected !== null && (
          <RequestDetail id={selected} onClose={() => setSelected(null)} onFilterUser={(user) => apply({ ...filters, user })} />
        )}
      </div>
    </div>
  );
}
