import { describe, expect, it } from 'vitest';
import { changesFilter, FILTER_OPS } from './filter';

describe('changesFilter', () => {
  it('writes column=op.value for each operator', () => {
    for (const op of FILTER_OPS.filter((o) => o !== 'in')) expect(changesFilter(' id ', op, '3')).toBe(`id=${op}.3`);
  });

  it('wraps the values of in, with or without their parentheses', () => {
    expect(changesFilter('status', 'in', 'draft, sent')).toBe('status=in.(draft,sent)');
    expect(changesFilter('status', 'in', '(a,b)')).toBe('status=in.(a,b)');
    expect(() => changesFilter('status', 'in', ' ')).toThrow('at least one value');
  });

  it('is no filter without a column, and refuses what realtime would misread', () => {
    expect(changesFilter('', 'eq', '')).toBeUndefined();
    expect(() => changesFilter('', 'eq', '1')).toThrow('Name the column');
    expect(() => changesFilter('a=b', 'eq', '1')).toThrow('cannot hold');
    expect(() => changesFilter('a', 'eq', '1,2')).toThrow('comma');
  });
});
