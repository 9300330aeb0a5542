/**
 * Postgres's `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` read into a tree the plan view draws:
 * each node's own time (its total over all loops less its children's), its share of the run,
 * rows estimated and actual, buffers, and whether it is one of the costly nodes.
 */

/** A node as Postgres writes it (the keys the view reads; the rest are kept in `raw`). */
export type RawNode = Record<string, unknown> & { 'Node Type': string; Plans?: RawNode[] };
export type RawPlan = { Plan: RawNode; 'Planning Time'?: number; 'Execution Time'?: number };

export type PlanNode = {
  id: string;
  type: string;
  /** `on public.notes n`, `using notes_pkey`, the join type… whatever says what the node works on. */
  target: string;
  details: string[];
  estimatedRows: number;
  actualRows: number | null;
  loops: number;
  /** The node's total time over all loops (ms). */
  totalMs: number;
  /** The node's own time: its total less its children's (ms, never below 0). */
  selfMs: number;
  /** `selfMs` as a share of the whole run (0–1). */
  share: number;
  cost: number;
  hitBlocks: number;
  readBlocks: number;
  /** Among the costly nodes: a quarter of the run or more, or the heaviest node of a run over 1 ms. */
  costly: boolean;
  /** Actual rows over estimated rows when they differ tenfold or more (either way), else null. */
  misestimate: number | null;
  neverExecuted: boolean;
  children: PlanNode[];
};

export type PlanTree = { root: PlanNode; planningMs: number | null; executionMs: number | null };

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function targetOf(n: RawNode): string {
  const parts: string[] = [];
  const rel = str(n['Relation Name']);
  if (rel) {
    const schema = str(n['Schema']);
    const alias = str(n['Alias']);
    parts.push(`on ${schema ? `${schema}.` : ''}${rel}${alias && alias !== rel ? ` ${alias}` : ''}`);
  }
  const index = str(n['Index Name']);
  if (index) parts.push(`using ${index}`);
  const join = str(n['Join Type']);
  if (join && join !== 'Inner') parts.push(`${join.toLowerCase()} join`);
  const cte = str(n['CTE Name']);
  if (cte) parts.push(`cte ${cte}`);
  const fn = str(n['Function Name']);
  if (fn) parts.push(`function ${fn}`);
  return parts.join(' ');
}

const DETAIL_KEYS = ['Index Cond', 'Recheck Cond', 'Hash Cond', 'Merge Cond', 'Join Filter', 'Filter', 'Sort Key', 'Group Key', 'Sort Method'] as const;

function detailsOf(n: RawNode): string[] {
  const out: string[] = [];
  for (const k of DETAIL_KEYS) {
    const v = n[k];
    if (Array.isArray(v)) out.push(`${k}: ${v.join(', ')}`);
    else if (typeof v === 'string') out.push(`${k}: ${v}`);
  }
  const removed = num(n['Rows Removed by Filter']);
  if (removed > 0) out.push(`Rows removed by filter: ${removed}`);
  return out;
}

function build(n: RawNode, id: string): Omit<PlanNode, 'share' | 'costly'> & { children: PlanNode[] } {
  const loops = num(n['Actual Loops']);
  const totalMs = num(n['Actual Total Time']) * loops;
  const children = (n.Plans ?? []).map((c, i) => build(c, `${id}.${i}`) as PlanNode);
  const childMs = children.reduce((s, c) => s + c.totalMs, 0);
  const estimatedRows = num(n['Plan Rows']);
  const actualRows = 'Actual Rows' in n ? num(n['Actual Rows']) : null;
  let misestimate: number | null = null;
  if (actualRows !== null && loops > 0) {
    const ratio = Math.max(actualRows, 1) / Math.max(estimatedRows, 1);
    if (ratio >= 10 || ratio <= 0.1) misestimate = ratio;
  }
  return {
    id,
    // A ModifyTable says what it does (`Delete on …`, as the text format writes it).
    type: n['Node Type'] === 'ModifyTable' ? (str(n['Operation']) ?? 'ModifyTable') : n['Node Type'],
    target: targetOf(n),
    details: detailsOf(n),
    estimatedRows,
    actualRows,
    loops,
    totalMs,
    selfMs: Math.max(0, totalMs - childMs),
    cost: num(n['Total Cost']),
    hitBlocks: num(n['Shared Hit Blocks']),
    readBlocks: num(n['Shared Read Blocks']),
    misestimate,
    neverExecuted: 'Actual Loops' in n && loops === 0,
    children,
  };
}

function* walk(n: PlanNode): Generator<PlanNode> {
  yield n;
  for (const c of n.children) yield* walk(c);
}

/** The tree of a plan, each node's share of the run and the costly ones marked. */
export function readPlan(json: unknown): PlanTree {
  const first = (Array.isArray(json) ? json[0] : json) as RawPlan | undefined;
  if (!first || typeof first !== 'object' || !first.Plan || typeof first.Plan['Node Type'] !== 'string') {
    throw new Error('Not a plan Postgres wrote as JSON');
  }
  const root = build(first.Plan, '0') as PlanNode;
  const nodes = [...walk(root)];
  const whole = Math.max(root.totalMs, nodes.reduce((s, n) => s + n.selfMs, 0));
  const heaviest = nodes.reduce((a, b) => (b.selfMs > a.selfMs ? b : a), root);
  for (const n of nodes) {
    n.share = whole > 0 ? n.selfMs / whole : 0;
    n.costly = n.share >= 0.25 || (n === heaviest && whole >= 1);
  }
  return {
    root,
    planningMs: typeof first['Planning Time'] === 'number' ? first['Planning Time'] : null,
    executionMs: typeof first['Execution Time'] === 'number' ? first['Execution Time'] : null,
  };
}
