import { useEffect, useRef, useState } from 'react';
import type { Column } from '../api/tables';
import { editorKind, parseText, toText } from '../lib/cell-value';
import { Button } from '@/components/ui/button';
import { NullOrCancel } from './null-or-cancel';
import { inputClass } from '@/components/ui/field';

/**
 * The editor of one value, by its column's type: a choice for booleans and enums, a date
 * field, a validated text for numbers, uuids and timestamps, a text area checked as JSON for
 * json and arrays. Enter (Ctrl+Enter in a text area) saves, Escape cancels; NULL is a button.
 */
export function CellEditor({ column, value, onSave, onCancel, busy, error }: { column: Column; value: unknown; onSave: (v: unknown) => void; onCancel: () => void; busy?: boolean; error?: string | null }) {
  const kind = editorKind(column);
  const [text, setText] = useState<string | null>(toText(value, kind));
  const [invalid, setInvalid] = useState<string | null>(null);
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement & HTMLSelectElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const save = (t: string | null = text) => {
    const parsed = parseText(t, kind);
    if (!parsed.ok) return setInvalid(parsed.error);
    setInvalid(null);
    onSave(parsed.value);
  };
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
    } else if (e.key === 'Enter' && (kind !== 'json' && kind !== 'array' ? true : e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      save();
    }
  };
  const label = `New value of ${column.name} (${column.type_name})`;
  const common = { ref, 'aria-label': label, 'aria-invalid': !!invalid, onKeyDown, disabled: busy };
  let control;
  if (kind === 'bool' || kind === 'enum') {
    const choices = kind === 'bool' ? ['true', 'false'] : (column.enum_values ?? []);
    control = (
      <select {...common} className={`${inputClass} w-full`} value={text ?? ''} onChange={(e) => setText(e.target.value === '' ? null : e.target.value)}>
        {(text === null || column.nullable) && <option value="">NULL</option>}
        {choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    );
  } else if (kind === 'json' || kind === 'array') {
    control = <textarea {...common} rows={6} className={`${inputClass} h-auto w-full font-mono`} value={text ?? ''} onChange={(e) => setText(e.target.value)} />;
  } else {
    control = (
      <input
        {...common}
        type={kind === 'date' ? 'date' : 'text'}
        inputMode={kind === 'number' ? 'decimal' : undefined}
        className={`${inputClass} w-full ${kind === 'uuid' || kind === 'number' ? 'font-mono' : ''}`}
        value={text ?? ''}
        placeholder={text === null ? 'NULL' : undefined}
        onChange={(e) => setText(e.target.value)}
      />
    );
  }
  const message = invalid ?? error;
  return (
    <div className="flex flex-col gap-2">
      {control}
      {message && (
        <p role="alert" className="text-xs text-red-700">
          {message}
        </p>
      )}
      <div className="flex gap-2">
        <Button variant="primary" onClick={() => save()} disabled={busy}>
          Save
        </Button>
        <NullOrCancel nullable={column.nullable} onNull={() => save(null)} busy={busy} onCancel={onCancel} />
      </div>
    </div>
  );
}
