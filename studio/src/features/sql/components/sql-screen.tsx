import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { runSql, useRunSql, useSqlHistory, type RunAs, type RunOutcome } from '../api/run-sql';
import { useExplain } from '../api/explain';
import { useSnippets, type Snippet } from '../api/snippets';
import { PlanTree } from './plan-tree';
import { SnippetsBar } from './snippets-bar';
import { Select } from '@/components/ui/field';
import { SqlEditor } from './sql-editor';
import { RunAsPicker } from './run-as-picker';
import { ResultGrid } from './results';
import { Button } from '@/components/ui/button';
import { ErrorNote } from '@/components/ui/states';

const STARTER = 'select * from information_schema.tables limit 20;';

/** The SQL editor: statements, who they run as, their results and the first error. */
export function SqlScreen() {
  const [text, setText] = useState(STARTER);
  const [runAs, setRunAs] = useState<RunAs>({ kind: 'owner' });
  const [rollback, setRollback] = useState(false);
  const run = useRunSql();
  const history = useSqlHistory();
  const [outcome, setOutcome] = useState<RunOutcome | null>(null);
  const [active, setActive] = useState(0);
  const [paging, setPaging] = useState(false);
  // What the lower half shows: the last run's results or the last plan.
  const [view, setView] = useState<'results' | 'plan'>('results');
  const explain = useExplain();
  // The open snippet lives in the URL (?snippet=), so a reload reopens it.
  const [params, setParams] = useSearchParams();
  const snippetId = params.get('snippet');
  const snippets = useSnippets();
  const loaded = useRef<string | null>(null);
  useEffect(() => {
    const s = snippets.data?.find((x) => x.id === snippetId);
    if (s && loaded.current !== s.id) {
      loaded.current = s.id;
      setText(s.sql);
    }
  }, [snippetId, snippets.data]);
  const open = (s: Snippet | null) => {
    loaded.current = s?.id ?? null;
    if (s) setText(s.sql);
    setParams(s ? { snippet: s.id } : {}, { replace: true });
  };
  const start = () => {
    if (run.isPending || !text.trim()) return;
    run.mutate(
      { sql: text, run_as: runAs, rollback },
      {
        onSuccess: (o) => {
          setOutcome(o);
          setView('results');
          setActive(Math.max(0, o.results.length - 1));
        },
      },
    );
  };
  const plan = () => {
    if (explain.isPending || !text.trim()) return;
    explain.mutate({ sql: text, run_as: runAs }, { onSuccess: () => setView('plan') });
  };
  const more = async (index: number) => {
    const r = outcome?.results[index];
    if (!outcome || !r) return;
    setPaging(true);
    try {
      const next = await runSql({ sql: r.sql, run_as: runAs, rollback: true, offset: r.offset + r.rows.length });
      const page = next.results[0];
      if (page) setOutcome({ ...outcome, results: outcome.results.map((x, i) => (i === index ? page : x)) });
    } finally {
      setPaging(false);
    }
  };
  const planError = view === 'plan' ? (explain.data?.error ?? null) : null;
  const error = view === 'plan' ? planError : (outcome?.error ?? null);
  const shown = outcome?.results[active];
  return (
    <div className="flex h-full min-w-0 flex-col">
      <header className="flex flex-wrap items-center gap-3 border-b border-slate-200 bg-white px-3 py-2">
        <h1 className="text-base font-semibold">SQL editor</h1>
        <Button variant="primary" onClick={start} disabled={run.isPending} aria-keyshortcuts="Control+Enter Meta+Enter">
          {run.isPending ? 'Running…' : 'Run'} <kbd className="text-xs">Ctrl+Enter</kbd>
        </Button>
        <Button onClick={plan} disabled={explain.isPending} aria-keyshortcuts="Control+Shift+Enter Meta+Shift+Enter" title="EXPLAIN (ANALYZE, BUFFERS) one statement, rolled back">
          {explain.isPending ? 'Explaining…' : 'Explain'} <kbd className="text-xs">Ctrl+Shift+Enter</kbd>
        </Button>
        <RunAsPicker value={runAs} onChange={setRunAs} />
        <label className="flex items-center gap-1 text-sm text-slate-700">
          <input type="checkbox" checked={rollback} onChange={(e) => setRollback(e.target.checked)} />
          Roll back when done
        </label>
        <Select
          aria-label="History"
          className="w-64"
          value=""
          onChange={(e) => {
            const picked = history.data?.[Number(e.target.value)];
            if (picked) setText(picked.sql);
          }}
        >
          <option value="">History ({history.data?.length ?? 0})</option>
          {history.data?.map((r, i) => (
            <option key={i} value={i}>
              {r.at.slice(11, 19)} {r.failed ? '✗' : '✓'} {r.sql.replace(/\s+/g, ' ').slice(0, 60)}
            </option>
          ))}
        </Select>
      </header>
      <div className="border-b border-slate-200 bg-white px-3 py-1">
        <SnippetsBar text={text} currentId={snippetId} onOpen={open} />
      </div>
      <div className="h-[38%] min-h-[8rem]">
        <SqlEditor value={text} onChange={setText} onRun={start} onExplain={plan} mark={error?.position ? { position: error.position, message: error.message } : null} />
      </div>
      {run.error ? <ErrorNote error={run.error} /> : null}
      {explain.error ? <ErrorNote error={explain.error} /> : null}
      {error && (
        <div role="alert" className="m-2 rounded-md border border-red-300 bg-red-50 p-2 text-sm text-red-900">
          <p className="font-medium">
            Statement {error.statement + 1} failed ({error.sqlstate}): {error.message}
          </p>
          {error.detail && <p>Detail: {error.detail}</p>}
          {error.hint && <p>Hint: {error.hint}</p>}
          <p className="text-xs">{view === 'plan' ? 'Nothing was explained; the transaction was rolled back.' : 'The transaction was rolled back.'}</p>
        </div>
      )}
      {view === 'plan' && explain.data?.plan != null && <PlanTree plan={explain.data.plan} />}
      {view === 'results' && outcome && (
        <p className="px-3 py-1 text-xs text-slate-700" aria-live="polite">
          {outcome.results.length} statement{outcome.results.length === 1 ? '' : 's'} run · {outcome.committed ? 'committed' : 'rolled back'}
        </p>
      )}
      {view === 'results' && outcome && outcome.results.length > 1 && (
        <div role="tablist" aria-label="Results" className="flex gap-1 border-b border-slate-200 px-2">
          {outcome.results.map((_, i) => (
            <button
              key={i}
              role="tab"
              type="button"
              aria-selected={i === active}
              className={`rounded-t px-2 py-1 text-xs ${i === active ? 'bg-white font-semibold text-emerald-900' : 'text-slate-700 hover:bg-slate-200'}`}
              onClick={() => setActive(i)}
            >
              Statement {i + 1}
            </button>
          ))}
        </div>
      )}
      {view === 'results' && shown && <ResultGrid key={`${active}-${shown.offset}`} result={shown} index={active} onMore={() => void more(active)} loadingMore={paging} />}
    </div>
  );
}
