import type { ReactNode } from 'react';
import { useIndexHints } from '../api/database';
import { formatBytes } from '../lib/format';
import { DatabaseLayout, Scroll, td, th } from './database-layout';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { Empty, ErrorNote, Loading } from '@/components/ui/states';
import { formatCount } from '@/lib/format';

/**
 * Database › Indexes: indexes never used since the statistics were reset (not keys, not unique),
 * tables read by sequential scans though large, and foreign keys no index leads; each with the
 * SQL to copy. Nothing is run from here.
 */
export function IndexesScreen() {
  const hints = useIndexHints();
  const d = hints.data;
  return (
    <DatabaseLayout title="Indexes" tools={<Button onClick={() => void hints.refetch()} disabled={hints.isFetching}>{hints.isFetching ? 'Reading…' : 'Read the statistics again'}</Button>}>
      {hints.isPending && <Loading />}
      {hints.error && <ErrorNote error={hints.error} />}
      {d && (
        <Scroll label="Index hints (scrollable)">
          <p className="border-b border-slate-200 bg-slate-50 px-3 py-1.5 text-xs text-slate-700">
            From Postgres's statistics {d.stats_reset ? `since ${d.stats_reset.replace('T', ' ').slice(0, 19)} UTC` : 'since the cluster started'}. The SQL is a suggestion to
            review and run in the SQL editor (<code>concurrently</code> cannot run inside a transaction: run it alone); nothing here changes the database.
          </p>
          <Section id="unused" title={`Unused indexes (${d.unused.length})`} note="never scanned, not a primary key, unique or constraint index">
            {d.unused.length === 0 ? (
              <Empty>No unused index.</Empty>
            ) : (
              <table className="w-full text-[13px]">
                <caption className="sr-only">Unused indexes, biggest first</caption>
                <thead className="bg-slate-100 text-left">
                  <tr>
                    <th scope="col" className={th}>Index</th>
                    <th scope="col" className={th}>Table</th>
                    <th scope="col" className={`${th} text-right`}>Size</th>
                    <th scope="col" className={th}>Definition</th>
                    <th scope="col" className={th}>Suggested SQL</th>
                  </tr>
                </thead>
                <tbody>
                  {d.unused.map((i) => (
                    <tr key={`${i.schema}.${i.name}`} className="border-b border-slate-200 bg-white" data-testid={`unused-${i.name}`}>
                      <td className={`${td} font-mono`}>{i.name}</td>
                      <td className={`${td} font-mono text-xs`}>
                        {i.schema}.{i.table}
                      </td>
                      <td className={`${td} text-right`}>{formatBytes(i.bytes)}</td>
                      <td className={`${td} font-mono text-xs break-all`}>{i.definition}</td>
                      <td className={td}>
                        <Sql text={i.drop_sql} label={`the drop of ${i.name}`} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
          <Section id="fks" title={`Foreign keys without an index (${d.unindexed_foreign_keys.length})`} note="deleting or updating a referenced row scans the whole table">
            {d.unindexed_foreign_keys.length === 0 ? (
              <Empty>Every foreign key leads an index.</Empty>
            ) : (
              <table className="w-full text-[13px]">
                <caption className="sr-only">Foreign keys whose columns lead no index</caption>
                <thead className="bg-slate-100 text-left">
                  <tr>
                    <th scope="col" className={th}>Table</th>
                    <th scope="col" className={th}>Columns</th>
                    <th scope="col" className={th}>References</th>
                    <th scope="col" className={th}>Suggested SQL</th>
                  </tr>
                </thead>
                <tbody>
                  {d.unindexed_foreign_keys.map((f) => (
                    <tr key={`${f.schema}.${f.table}.${f.name}`} className="border-b border-slate-200 bg-white" data-testid={`fk-${f.table}-${f.name}`}>
                      <td className={`${td} font-mono text-xs`}>
                        {f.schema}.{f.table}
                      </td>
                      <td className={`${td} font-mono`}>{f.columns.join(', ')}</td>
                      <td className={`${td} font-mono text-xs`}>{f.references}</td>
                      <td className={td}>
                        <Sql text={f.create_sql} label={`the index for ${f.name}`} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
          <Section id="seq" title={`Tables read by sequential scans (${d.seq_scanned.length})`} note={`more sequential than index scans, ${formatCount(d.many_rows)} rows or more`}>
            {d.seq_scanned.length === 0 ? (
              <Empty>No large table is read mostly by sequential scans.</Empty>
            ) : (
              <table className="w-full text-[13px]">
                <caption className="sr-only">Large tables read mostly by sequential scans</caption>
                <thead className="bg-slate-100 text-left">
                  <tr>
                    <th scope="col" className={th}>Table</th>
                    <th scope="col" className={`${th} text-right`}>Rows</th>
                    <th scope="col" className={`${th} text-right`}>Seq scans</th>
                    <th scope="col" className={`${th} text-right`}>Rows per seq scan</th>
                    <th scope="col" className={`${th} text-right`}>Index scans</th>
                    <th scope="col" className={th}>Suggested SQL (pick the column)</th>
                  </tr>
                </thead>
                <tbody>
                  {d.seq_scanned.map((t) => (
                    <tr key={`${t.schema}.${t.name}`} className="border-b border-slate-200 bg-white" data-testid={`seq-${t.name}`}>
                      <td className={`${td} font-mono text-xs`}>
                        {t.schema}.{t.name}
                      </td>
                      <td className={`${td} text-right`}>{formatCount(t.live_rows)}</td>
                      <td className={`${td} text-right`}>{formatCount(t.seq_scan)}</td>
                      <td className={`${td} text-right`}>{formatCount(t.rows_per_seq_scan)}</td>
                      <td className={`${td} text-right`}>{formatCount(t.idx_scan)}</td>
                      <td className={td}>
                        <Sql text={t.create_sql} label={`an index on ${t.name}`} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
        </Scroll>
      )}
    </DatabaseLayout>
  );
}

function Section({ id, title, note, children }: { id: string; title: string; note: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`idx-${id}`} className="border-b border-slate-200">
      <h2 id={`idx-${id}`} className="bg-slate-50 px-3 py-1.5 text-sm font-semibold">
        {title} <span className="font-normal text-slate-600">· {note}</span>
      </h2>
      {children}
    </section>
  );
}

function Sql({ text, label }: { text: string; label: string }) {
  return (
    <div className="flex items-start gap-1">
      <pre className="min-w-0 flex-1 overflow-auto rounded bg-slate-900 px-2 py-1 font-mono text-xs whitespace-pre-wrap text-slate-100">{text}</pre>
      <CopyButton text={text} label={`Copy ${label}`} />
    </div>
  );
}
