import { useState } from 'react';
import { useFunctionLogs } from '../api/functions';
import { Button } from '@/components/ui/button';
import { ErrorNote } from '@/components/ui/states';

const LEVEL_STYLE: Record<string, string> = { error: 'text-red-700', warn: 'text-amber-800', info: 'text-slate-900', log: 'text-slate-900', debug: 'text-slate-600' };

/** The lines the function printed (the source of `server functions logs`), followed live. */
export function LogsPanel({ slug }: { slug: string }) {
  const [live, setLive] = useState(true);
  const logs = useFunctionLogs(slug, live);
  const lines = logs.data ?? [];
  return (
    <section aria-labelledby="logs-title" className="flex flex-col gap-2 border-t border-slate-200 p-3">
      <div className="flex items-center gap-2">
        <h2 id="logs-title" className="text-sm font-semibold">
          Logs
        </h2>
        <span className="text-xs text-slate-600">{live ? 'live, every 2 s' : 'paused'}</span>
        <div className="ml-auto flex gap-2">
          <Button onClick={() => setLive(!live)} aria-pressed={!live}>
            {live ? 'Pause' : 'Follow'}
          </Button>
          <Button onClick={() => void logs.refetch()}>Refresh</Button>
        </div>
      </div>
      {logs.error && <ErrorNote error={logs.error} />}
      <div className="max-h-72 overflow-auto rounded-md border border-slate-200 bg-white" tabIndex={0} role="region" aria-label="Function logs (scrollable)">
        {!lines.length ? (
          <p className="p-2 text-xs text-slate-600">No line yet: what the function prints with console.log appears here.</p>
        ) : (
          <ol className="font-mono text-xs" aria-label="Log lines">
            {lines.map((l, i) => (
              <li key={`${l.timestamp}-${i}`} className="flex gap-2 border-b border-slate-100 px-2 py-0.5" data-testid="log-line">
                <span className="shrink-0 text-slate-600">{l.timestamp ? new Date(l.timestamp).toISOString().slice(11, 23) : ''}</span>
                <span className={`w-10 shrink-0 ${LEVEL_STYLE[l.level] ?? ''}`}>{l.level}</span>
                <span className="break-all whitespace-pre-wrap text-slate-900">{l.message}</span>
                {l.request_id && (
                  <span className="ml-auto shrink-0 text-slate-600" title={`request ${l.request_id}`}>
                    {l.request_id.slice(0, 8)}
                  </span>
                )}
              </li>
            ))}
          </ol>
        )}
      </div>
    </section>
  );
}
