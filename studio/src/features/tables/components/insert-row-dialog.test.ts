import { insertSchema, insertValues } from './insert-row-dialog';
import type { Relation } from '../api/tables';

const relation: Relation = {
  schema: 'public',
  name: 'notes',
  kind: 'r',
  primary_key: ['id'],
  columns: [
    { name: 'id', type_name: 'integer', udt: 'int4', category: 'N', nullable: false, default: null, read_only: false, enum_values: null },
    { name: 'meta', type_name: 'jsonb', udt: 'jsonb', category: 'U', nullable: true, default: null, read_only: false, enum_values: null },
    { name: 'total', type_name: 'integer', udt: 'int4', category: 'N', nullable: true, default: null, read_only: true, enum_values: null },
  ],
};

describe('the insert form', () => {
  it('sends only the filled, writable fields, parsed for their types', () => {
    expect(insertValues(relation, { id: '7', meta: '{"a": 1}', total: '3' })).toEqual({ id: '7', meta: { a: 1 } });
    expect(insertValues(relation, { id: '', meta: '' })).toEqual({});
  });
  it('refuses a field its type cannot read, and names it', () => {
    const result = insertSchema(relation).safeParse({ id: 'x', meta: '{bad' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path[0]).sort()).toEqual(['id', 'meta']);
    expect(insertSchema(relation).safeParse({ id: '1', meta: '' }).success).toBe(true);
  });
});
