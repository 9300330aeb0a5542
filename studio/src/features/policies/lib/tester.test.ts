import { describe, expect, it } from 'vitest';
import { operationOf, type TesterForm } from './tester';

const form: TesterForm = { kind: 'select', filterColumn: '', filterOp: 'eq', filterValue: '', row: '{}', key: '{}' };

describe('the tester form', () => {
  it('builds each operation', () => {
    expect(operationOf(form)).toEqual({ kind: 'select', filters: [] });
    expect(operationOf({ ...form, filterColumn: 'total', filterOp: 'gt', filterValue: '15' })).toEqual({
      kind: 'select',
      filters: [{ column: 'total', op: 'gt', value: '15' }],
    });
    expect(operationOf({ ...form, filterColumn: 'x', filterOp: 'is_null', filterValue: 'ignored' }).kind).toBe('select');
    expect(operationOf({ ...form, kind: 'insert', row: '{"id": 9}' })).toEqual({ kind: 'insert', row: { id: 9 } });
    expect(operationOf({ ...form, kind: 'update', key: '{"id": 1}', row: '{"total": 0}' })).toEqual({ kind: 'update', key: { id: 1 }, values: { total: 0 } });
    expect(operationOf({ ...form, kind: 'delete', key: '{"id": 1}' })).toEqual({ kind: 'delete', key: { id: 1 } });
  });

  it('names the field that is not a JSON object', () => {
    expect(() => operationOf({ ...form, kind: 'insert', row: '{oops' })).toThrow('The row is not JSON');
    expect(() => operationOf({ ...form, kind: 'delete', key: '[1]' })).toThrow('The key must be a JSON object');
  });
});
