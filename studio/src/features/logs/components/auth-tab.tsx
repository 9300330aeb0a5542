import { useState } from 'react';
import { useAuthLog } from '../api/logs';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';

const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** `auth.audit_log_entries`: sign-ins, sign-ups, token refreshes… newest first. */
export function AuthTab() {
  const [q, setQ] = useState('');
  const log = useAuthLog(q);
  const rows = log.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <form role="search" aria-label="Filter the auth audit log" className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2" onSubmit={(e) => e.preventDefault()}>
        <Input type="search" aria-label="Search actions, e-mails, ids" placeholder="Search actions, e-mails, ids" className="w-72" value={q} onChange={(e) => setQ(e.target.value)} />
        <Button variant="ghost" onClick={() => void log.refetch()}>
          Refresh
        </Button>
      </form>
      {log.isPending && <Loading />}
      {log.error && <ErrorNote error={log.error} />}
      <div className="min-h-0 flex-1 overflow-auto" tabIndex={0} role="region" aria-label="Auth audit entries (scrollable)">
        <table className="w-full text-[13px]">
          <caption className="sr-only">Auth audit entries, newest first</caption>
          <thead className="sticky top-0 bg-slate-100 text-left">
            <tr>
              <th scope="col" className="px-2 py-1">Time (UTC)</th>
              <th scope="col" className="px-2 py-1">Action</th>
              <th scope="col" className="px-2 py-1">Actor</th>
              <th scope="col" className="hidden px-2 py-1 md:table-cell">IP</th>
              <th scope="col" className="hidden px-2 py-1 lg:table-cell">Payload</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr key={e.id} className="border-b border-slate-200 bg-white align-top">
                <td className="px-2 py-1 font-mono whitespace-nowrap">{(e.at ?? '').slice(0, 19).replace('T', ' ')}</td>
                <td className="px-2 py-1 font-mono">{text(e.action)}</td>
                <td className="max-w-[16rem] truncate px-2 py-1">{text(e.actor)}</td>
                <td className="hidden px-2 py-1 font-mono md:table-cell">{e.ip}</td>
                <td className="hidden max-w-[36rem] truncate px-2 py-1 font-mono text-xs lg:table-cell" title={text(e.payload)}>
                  {text(e.payload)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {log.isSuccess && rows.length === 0 && <p className="p-3 text-sm text-slate-600">No entry matches.</p>}
        {log.hasNextPage && (
          <div className="p-2">
            <Button onClick={() => log.fetchNextPage()} disabled={log.isFetchingNextPage}>
              {log.isFetchingNextPage ? 'Loading…' : 'Load older entries'}
            </Button>
          </div>
        )}
      </div>
    </div>
  );
}
