/**
 * How a column's values are edited: which control, how the typed text becomes the JSON value
 * sent to the server (which converts it to the column's type), and what is refused before
 * sending. Pure functions, tested in cell-value.test.ts.
 */
import type { Column } from '../api/tables';

export type EditorKind = 'bool' | 'enum' | 'number' | 'json' | 'date' | 'datetime' | 'uuid' | 'array' | 'bytea' | 'text';

export function editorKind(column: Pick<Column, 'udt' | 'category' | 'enum_values'>): EditorKind {
  if (column.enum_values) return 'enum';
  if (column.udt === 'bool') return 'bool';
  if (column.udt === 'json' || column.udt === 'jsonb') return 'json';
  if (column.udt === 'uuid') return 'uuid';
  if (column.udt === 'bytea') return 'bytea';
  if (column.udt === 'date') return 'date';
  if (column.udt === 'timestamp' || column.udt === 'timestamptz') return 'datetime';
  if (column.category === 'A') return 'array';
  if (column.category === 'N') return 'number';
  return 'text';
}

/** The text an editor starts with for a value (`null` stays `null`). */
export function toText(value: unknown, kind: EditorKind): string | null {
  if (value === null || value === undefined) return null;
  if (kind === 'json' || kind === 'array') return JSON.stringify(value, null, kind === 'json' ? 2 : 0);
  return typeof value === 'string' ? value : String(value);
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Postgres's bytea hex format: `\x` then pairs of hexadecimal digits (spaces between them allowed). */
const HEX = /^\\x(\s*[0-9a-f]\s*[0-9a-f])*\s*$/i;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The value to send for the text typed in an editor (`null` means SQL NULL). */
export function parseText(text: string | null, kind: EditorKind): Parsed {
  if (text === null) return { ok: true, value: null };
  const t = text.trim();
  switch (kind) {
    case 'bool':
      if (t === 'true' || t === 'false') return { ok: true, value: t === 'true' };
      return { ok: false, error: 'Choose true or false' };
    case 'number':
      if (NUMBER.test(t) || ['NaN', 'Infinity', '-Infinity'].includes(t)) return { ok: true, value: t };
      return { ok: false, error: 'Enter a number' };
    case 'json':
    case 'array':
      try {
        const value: unknown = JSON.parse(t);
        if (kind === 'array' && !Array.isArray(value)) return { ok: false, error: 'Enter a JSON array, e.g. ["a", "b"]' };
        return { ok: true, value };
      } catch (e) {
        return { ok: false, error: `Invalid JSON: ${e instanceof Error ? e.message : 'cannot be read'}` };
      }
    case 'bytea':
      if (!t.startsWith('\\x')) return { ok: false, error: 'Enter bytes as hex: \\x followed by pairs of hexadecimal digits' };
      if (!HEX.test(t)) {
        const digits = t.slice(2).replace(/\s/g, '');
        return { ok: false, error: /^[0-9a-f]*$/i.test(digits) ? 'An odd number of hexadecimal digits: each byte is two' : 'Only hexadecimal digits (0-9, a-f) may follow \\x' };
      }
      return { ok: true, value: `\\x${t.slice(2).replace(/\s/g, '').toLowerCase()}` };
    case 'uuid':
      return UUID.test(t) ? { ok: true, value: t.toLowerCase() } : { ok: false, error: 'Enter a UUID (8-4-4-4-12 hexadecimal digits)' };
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(t) ? { ok: true, value: t } : { ok: false, error: 'Enter a date as YYYY-MM-DD' };
    case 'datetime':
      return Number.isNaN(Date.parse(t)) ? { ok: false, error: 'Enter a date and time, e.g. 2026-01-31T09:30:00Z' } : { ok: true, value: t };
    default:
      return { ok: true, value: text };
  }
}

/** The primary-key values of a row, which the server matches to update or delete it. */
export function keyOf(row: Record<string, unknown>, primaryKey: string[]): Record<string, unknown> {
  return Object.fromEntries(primaryKey.map((k) => [k, row[k]]));
}
