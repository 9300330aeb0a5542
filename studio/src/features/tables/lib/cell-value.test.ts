import { editorKind, keyOf, parseText, toText } from './cell-value';

const col = (udt: string, category = 'S', enum_values: string[] | null = null) => ({ udt, category, enum_values });

describe('editorKind', () => {
  it('picks a control per type', () => {
    expect(editorKind(col('bool', 'B'))).toBe('bool');
    expect(editorKind(col('status', 'E', ['a', 'b']))).toBe('enum');
    expect(editorKind(col('jsonb', 'U'))).toBe('json');
    expect(editorKind(col('uuid', 'U'))).toBe('uuid');
    expect(editorKind(col('date', 'D'))).toBe('date');
    expect(editorKind(col('timestamptz', 'D'))).toBe('datetime');
    expect(editorKind(col('_text', 'A'))).toBe('array');
    expect(editorKind(col('numeric', 'N'))).toBe('number');
    expect(editorKind(col('text'))).toBe('text');
  });
});

describe('parseText', () => {
  it('keeps numbers as text so no precision is lost', () => {
    expect(parseText('12345678901234567890', 'number')).toEqual({ ok: true, value: '12345678901234567890' });
    expect(parseText('1.5e3', 'number')).toEqual({ ok: true, value: '1.5e3' });
    expect(parseText('12a', 'number').ok).toBe(false);
  });
  it('validates JSON and arrays', () => {
    expect(parseText('{"a": [1]}', 'json')).toEqual({ ok: true, value: { a: [1] } });
    expect(parseText('{a: 1}', 'json').ok).toBe(false);
    expect(parseText('["x"]', 'array')).toEqual({ ok: true, value: ['x'] });
    expect(parseText('{"x": 1}', 'array').ok).toBe(false);
  });
  it('checks uuids, dates and booleans', () => {
    expect(parseText('6F1B6C1E-0000-4000-8000-000000000001', 'uuid')).toEqual({ ok: true, value: '6f1b6c1e-0000-4000-8000-000000000001' });
    expect(parseText('not-a-uuid', 'uuid').ok).toBe(false);
    expect(parseText('2026-02-30x', 'date').ok).toBe(false);
    expect(parseText('2026-02-03', 'date').ok).toBe(true);
    expect(parseText('yesterday', 'datetime').ok).toBe(false);
    expect(parseText('true', 'bool')).toEqual({ ok: true, value: true });
    expect(parseText('maybe', 'bool').ok).toBe(false);
  });
  it('sends null for NULL and text as typed', () => {
    expect(parseText(null, 'number')).toEqual({ ok: true, value: null });
    expect(parseText('  spaced ', 'text')).toEqual({ ok: true, value: '  spaced ' });
  });
});

describe('toText and keyOf', () => {
  it('shows JSON as JSON and keeps null apart', () => {
    expect(toText({ a: 1 }, 'json')).toBe('{\n  "a": 1\n}');
    expect(toText(null, 'text')).toBeNull();
    expect(toText(3, 'number')).toBe('3');
  });
  it('takes the primary key columns of a row', () => {
    expect(keyOf({ id: 1, a: 2, b: 3 }, ['id', 'b'])).toEqual({ id: 1, b: 3 });
  });
});
