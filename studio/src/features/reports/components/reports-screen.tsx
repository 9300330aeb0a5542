import { useState } from 'react';
import { PERIODS, useReport, type Period, type Report } from '../api/reports';
import {
  activeUsers,
  cacheHitRatio,
  connectionsByState,
  errorRate,
  formatBytes,
  formatPercent,
  latency,
  realtimeConnections,
  requestsBySurface,
  storageByBucket,
} from '../lib/series';
import { TimeChart } from './chart';
import { ErrorNote, Loading } from '@/components/ui/states';
import { formatCount, formatMs } from '@/lib/format';

const PERIOD_LABELS: Record<Period, string> = { '15m': '15 min', '1h': '1 hour', '24h': '24 hours', '7d': '7 days' };

function Stat({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="rounded-md border border-slate-200 bg-white px-3 py-2">
      <dt className="text-xs font-medium text-slate-600">{label}</dt>
      <dd className="text-lg font-semibold tabular-nums">{value}</dd>
      {note && <dd className="text-xs text-slate-600">{note}</dd>}
    </div>
  );
}

const ms = (v: number | null) => (v === null ? '—' : formatMs(v));
const peak = (values: (number | null)[]) => Math.max(0, ...values.map((v) => v ?? 0));

function Charts({ report }: { report: Report }) {
  const b = report.buckets;
  const bySurface = requestsBySurface(b);
  const peakRps = peak(b.map((x) => x.per_second));
  const t = report.totals;
  return (
    <div className="grid gap-3 lg:grid-cols-2">
      <TimeChart title="Requests per second by surface" unit="/s" data={bySurface} summary={`${formatCount(t.requests)} requests, peak ${peakRps.toFixed(2)}/s`} />
      <TimeChart title="Latency" unit="ms" data={latency(b)} summary={`p50 ${ms(t.p50_ms)} · p95 ${ms(t.p95_ms)} · p99 ${ms(t.p99_ms)}`} />
      <TimeChart title="Error rate" unit="%" data={errorRate(b)} summary={`${formatCount(t.errors)} 5xx and ${formatCount(t.client_errors)} 4xx answers`} />
      <TimeChart title="Active users" unit="" data={activeUsers(b)} summary={`${formatCount(t.active_users)} distinct users with a token`} />
    </div>
  );
}

/** The sampler's history: database connections, cache hit ratio, storage and realtime over the period. */
function History({ report }: { report: Report }) {
  const b = report.buckets;
  if (report.sample_seconds === 0) {
    return (
      <p role="note" className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900">
        Sampling is off (<code>REPORTS_SAMPLE_SECS=0</code>): the database, storage and realtime figures below are as they are now, with no history.
      </p>
    );
  }
  const count = b.filter((x) => x.realtime_connections !== null).length;
  const every = `sampled every ${report.sample_seconds} s`;
  const storage = storageByBucket(b);
  const last = [...b].reverse().find((x) => x.realtime_connections !== null);
  const lastConnections = last ? Object.values(last.db_connections).reduce((a, v) => a + v, 0) : null;
  return (
    <div className="grid gap-3 lg:grid-cols-2">
      <TimeChart
        title="Database connections by state"
        unit=""
        data={connectionsByState(b)}
        summary={count === 0 ? `no sample yet, ${every}` : `${lastConnections?.toFixed(1)} on average in the last bucket, ${every}`}
      />
      <TimeChart title="Cache hit ratio" unit="%" data={cacheHitRatio(b)} summary={`${formatPercent(last?.cache_hit_ratio ?? null)} in the last bucket, since the statistics' reset`} />
      <TimeChart
        title="Storage used per bucket"
        unit={storage.unit}
        data={storage.data}
        summary={`${formatBytes(Math.round(Object.values(last?.storage_bytes ?? {}).reduce((a, v) => a + v, 0)))} in the last bucket`}
      />
      <TimeChart
        title="Realtime connections"
        unit=""
        data={realtimeConnections(b)}
        summary={`${last?.realtime_connections?.toFixed(1) ?? '—'} sockets on average in the last bucket, all instances`}
      />
    </div>
  );
}

function Database({ report }: { report: Report }) {
  const d = report.database;
  const total = d.connections.reduce((a, c) => a + c.count, 0);
  return (
    <section aria-labelledby="db-title" className="rounded-md border border-slate-200 bg-white p-3">
      <h2 id="db-title" className="text-sm font-semibold">
        Database connections
      </h2>
      <p className="text-xs text-slate-700">
        {total} of {d.max_connections ?? '?'} allowed, now (pg_stat_activity)
      </p>
      <table className="mt-1 text-[13px]">
        <caption className="sr-only">Connections by state</caption>
        <tbody>
          {d.connections.map((c) => (
            <tr key={c.state}>
              <th scope="row" className="pr-4 text-left font-normal">
                {c.state}
              </th>
              <td className="text-right tabular-nums">{c.count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Statements({ report }: { report: Report }) {
  const s = report.statements;
  return (
    <section aria-labelledby="statements-title" className="rounded-md border border-slate-200 bg-white p-3 lg:col-span-2">
      <h2 id="statements-title" className="text-sm font-semibold">
        Slowest statements (mean time, pg_stat_statements, since its last reset)
      </h2>
      {!s.available ? (
        <div className="mt-1 text-sm text-slate-800">
          <p>{s.reason}</p>
          <p className="mt-1 text-xs text-slate-700">{s.hint}</p>
        </div>
      ) : (
        <div className="mt-1 overflow-x-auto" tabIndex={0} role="region" aria-label="Slowest statements (scrollable)">
          <table className="w-full text-[13px]">
            <caption className="sr-only">The ten statements slowest on average</caption>
            <thead className="bg-slate-100 text-left">
              <tr>
                <th scope="col" className="px-2 py-1">Statement</th>
                <th scope="col" className="px-2 py-1 text-right">Calls</th>
                <th scope="col" className="px-2 py-1 text-right">Mean</th>
                <th scope="col" className="px-2 py-1 text-right">Total</th>
                <th scope="col" className="px-2 py-1 text-right">Rows</th>
              </tr>
            </thead>
            <tbody>
              {s.rows.map((r, i) => (
                <tr key={i} className="border-b border-slate-200 align-top">
                  <td className="max-w-[40rem] truncate px-2 py-1 font-mono text-xs" title={r.query}>
                    {r.query}
                  </td>
                  <td className="px-2 py-1 text-right tabular-nums">{formatCount(r.calls)}</td>
                  <td className="px-2 py-1 text-right tabular-nums">{formatMs(r.mean_ms)}</td>
                  <td className="px-2 py-1 text-right tabular-nums">{formatMs(r.total_ms)}</td>
                  <td className="px-2 py-1 text-right tabular-nums">{formatCount(r.rows)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Storage({ report }: { report: Report }) {
  return (
    <section aria-labelledby="storage-title" className="rounded-md border border-slate-200 bg-white p-3">
      <h2 id="storage-title" className="text-sm font-semibold">
        Storage used per bucket
      </h2>
      {report.storage.length === 0 ? (
        <p className="text-sm text-slate-700">No bucket yet.</p>
      ) : (
        <table className="mt-1 w-full text-[13px]">
          <caption className="sr-only">Objects and bytes per bucket</caption>
          <thead className="text-left">
            <tr>
              <th scope="col" className="pr-2">Bucket</th>
              <th scope="col" className="pr-2 text-right">Objects</th>
              <th scope="col" className="text-right">Size</th>
            </tr>
          </thead>
          <tbody>
            {report.storage.map((s) => (
              <tr key={s.bucket}>
                <td className="pr-2">{s.bucket}</td>
                <td className="pr-2 text-right tabular-nums">{formatCount(s.objects)}</td>
                <td className="text-right tabular-nums">{formatBytes(s.bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Reports: traffic, latency, errors and users over a period from the request log; database, storage and realtime over the period from the sampler, and as they are now. */
export function ReportsScreen() {
  const [period, setPeriod] = useState<Period>('1h');
  const report = useReport(period);
  const r = report.data;
  return (
    <div className="flex h-full flex-col">
      <header className="flex flex-wrap items-center gap-3 border-b border-slate-200 bg-white px-3 py-2">
        <h1 className="text-base font-semibold">Reports</h1>
        <div role="group" aria-label="Period" className="inline-flex overflow-hidden rounded-md border border-slate-300">
          {PERIODS.map((p) => (
            <button
              key={p}
              type="button"
              aria-pressed={p === period}
              onClick={() => setPeriod(p)}
              className={`h-8 px-3 text-sm focus-visible:outline-2 focus-visible:outline-offset-[-2px] focus-visible:outline-emerald-600 ${p === period ? 'bg-emerald-700 text-white' : 'bg-white text-slate-800 hover:bg-slate-100'}`}
            >
              {PERIOD_LABELS[p]}
            </button>
          ))}
        </div>
        {report.isFetching && <span className="text-xs text-slate-600">Updating…</span>}
      </header>
      {report.isPending && <Loading />}
      {report.error && <ErrorNote error={report.error} />}
      {r && (
        <div className="min-h-0 flex-1 space-y-3 overflow-auto bg-slate-50 p-3" tabIndex={0} role="region" aria-label="Report (scrollable)">
          {!r.request_log_enabled && (
            <p role="note" className="rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900">
              The request log is off (<code>REQUEST_LOG_ENABLED=false</code>): the request charts show what was recorded before.
            </p>
          )}
          <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4 xl:grid-cols-7">
            <Stat label="Requests" value={formatCount(r.totals.requests)} note={`in ${PERIOD_LABELS[period]}`} />
            <Stat label="Error rate (5xx)" value={formatPercent(r.totals.error_rate)} />
            <Stat label="Latency p95" value={ms(r.totals.p95_ms)} />
            <Stat label="Active users" value={formatCount(r.totals.active_users)} />
            <Stat label="Database connections" value={formatCount(r.database.connections.reduce((a, c) => a + c.count, 0))} note={`of ${r.database.max_connections ?? '?'}`} />
            <Stat label="Cache hit ratio" value={formatPercent(r.database.cache_hit_ratio)} />
            <Stat label="Realtime connections" value={formatCount(r.realtime.connections)} note={`${r.realtime.channels} channels, this instance`} />
          </dl>
          <Charts report={r} />
          <History report={r} />
          <div className="grid gap-3 lg:grid-cols-2">
            <Database report={r} />
            <Storage report={r} />
            <Statements report={r} />
          </div>
        </div>
      )}
    </div>
  );
}
