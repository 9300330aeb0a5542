import { describe, expect, it } from 'vitest';
import { readPlan, type PlanNode } from './plan';

// The shape of `explain (analyze, buffers, format json) select … from notes join users … order by …`.
const plan = [
  {
    Plan: {
      'Node Type': 'Sort',
      'Total Cost': 120.5,
      'Plan Rows': 10,
      'Actual Total Time': 10,
      'Actual Rows': 1000,
      'Actual Loops': 1,
      'Sort Key': ['n.body'],
      'Shared Hit Blocks': 5,
      'Shared Read Blocks': 2,
      Plans: [
        {
          'Node Type': 'Hash Join',
          'Join Type': 'Left',
          'Plan Rows': 10,
          'Actual Total Time': 8,
          'Actual Rows': 1000,
          'Actual Loops': 1,
          'Hash Cond': '(n.owner = u.id)',
          Plans: [
            { 'Node Type': 'Seq Scan', 'Relation Name': 'notes', Schema: 'public', Alias: 'n', 'Plan Rows': 1000, 'Actual Total Time': 6, 'Actual Rows': 1000, 'Actual Loops': 1, Filter: '(done)', 'Rows Removed by Filter': 20 },
            { 'Node Type': 'Index Scan', 'Relation Name': 'users', 'Index Name': 'users_pkey', 'Plan Rows': 1, 'Actual Total Time': 0.25, 'Actual Rows': 1, 'Actual Loops': 4 },
            { 'Node Type': 'Seq Scan', 'Relation Name': 'x', 'Plan Rows': 5, 'Actual Total Time': 0, 'Actual Rows': 0, 'Actual Loops': 0 },
          ],
        },
      ],
    },
    'Planning Time': 0.2,
    'Execution Time': 10.3,
  },
];

describe('readPlan', () => {
  const tree = readPlan(plan);
  const join = tree.root.children[0]!;
  const [scan, index, never] = join.children as [PlanNode, PlanNode, PlanNode];

  it('keeps the times of the run', () => {
    expect(tree.planningMs).toBe(0.2);
    expect(tree.executionMs).toBe(10.3);
  });

  it('gives each node its own time: its total over every loop less its children', () => {
    expect(tree.root.selfMs).toBe(2);
    expect(index.totalMs).toBe(1);
    expect(join.selfMs).toBe(1);
    expect(scan.selfMs).toBe(6);
    expect(scan.share).toBeCloseTo(0.6);
  });

  it('marks the costly nodes and leaves the cheap ones', () => {
    expect(scan.costly).toBe(true);
    expect(index.costly).toBe(false);
    expect(tree.root.costly).toBe(false);
  });

  it('says what each node works on and why', () => {
    expect(scan.target).toBe('on public.notes n');
    expect(index.target).toBe('on users using users_pkey');
    expect(join.target).toBe('left join');
    expect(scan.details).toEqual(['Filter: (done)', 'Rows removed by filter: 20']);
    expect(tree.root.details).toEqual(['Sort Key: n.body']);
    expect(tree.root.hitBlocks).toBe(5);
    expect(tree.root.readBlocks).toBe(2);
  });

  it('flags rows misestimated tenfold and nodes never executed', () => {
    expect(tree.root.misestimate).toBe(100);
    expect(scan.misestimate).toBeNull();
    expect(never.neverExecuted).toBe(true);
    expect(never.misestimate).toBeNull();
  });

  it('names a ModifyTable by its operation', () => {
    const del = readPlan([{ Plan: { 'Node Type': 'ModifyTable', Operation: 'Delete', 'Relation Name': 'notes', 'Actual Loops': 1 } }]);
    expect(del.root.type).toBe('Delete');
    expect(del.root.target).toBe('on notes');
  });

  it('refuses what is not a plan', () => {
    expect(() => readPlan([{}])).toThrow();
    expect(() => readPlan(null)).toThrow();
  });
});
