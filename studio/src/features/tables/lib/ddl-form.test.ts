import { describe, expect, it } from 'vitest';
import { columnFormSchema, emptyColumn, starterColumns, toColumnDef } from './ddl-form';

describe('column forms', () => {
  it('start a table as Supabase does: an identity key and a creation time', () => {
    expect(starterColumns().map((c) => toColumnDef(c, 'public'))).toEqual([
      { name: 'id', type: 'bigint', default: null, nullable: false, unique: false, primary_key: true, identity: true, references: null },
      { name: 'created_at', type: 'timestamptz', default: { kind: 'expression', value: 'now()' }, nullable: false, unique: false, primary_key: false, identity: false, references: null },
    ]);
  });
  it('send a value default as typed and a foreign key with its table split', () => {
    const form = emptyColumn({ name: ' car_id ', type: 'bigint', defaultKind: 'value', defaultValue: ' 0', fkTable: 'fleet.cars', fkColumn: 'id', fkOnDelete: 'cascade' });
    expect(toColumnDef(form, 'public')).toMatchObject({
      name: 'car_id',
      default: { kind: 'value', value: ' 0' },
      references: { schema: 'fleet', table: 'cars', columns: ['id'], on_delete: 'cascade' },
    });
    expect(toColumnDef(emptyColumn({ name: 'x', fkTable: 'cars', fkColumn: 'id' }), 'public').references?.schema).toBe('public');
  });
  it('refuse an empty name, an empty or smuggling expression, a default on identity, a table without column', () => {
    const issues = (v: object) => {
      const r = columnFormSchema.safeParse({ ...emptyColumn(), ...v });
      return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
    };
    expect(issues({ name: '' })).toEqual(['name']);
    expect(issues({ name: 'a', defaultKind: 'expression', defaultValue: ' ' })).toEqual(['defaultValue']);
    expect(issues({ name: 'a', defaultKind: 'expression', defaultValue: '1; drop' })).toEqual(['defaultValue']);
    expect(issues({ name: 'a', identity: true, defaultKind: 'value', defaultValue: '1' })).toEqual(['defaultKind']);
    expect(issues({ name: 'a', fkTable: 'cars' })).toEqual(['fkColumn']);
  });
});
