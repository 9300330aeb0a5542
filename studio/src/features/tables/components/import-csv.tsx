import { useState } from 'react';
import type { Relation } from '../api/tables';
import { useImportRows } from '../api/structure';
import { autoMapping, firstTypeError, mappedRows, parseCsv, SEPARATORS, type CsvField, type Separator } from '../lib/csv';
import { Button } from '@/components/ui/button';
import { Field, Select } from '@/components/ui/field';
import { ErrorNote } from '@/components/ui/states';

const PREVIEW = 5;

/**
 * Import a CSV file into a table (comma, semicolon or tab separated): its header mapped to the table's columns (by name first),
 * the first rows shown, numbers, uuids and JSON checked here, then every row inserted in one
 * transaction on the server; a refused row is named by its number (after the header).
 */
export function ImportCsv({ relation, onDone, onCancel }: { relation: Relation; onDone: (inserted: number) => void; onCancel: () => void }) {
  const writable = relation.columns.filter((c) => !c.read_only);
  const [file, setFile] = useState<{ name: string; header: string[]; rows: CsvField[][] } | null>(null);
  const [separator, setSeparator] = useState<Separator>(',');
  const [mapping, setMapping] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const importRows = useImportRows(relation.schema, relation.name);
  /** Parse a file's text with a separator (again when the separator changes). */
  const load = (name: string, text: string, sep: Separator) => {
    setProblem(null);
    importRows.reset();
    const parsed = parseCsv(text, sep);
    if (!parsed.ok) return (setFile(null), setProblem(parsed.error));
    setFile({ name, header: parsed.header, rows: parsed.rows });
    setMapping(autoMapping(parsed.header, writable.map((c) => c.name)));
  };
  const [source, setSource] = useState<{ name: string; text: string } | null>(null);
  const read = async (f: File | undefined) => {
    if (!f) return (setSource(null), setFile(null), setProblem(null));
    const text = await f.text();
    setSource({ name: f.name, text });
    load(f.name, text, separator);
  };
  const changeSeparator = (sep: Separator) => {
    setSeparator(sep);
    if (source) load(source.name, source.text, sep);
  };
  const mapped = file ? mappedRows(mapping, file.rows) : null;
  const submit = () => {
    if (!file || !mapped) return;
    if (!mapped.ok) return setProblem(mapped.error);
    if (mapped.rows.length === 0) return setProblem('The file has no rows');
    const typeError = firstTypeError(relation.columns, mapped.columns, mapped.rows);
    if (typeError) return setProblem(typeError);
    setProblem(null);
    importRows.mutate({ columns: mapped.columns, rows: mapped.rows }, { onSuccess: (r) => onDone(r.inserted) });
  };
  return (
    <div className="flex flex-col gap-3 text-sm">
      <div className="w-48">
        <Field label="Separator">
          {(id) => (
            <Select id={id} value={separator} onChange={(e) => changeSeparator(e.target.value as Separator)}>
              {Object.entries(SEPARATORS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </Select>
          )}
        </Field>
      </div>
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
        CSV file (a header line, fields split as chosen above, UTF-8; an empty field is NULL, "" the empty string)
        <input type="file" accept=".csv,text/csv" className="text-sm" onChange={(e) => void read(e.target.files?.[0])} />
      </label>
      {file && (
        <>
          <p className="text-xs text-slate-700">
            {file.name}: {file.rows.length} row{file.rows.length === 1 ? '' : 's'}. Map each CSV column to a column of {relation.name}.
          </p>
          <div className="overflow-x-auto rounded-md border border-slate-200">
            <table className="border-separate border-spacing-0 text-[13px]" aria-label="Preview of the first rows">
              <thead className="bg-slate-100">
                <tr>
                  {file.header.map((h, i) => (
                    <th key={i} scope="col" className="border-b border-slate-300 px-2 py-1 text-left align-top font-semibold">
                      <span className="block font-mono">{h || `column ${i + 1}`}</span>
                      <Select
                        aria-label={`Table column for ${h || `CSV column ${i + 1}`}`}
                        className="mt-1 w-36 font-normal"
                        value={mapping[i] ?? ''}
                        onChange={(e) => setMapping((m) => m.map((x, j) => (j === i ? e.target.value : x)))}
                      >
                        <option value="">Skip</option>
                        {writable.map((c) => (
                          <option key={c.name} value={c.name}>
                            {c.name} ({c.type_name})
                          </option>
                        ))}
                      </Select>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {file.rows.slice(0, PREVIEW).map((r, ri) => (
                  <tr key={ri}>
                    {r.map((v, i) => (
                      <td key={i} className={`max-w-48 truncate border-b border-slate-200 px-2 py-1 font-mono ${v === null ? 'text-slate-500 italic' : ''} ${mapping[i] ? '' : 'text-slate-400'}`}>
                        {v ?? 'NULL'}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {file.rows.length > PREVIEW && <p className="text-xs text-slate-600">and {file.rows.length - PREVIEW} more.</p>}
        </>
      )}
      {problem && (
        <p role="alert" className="text-xs text-red-700">
          {problem}
        </p>
      )}
      {importRows.error && <ErrorNote error={importRows.error} />}
      <div className="flex justify-end gap-2">
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button variant="primary" disabled={!file || importRows.isPending} onClick={submit}>
          {importRows.isPending ? 'Importing…' : `Import ${file ? file.rows.length : ''} rows`}
        </Button>
      </div>
    </div>
  );
}
