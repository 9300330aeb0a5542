import { useEffect, useRef, useState } from 'react';
import { bytesUrl, useSetBytes, type Column, type Row } from '../api/tables';
import { byteaSize, formatBytes, MAX_BYTES, toBase64 } from '../lib/bytea';
import { parseText } from '../lib/cell-value';
import { Button } from '@/components/ui/button';
import { NullOrCancel } from './null-or-cancel';
import { inputClass } from '@/components/ui/field';
import { ApiError } from '@/lib/api';

/** Values larger than this are not put in the text area (upload or download them instead). */
const TEXT_LIMIT = 64 * 1024;

/**
 * The editor of a bytea cell: its size, its hex (`\x…`) to edit (checked before sending), a
 * file to upload in its place, its bytes to download, and NULL. Hex and files go through
 * `PUT …/bytes` (the server decodes them and binds the bytes as bytea).
 */
export function BytesEditor({ schema, table, rowKey, column, value, onDone, onSetNull, onCancel, busy, error }: { schema: string; table: string; rowKey: Row; column: Column; value: unknown; onDone: () => void; onSetNull: () => void; onCancel: () => void; busy?: boolean; error?: string | null }) {
  const size = byteaSize(value);
  const tooLarge = size !== null && size > TEXT_LIMIT;
  const [text, setText] = useState(typeof value === 'string' && !tooLarge ? value : '');
  const [invalid, setInvalid] = useState<string | null>(null);
  const setBytes = useSetBytes(schema, table);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const saveHex = () => {
    const parsed = parseText(text, 'bytea');
    if (!parsed.ok) return setInvalid(parsed.error);
    setInvalid(null);
    setBytes.mutate({ key: rowKey, column: column.name, hex: parsed.value as string }, { onSuccess: onDone });
  };
  const upload = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_BYTES) return setInvalid(`A value is at most ${formatBytes(MAX_BYTES)}; ${file.name} is ${formatBytes(file.size)}`);
    setInvalid(null);
    const base64 = toBase64(new Uint8Array(await file.arrayBuffer()));
    setBytes.mutate({ key: rowKey, column: column.name, base64 }, { onSuccess: onDone });
  };
  const pending = busy || setBytes.isPending;
  const message = invalid ?? (setBytes.error instanceof ApiError ? setBytes.error.message : setBytes.error ? 'The bytes were not saved.' : error);
  return (
    <div className="flex flex-col gap-2 text-sm">
      <p className="text-xs text-slate-700" aria-live="polite">
        {size === null ? 'NULL' : `${formatBytes(size)} now`}
        {tooLarge ? ' (too large to edit as text: upload a file or download it)' : ''}
      </p>
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
        Hex (\x followed by two digits a byte)
        <textarea
          ref={ref}
          rows={5}
          className={`${inputClass} h-auto w-full font-mono`}
          aria-invalid={!!invalid}
          placeholder="\x48656c6c6f"
          value={text}
          disabled={pending}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') (e.preventDefault(), onCancel());
            else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) (e.preventDefault(), saveHex());
          }}
        />
      </label>
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
        Or upload a file (at most {formatBytes(MAX_BYTES)})
        <input type="file" className="text-sm" disabled={pending} onChange={(e) => void upload(e.target.files?.[0])} />
      </label>
      {message && (
        <p role="alert" className="text-xs text-red-700">
          {message}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button variant="primary" onClick={saveHex} disabled={pending}>
          Save hex
        </Button>
        {size !== null && (
          <a
            href={bytesUrl(schema, table, rowKey, column.name)}
            download
            className="inline-flex h-8 items-center rounded-md border border-slate-300 bg-white px-3 text-sm font-medium text-slate-800 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600"
          >
            Download
          </a>
        )}
        <NullOrCancel nullable={column.nullable} onNull={onSetNull} busy={pending} onCancel={onCancel} />
      </div>
    </div>
  );
}
