import { useMemo } from 'react';
import { readPlan, type PlanNode } from '../lib/plan';
import { ErrorNote } from '@/components/ui/states';
import { formatCount, formatMs } from '@/lib/format';

/** An `EXPLAIN ANALYZE` plan as a tree: each node's own time and share, rows estimated and actual, buffers; the costly nodes marked. */
export function PlanTree({ plan }: { plan: unknown }) {
  const tree = useMemo(() => {
    try {
      return readPlan(plan);
    } catch (e) {
      return e instanceof Error ? e : new Error('Unreadable plan');
    }
  }, [plan]);
  if (tree instanceof Error) return <ErrorNote error={tree} />;
  return (
    <section aria-label="Query plan" className="min-h-0 flex-1 overflow-auto bg-white" tabIndex={0}>
      <p className="border-b border-slate-200 bg-slate-50 px-3 py-1 text-xs text-slate-700" aria-live="polite">
        Plan · planning {tree.planningMs === null ? '—' : formatMs(tree.planningMs)} · execution {tree.executionMs === null ? '—' : formatMs(tree.executionMs)} · run with
        ANALYZE and rolled back
      </p>
      <ul aria-label="Plan nodes" className="p-2 font-mono text-[12px]">
        <Node node={tree.root} depth={1} />
      </ul>
    </section>
  );
}

function Node({ node, depth }: { node: PlanNode; depth: number }) {
  const pct = Math.round(node.share * 100);
  return (
    <li data-testid="plan-node" data-depth={depth} data-costly={node.costly || undefined}>
      <div
        className={`my-0.5 rounded border-l-4 px-2 py-1 ${node.costly ? 'border-amber-500 bg-amber-50' : node.neverExecuted ? 'border-slate-200 bg-slate-50 text-slate-600' : 'border-slate-300 bg-white'}`}
      >
        <div className="flex flex-wrap items-baseline gap-x-3 gap-y-0.5">
          <span className="font-sans text-[13px] font-semibold text-slate-900">{node.type}</span>
          {node.target && <span className="text-slate-800">{node.target}</span>}
          {node.costly && <span className="rounded bg-amber-200 px-1 font-sans text-[11px] font-semibold text-amber-950">costly</span>}
          {node.neverExecuted && <span className="font-sans text-[11px]">never executed</span>}
          <span className="ml-auto flex flex-wrap gap-x-3 font-sans text-[12px] text-slate-800">
            <span title="The node's own time over every loop, and its share of the run">
              {formatMs(node.selfMs)} <span className="text-slate-600">({pct}%)</span>
            </span>
            <span>
              rows {formatCount(node.actualRows ?? 0)} <span className="text-slate-600">of {formatCount(node.estimatedRows)} est.</span>
              {node.loops > 1 && <span className="text-slate-600"> × {node.loops} loops</span>}
            </span>
            {node.misestimate !== null && (
              <span className="text-red-800">misestimated {node.misestimate >= 1 ? `×${formatCount(Math.round(node.misestimate))}` : `÷${formatCount(Math.round(1 / node.misestimate))}`}</span>
            )}
            <span title="Shared buffers: found in cache / read">
              buffers {formatCount(node.hitBlocks)} hit{node.readBlocks > 0 ? ` · ${formatCount(node.readBlocks)} read` : ''}
            </span>
            <span className="text-slate-600">cost {node.cost.toFixed(1)}</span>
          </span>
        </div>
        <div className="mt-0.5 h-1 w-full rounded bg-slate-100" aria-hidden="true">
          <div className={`h-1 rounded ${node.costly ? 'bg-amber-500' : 'bg-emerald-600'}`} style={{ width: `${Math.max(pct, node.selfMs > 0 ? 1 : 0)}%` }} />
        </div>
        {node.details.length > 0 && (
          <ul className="mt-0.5 text-[11px] text-slate-700">
            {node.details.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        )}
      </div>
      {node.children.length > 0 && (
        <ul className="ml-4 border-l border-slate-200 pl-2">
          {node.children.map((c) => (
            <Node key={c.id} node={c} depth={depth + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}
