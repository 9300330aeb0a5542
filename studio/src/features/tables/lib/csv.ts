/**
 * CSV for the import: RFC 4180 parsing (quoted fields with separators, quotes and line breaks,
 * the separator a comma, a semicolon or a tab,
 * CRLF or LF lines, a leading BOM dropped), an unquoted empty field read as NULL and a quoted
 * one as the empty string (as `copy ... csv` and the export write them), and the header mapped
 * to the table's columns by name, values checked against their columns' types. Pure
 * functions, tested in csv.test.ts.
 */
import type { Column } from '../api/tables';
import { editorKind, parseText } from './cell-value';

export type CsvField = string | null;
export type Parsed = { ok: true; header: string[]; rows: CsvField[][] } | { ok: false; error: string };

/** The separators the import offers. */
export const SEPARATORS = { ',': 'Comma (,)', ';': 'Semicolon (;)', '\t': 'Tab' } as const;
export type Separator = keyof typeof SEPARATORS;

/** The records of `text`, fields split on `separator`; the first is the header. */
export function parseCsv(text: string, separator: Separator = ','): Parsed {
  const records: CsvField[][] = [];
  let record: CsvField[] = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  let line = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endField = () => {
    record.push(field === '' && !quoted ? null : field);
    field = '';
    quoted = false;
  };
  const endRecord = () => {
    endField();
    if (!(record.length === 1 && record[0] === null)) records.push(record);
    record = [];
  };
  for (; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else inQuotes = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"') {
      if (field !== '' || quoted) return { ok: false, error: `Line ${line}: a quote inside an unquoted field` };
      inQuotes = true;
      quoted = true;
    } else if (c === separator) endField();
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
    } else field += c;
  }
  if (inQuotes) return { ok: false, error: `Line ${line}: a quoted field is not closed` };
  if (field !== '' || quoted || record.length > 0) endRecord();
  const [header, ...rows] = records;
  if (!header) return { ok: false, error: 'The file is empty' };
  const names = header.map((h) => (h ?? '').trim());
  const width = names.length;
  const short = rows.findIndex((r) => r.length !== width);
  if (short >= 0) return { ok: false, error: `Row ${short + 1} has ${rows[short]!.length} fields, the header ${width}` };
  return { ok: true, header: names, rows };
}

/** For each CSV column, the table column it goes to (same name, case aside) or `''` (skipped). */
export function autoMapping(header: string[], columns: string[]): string[] {
  return header.map((h) => columns.find((c) => c === h) ?? columns.find((c) => c.toLowerCase() === h.toLowerCase()) ?? '');
}

/** The columns and rows to send: skipped CSV columns left out. A column mapped twice is an error. */
export function mappedRows(mapping: string[], rows: CsvField[][]): { ok: true; columns: string[]; rows: CsvField[][] } | { ok: false; error: string } {
  const used = mapping.map((m, i) => [m, i] as const).filter(([m]) => m !== '');
  if (used.length === 0) return { ok: false, error: 'Map at least one CSV column to a table column' };
  const seen = new Set<string>();
  for (const [m] of used) {
    if (seen.has(m)) return { ok: false, error: `The column ${m} is mapped twice` };
    seen.add(m);
  }
  return { ok: true, columns: used.map(([m]) => m), rows: rows.map((r) => used.map(([, i]) => r[i] ?? null)) };
}

/** The first value the server would refuse, found before sending: numbers, uuids and JSON are checked, and NULL in a required column without default. */
export function firstTypeError(columns: Column[], names: string[], rows: CsvField[][]): string | null {
  const checked = names.map((n) => columns.find((c) => c.name === n));
  for (let r = 0; r < rows.length; r++) {
    for (let i = 0; i < names.length; i++) {
      const column = checked[i];
      const value = rows[r]![i] ?? null;
      if (!column) return `Unknown column ${names[i]}`;
      if (value === null) {
        if (!column.nullable && column.default === null && !column.read_only) return `Row ${r + 1}, column ${column.name}: a value is required`;
        continue;
      }
      const kind = editorKind(column);
      if (kind !== 'number' && kind !== 'uuid' && kind !== 'json') continue;
      const parsed = parseText(value, kind);
      if (!parsed.ok) return `Row ${r + 1}, column ${column.name}: ${parsed.error}`;
    }
  }
  return null;
}
