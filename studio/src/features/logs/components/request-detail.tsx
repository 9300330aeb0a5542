import { useRequestDetail, type LogEntry } from '../api/logs';
import { StatusBadge } from './status-badge';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { ErrorNote, Loading } from '@/components/ui/states';
import { formatMs } from '@/lib/format';

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <>
      <dt className="text-xs font-medium text-slate-600">{label}</dt>
      <dd className="min-w-0 font-mono text-[13px] break-all">{children}</dd>
    </>
  );
}

/** One request of the log, and any other answer under the same request id. */
export function RequestDetail({ id, onClose, onFilterUser }: { id: number; onClose: () => void; onFilterUser: (user: string) => void }) {
  const detail = useRequestDetail(id);
  const e: LogEntry | undefined = detail.data?.entry;
  return (
    <section aria-labelledby="request-detail-title" className="flex min-h-0 flex-col border-t border-slate-200 bg-white lg:w-[26rem] lg:border-t-0 lg:border-l">
      <header className="flex items-center gap-2 border-b border-slate-200 px-3 py-2">
        <h2 id="request-detail-title" className="mr-auto text-sm font-semibold">
          Request
        </h2>
        <Button variant="ghost" onClick={onClose} aria-label="Close the request's detail">
          Close
        </Button>
      </header>
      {detail.isPending && <Loading />}
      {detail.error && <ErrorNote error={detail.error} />}
      {e && (
        <div className="min-h-0 overflow-auto p-3">
          <dl className="grid grid-cols-[7rem_1fr] gap-x-3 gap-y-1.5">
            <Row label="Time (UTC)">{e.at.replace('T', ' ').replace('Z', '')}</Row>
            <Row label="Request id">
              <span className="inline-flex items-center gap-1">
                {e.request_id} <CopyButton text={e.request_id} label="Copy the request id" />
              </span>
            </Row>
            <Row label="Surface">{e.surface}</Row>
            <Row label="Method">{e.method}</Row>
            <Row label="Path">{e.path}</Row>
            <Row label="Route">{e.route ?? '—'}</Row>
            <Row label="Status">
              <StatusBadge status={e.status} />
            </Row>
            <Row label="Latency">{formatMs(e.duration_ms)}</Row>
            <Row label="Response size">{e.bytes === null ? 'streamed' : `${e.bytes} B`}</Row>
            <Row label="Role">{e.role ?? '—'}</Row>
            <Row label="User">
              {e.user_id ? (
                <button type="button" className="text-left text-emerald-800 underline underline-offset-2" onClick={() => onFilterUser(e.user_id!)}>
                  {e.user_id}
                </button>
              ) : (
                '—'
              )}
            </Row>
          </dl>
          <p className="mt-3 text-xs text-slate-600">The query string, headers and bodies are never kept.</p>
          {detail.data && detail.data.same_request_id.length > 0 && (
            <>
              <h3 className="mt-3 text-xs font-semibold">Other answers under this request id</h3>
              <ul className="mt-1 text-[13px]">
                {detail.data.same_request_id.map((o) => (
                  <li key={o.id} className="font-mono">
                    {o.at.slice(11, 23)} {o.method} {o.path} → {o.status}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}
