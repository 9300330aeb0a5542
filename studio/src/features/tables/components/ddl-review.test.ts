import { describe, expect, it } from 'vitest';
import { markExpressions } from './ddl-review';
import { alterDdl } from './structure-forms';

describe('markExpressions', () => {
  it('marks each typed expression inside its parentheses, once, in order', () => {
    const sql = 'create table "t" ("a" timestamptz default (now()), "b" int default \'now()\', check ((b > 0)));';
    expect(markExpressions(sql, ['now()', '(b > 0)'])).toEqual([
      { text: 'create table "t" ("a" timestamptz default (', typed: false },
      { text: 'now()', typed: true },
      { text: '), "b" int default \'now()\', check (', typed: false },
      { text: '(b > 0)', typed: true },
      { text: '));', typed: false },
    ]);
    expect(markExpressions('drop table "t";', [])).toEqual([{ text: 'drop table "t";', typed: false }]);
  });
});

describe('alterDdl', () => {
  const column = { name: 'km', type_name: 'integer', udt: 'int4', category: 'N', nullable: true, default: null, read_only: false, enum_values: null };
  const at = { schema: 'public', table: 'trips' };
  it('sends only what changed', () => {
    expect(alterDdl(at, column, { name: 'distance', type: 'bigint', defaultKind: 'expression', defaultValue: ' 0 ', notNull: 'yes' })).toEqual({
      op: 'alter_column',
      schema: 'public',
      table: 'trips',
      column: 'km',
      rename_to: 'distance',
      type: 'bigint',
      default: { kind: 'expression', value: '0' },
      not_null: true,
    });
    expect(alterDdl(at, column, { name: 'km', type: 'integer', defaultKind: 'drop', defaultValue: '', notNull: 'keep' })).toEqual({ op: 'alter_column', ...at, column: 'km', drop_default: true });
    expect(alterDdl(at, column, { name: 'km', type: 'integer', defaultKind: 'keep', defaultValue: '', notNull: 'keep' })).toBeNull();
  });
});
