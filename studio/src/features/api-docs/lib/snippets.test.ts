import { describe, expect, it } from 'vitest';
import { exampleValue, tableSnippets, type SnippetColumn, type SnippetTable } from './snippets';

const col = (name: string, udt: string, extra: Partial<SnippetColumn> = {}): SnippetColumn => ({ name, udt, category: 'S', nullable: true, default: null, read_only: false, enum_values: null, ...extra });

const vehicles: SnippetTable = {
  schema: 'public',
  name: 'vehicles',
  primary_key: ['id'],
  columns: [
    col('id', 'uuid', { category: 'U', nullable: false, default: 'gen_random_uuid()' }),
    col('model', 'text', { nullable: false }),
    col('seats', 'int4', { category: 'N' }),
    col('available', 'bool', { category: 'B', nullable: false, default: 'true' }),
  ],
};

const byId = (t: SnippetTable) => Object.fromEntries(tableSnippets(t, 'http://127.0.0.1:54321').map((s) => [s.id, s.code]));

describe('tableSnippets', () => {
  it('reads every column, filters and pages', () => {
    const s = byId(vehicles);
    expect(s.select).toContain(".from('vehicles')");
    expect(s.select).toContain(".select('id, model, seats, available')");
    expect(s.select).toContain(".eq('model', 'model value')");
    expect(s.select).toContain('.range(0, 49)');
  });

  it('inserts the required columns with values of their types', () => {
    expect(byId(vehicles).insert).toContain("{\n    model: 'model value',\n  }");
  });

  it('updates and deletes by the primary key', () => {
    const s = byId(vehicles);
    expect(s.update).toContain(".update({ model: 'model value' })");
    expect(s.update).toContain(".eq('id', '00000000-0000-0000-0000-000000000000')");
    expect(s.delete).toContain(".delete()\n  .eq('id', '00000000-0000-0000-0000-000000000000');");
  });

  it('subscribes to the table’s changes', () => {
    expect(byId(vehicles).subscribe).toContain("{ event: '*', schema: 'public', table: 'vehicles' }");
  });

  it('names another schema, and writes no update or delete without a key', () => {
    const s = byId({ ...vehicles, schema: 'api', primary_key: [] });
    expect(s.select).toContain("supabase.schema('api').from('vehicles')");
    expect(s.update).toBeUndefined();
    expect(s.delete).toBeUndefined();
  });

  it('quotes keys that are not identifiers and never puts a key in the client', () => {
    const t: SnippetTable = { schema: 'public', name: 'odd', primary_key: ['id'], columns: [col('id', 'int4', { category: 'N', nullable: false }), col('first name', 'text', { nullable: false })] };
    expect(byId(t).insert).toContain('"first name": \'first name value\'');
    expect(byId(t).client).toContain('process.env.SUPABASE_PUBLISHABLE_KEY');
  });
});

describe('exampleValue', () => {
  it('follows the type', () => {
    expect(exampleValue(col('a', 'int8', { category: 'N' }))).toBe('1');
    expect(exampleValue(col('a', 'jsonb', { category: 'U' }))).toBe('{}');
    expect(exampleValue(col('a', '_text', { category: 'A' }))).toBe('[]');
    expect(exampleValue(col('a', 'status', { category: 'E', enum_values: ['open', 'closed'] }))).toBe('"open"');
    expect(exampleValue(col('a', 'timestamptz', { category: 'D' }))).toBe('new Date().toISOString()');
  });
});
