import { useAudit } from '../api/audit';
import { ErrorNote, Loading } from '@/components/ui/states';

/** What operators did, newest first. */
export function AuditLog() {
  const audit = useAudit();
  return (
    <div className="flex h-full flex-col">
      <header className="border-b border-slate-200 bg-white px-3 py-2">
        <h1 className="text-base font-semibold">Audit log</h1>
      </header>
      {audit.isPending && <Loading />}
      {audit.error && <ErrorNote error={audit.error} />}
      <div className="min-h-0 flex-1 overflow-auto" tabIndex={0} role="region" aria-label="Audit entries (scrollable)">
        <table className="w-full text-[13px]">
          <caption className="sr-only">Operator actions, newest first</caption>
          <thead className="sticky top-0 bg-slate-100 text-left">
            <tr>
              <th scope="col" className="px-2 py-1">When (UTC)</th>
              <th scope="col" className="px-2 py-1">Operator</th>
              <th scope="col" className="px-2 py-1">Action</th>
              <th scope="col" className="px-2 py-1">On</th>
              <th scope="col" className="px-2 py-1">Detail</th>
            </tr>
          </thead>
          <tbody>
            {audit.data?.map((e) => (
              <tr key={e.id} className="border-b border-slate-200 bg-white align-top">
                <td className="px-2 py-1 whitespace-nowrap">{e.at.replace('T', ' ').slice(0, 19)}</td>
                <td className="px-2 py-1">{e.operator}</td>
                <td className="px-2 py-1 font-mono">{e.action}</td>
                <td className="px-2 py-1">{e.target ?? ''}</td>
                <td className="max-w-[40rem] truncate px-2 py-1 font-mono text-xs" title={JSON.stringify(e.detail)}>
                  {JSON.stringify(e.detail)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
