import { useState } from 'react';
import { usePostgresLog } from '../api/logs';
import { Input, Select } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';

const LEVEL_TONES: Record<string, string> = {
  ERROR: 'text-red-800',
  FATAL: 'text-red-800 font-semibold',
  PANIC: 'text-red-800 font-semibold',
  WARNING: 'text-amber-800',
};

/** The tail of the embedded cluster's log file, filtered by level and text. */
export function PostgresTab() {
  const [level, setLevel] = useState('all');
  const [q, setQ] = useState('');
  const [live, setLive] = useState(true);
  const log = usePostgresLog(level, q, live);
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <form role="search" aria-label="Filter the Postgres log" className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2" onSubmit={(e) => e.preventDefault()}>
        <Select aria-label="Level" className="w-44" value={level} onChange={(e) => setLevel(e.target.value)}>
          <option value="all">All levels</option>
          <option value="warning">Warnings and errors</option>
          <option value="error">Errors only</option>
        </Select>
        <Input type="search" aria-label="Text contains" placeholder="Text contains" className="w-64" value={q} onChange={(e) => setQ(e.target.value)} />
        <label className="inline-flex items-center gap-1.5 text-xs font-medium">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> Follow (every 2 s)
        </label>
      </form>
      {log.isPending && <Loading />}
      {log.error && <ErrorNote error={log.error} />}
      {log.data && !log.data.available && (
        <p role="note" className="m-3 rounded-md border border-slate-300 bg-slate-50 p-3 text-sm text-slate-800">
          Not available: {log.data.reason}
        </p>
      )}
      {log.data?.available && (
        <div className="min-h-0 flex-1 overflow-auto bg-white" tabIndex={0} role="region" aria-label="Postgres log lines, newest first (scrollable)">
          {log.data.lines.length === 0 && <p className="p-3 text-sm text-slate-600">No line matches.</p>}
          <ol className="font-mono text-[12px] leading-5">
            {log.data.lines.map((l, i) => (
              <li key={`${i}-${l.text}`} className={`border-b border-slate-100 px-3 whitespace-pre-wrap ${LEVEL_TONES[l.level ?? ''] ?? 'text-slate-800'}`}>
                {l.text}
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  );
}
