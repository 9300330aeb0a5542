import { describe, expect, it } from 'vitest';
import { autoMapping, firstTypeError, mappedRows, parseCsv } from './csv';

describe('parseCsv', () => {
  it('reads quoted fields with commas, quotes and line breaks, CRLF or LF', () => {
    const r = parseCsv('\ufeffid,name,note\r\n1,"Tesla, ""Model 3""","two\nlines"\n2,Kia,\r\n');
    expect(r).toEqual({ ok: true, header: ['id', 'name', 'note'], rows: [['1', 'Tesla, "Model 3"', 'two\nlines'], ['2', 'Kia', null]] });
  });
  it('reads an unquoted empty field as NULL and a quoted one as the empty string', () => {
    expect(parseCsv('a,b\n,""')).toEqual({ ok: true, header: ['a', 'b'], rows: [[null, '']] });
  });
  it('skips blank lines and refuses ragged rows, stray quotes and open quotes', () => {
    expect(parseCsv('a\n\n1\n')).toEqual({ ok: true, header: ['a'], rows: [['1']] });
    expect(parseCsv('a,b\n1')).toEqual({ ok: false, error: 'Row 1 has 1 fields, the header 2' });
    expect(parseCsv('a\nx"y')).toEqual({ ok: false, error: 'Line 2: a quote inside an unquoted field' });
    expect(parseCsv('a\n"open')).toEqual({ ok: false, error: 'Line 2: a quoted field is not closed' });
    expect(parseCsv('')).toEqual({ ok: false, error: 'The file is empty' });
  });
  it('splits on the chosen separator: a semicolon or a tab, commas then kept in fields', () => {
    expect(parseCsv('id;name\n1;"a;b"\n2;1,5\n', ';')).toEqual({ ok: true, header: ['id', 'name'], rows: [['1', 'a;b'], ['2', '1,5']] });
    expect(parseCsv('id\tname\n1\t\n2\t""\n', '\t')).toEqual({ ok: true, header: ['id', 'name'], rows: [['1', null], ['2', '']] });
    expect(parseCsv('id;name\n1;x\n', ',')).toEqual({ ok: true, header: ['id;name'], rows: [['1;x']] });
  });
});

describe('mapping', () => {
  it('maps the header by name, case aside, and leaves the rest out', () => {
    expect(autoMapping(['ID', 'model', 'extra'], ['id', 'model'])).toEqual(['id', 'model', '']);
  });
  it('sends only mapped columns and refuses a column mapped twice', () => {
    expect(mappedRows(['id', '', 'model'], [['1', 'x', 'm']])).toEqual({ ok: true, columns: ['id', 'model'], rows: [['1', 'm']] });
    expect(mappedRows(['id', 'id'], [])).toEqual({ ok: false, error: 'The column id is mapped twice' });
    expect(mappedRows(['', ''], [])).toEqual({ ok: false, error: 'Map at least one CSV column to a table column' });
  });
});

describe('firstTypeError', () => {
  const col = (name: string, udt: string, category: string, nullable = true, def: string | null = null) => ({
    name,
    type_name: udt,
    udt,
    category,
    nullable,
    default: def,
    read_only: false,
    enum_values: null,
  });
  const columns = [col('id', 'int8', 'N', false, "nextval('s')"), col('price', 'numeric', 'N'), col('specs', 'jsonb', 'U'), col('model', 'text', 'S', false)];
  it('names the first row whose number, JSON or required value is wrong', () => {
    expect(firstTypeError(columns, ['price', 'specs'], [['1.5', '{"a":1}'], ['cheap', null]])).toBe('Row 2, column price: Enter a number');
    expect(firstTypeError(columns, ['specs'], [['{oops']])).toMatch(/^Row 1, column specs: Invalid JSON/);
    expect(firstTypeError(columns, ['model', 'id'], [[null, null]])).toBe('Row 1, column model: a value is required');
    expect(firstTypeError(columns, ['model', 'id', 'price'], [['x', null, '-2e3']])).toBeNull();
  });
});
