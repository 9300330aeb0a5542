import { useInstances, usePublication } from '../api/realtime';
import { ErrorNote, Loading } from '@/components/ui/states';

/** The tables of the publication, and the sockets and channels of each instance. */
export function ServerPanel() {
  const publication = usePublication();
  const instances = useInstances();
  return (
    <div className="flex flex-col gap-4 p-3">
      <section aria-labelledby="publication-title">
        <h2 id="publication-title" className="mb-1 text-sm font-semibold">
          Publication <code className="font-mono text-xs">supabase_realtime</code>
        </h2>
        {publication.isPending && <Loading />}
        {publication.error && <ErrorNote error={publication.error} />}
        {publication.data && !publication.data.exists && <p className="text-xs text-amber-800">The publication does not exist: no Postgres change is sent.</p>}
        {publication.data?.exists && !publication.data.tables.length && <p className="text-xs text-slate-600">No table is in the publication (the table editor adds them).</p>}
        {!!publication.data?.tables.length && (
          <table className="w-full text-xs" aria-label="Tables in the publication">
            <thead>
              <tr className="text-left text-slate-600">
                <th scope="col" className="py-0.5 font-medium">
                  Table
                </th>
                <th scope="col" className="py-0.5 font-medium" title="Replica identity: full sends the old row on update and delete">
                  Old rows
                </th>
              </tr>
            </thead>
            <tbody>
              {publication.data.tables.map((t) => (
                <tr key={`${t.schema}.${t.table}`} className="border-t border-slate-100">
                  <td className="py-0.5 font-mono">
                    {t.schema}.{t.table}
                  </td>
                  <td className="py-0.5">{t.replica_identity === 'full' ? 'full' : `key only (${t.replica_identity})`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="instances-title">
        <h2 id="instances-title" className="mb-1 text-sm font-semibold">
          Instances
        </h2>
        {instances.isPending && <Loading />}
        {instances.error && <ErrorNote error={instances.error} />}
        {instances.data && (
          <>
            <table className="w-full text-xs" aria-label="Realtime instances">
              <thead>
                <tr className="text-left text-slate-600">
                  <th scope="col" className="py-0.5 font-medium">
                    Instance
                  </th>
                  <th scope="col" className="py-0.5 text-right font-medium">
                    Sockets
                  </th>
                  <th scope="col" className="py-0.5 text-right font-medium">
                    Channels
                  </th>
                </tr>
              </thead>
              <tbody>
                <tr className="border-t border-slate-100" data-testid="this-instance">
                  <td className="py-0.5 font-mono" title={instances.data.this.instance}>
                    {instances.data.this.instance.slice(0, 8)} <span className="font-sans text-slate-600">(this one)</span>
                  </td>
                  <td className="py-0.5 text-right tabular-nums">{instances.data.this.connections}</td>
                  <td className="py-0.5 text-right tabular-nums">{instances.data.this.channels}</td>
                </tr>
                {instances.data.peers.map((p) => (
                  <tr key={p.instance} className="border-t border-slate-100">
                    <td className="py-0.5 font-mono" title={`${p.instance}: last heard ${p.seconds_since_hello} s ago`}>
                      {p.instance.slice(0, 8)}
                    </td>
                    <td className="py-0.5 text-right tabular-nums">{p.connections ?? '—'}</td>
                    <td className="py-0.5 text-right tabular-nums">{p.channels ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <h3 className="mt-3 mb-1 text-xs font-semibold text-slate-700">Topics on this instance</h3>
            {!instances.data.this.topics.length ? (
              <p className="text-xs text-slate-600">No channel is joined.</p>
            ) : (
              <ul className="text-xs" aria-label="Topics on this instance">
                {instances.data.this.topics.map((t) => (
                  <li key={`${t.topic}-${t.private}`} className="flex justify-between gap-2 border-t border-slate-100 py-0.5">
                    <span className="truncate font-mono">
                      {t.topic}
                      {t.private && <span className="ml-1 font-sans text-amber-800">private</span>}
                    </span>
                    <span className="shrink-0 text-slate-700">
                      {t.channels} ch · {t.presences} presence{t.presences === 1 ? '' : 's'}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </section>
    </div>
  );
}
