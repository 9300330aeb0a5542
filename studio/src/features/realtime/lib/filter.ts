/** The operators of a realtime Postgres-changes filter (`column=op.value`). */
export const FILTER_OPS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/**
 * The `filter` realtime-js sends for a column, an operator and a value: `column=op.value`, the
 * values of `in` (comma-separated, parentheses optional) wrapped as `(a,b)`. Empty column: no
 * filter. Throws with a message for the form when the filter cannot be written.
 */
export function changesFilter(column: string, op: FilterOp, value: string): string | undefined {
  const c = column.trim();
  if (!c) {
    if (value.trim()) throw new Error('Name the column to filter on');
    return undefined;
  }
  if (/[=,()]/.test(c)) throw new Error('A column name cannot hold = , ( or )');
  if (op === 'in') {
    const inner = value.trim().replace(/^\((.*)\)$/s, '$1');
    const values = inner
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    if (values.length === 0) throw new Error('Give at least one value for in');
    if (values.length > 100) throw new Error('At most 100 values for in');
    return `${c}=in.(${values.join(',')})`;
  }
  if (value.includes(',')) throw new Error('A value cannot hold a comma (use in for several values)');
  return `${c}=${op}.${value}`;
}
