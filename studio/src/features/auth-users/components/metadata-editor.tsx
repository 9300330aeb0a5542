import { useState } from 'react';
import { useSaveMetadata } from '../api/users';
import { parseMetadata } from '../lib/filters';
import { Button } from '@/components/ui/button';
import { ErrorNote } from '@/components/ui/states';

/** A user's app or user metadata as JSON, checked before it is saved (it replaces what is stored). */
export function MetadataEditor({ id, which, label, value }: { id: string; which: 'app_metadata' | 'user_metadata'; label: string; value: Record<string, unknown> }) {
  const initial = JSON.stringify(value, null, 2);
  const [text, setText] = useState(initial);
  const [invalid, setInvalid] = useState<string | null>(null);
  const save = useSaveMetadata(id);
  const fieldId = `${which}-${id}`;
  return (
    <form
      className="flex flex-col gap-1"
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = parseMetadata(text);
        if (!parsed.ok) return setInvalid(parsed.error);
        setInvalid(null);
        save.mutate({ [which]: parsed.value });
      }}
    >
      <label htmlFor={fieldId} className="text-xs font-medium text-slate-700">
        {label}
      </label>
      <textarea
        id={fieldId}
        spellCheck={false}
        rows={Math.min(12, Math.max(4, text.split('\n').length))}
        className="rounded-md border border-slate-300 p-2 font-mono text-xs focus:border-emerald-600 focus:outline-2 focus:outline-emerald-600/30"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if ((e.ctrlKey || e.metaKey) && e.key === 's') {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }
        }}
      />
      {invalid && (
        <p role="alert" className="text-xs text-red-700">
          {invalid}
        </p>
      )}
      {save.error && <ErrorNote error={save.error} />}
      <div className="flex items-center gap-2">
        <Button type="submit" disabled={save.isPending || text === initial}>
          Save {label.toLowerCase()}
        </Button>
        <span className="text-xs text-slate-600">Ctrl+S saves</span>
      </div>
    </form>
  );
}
