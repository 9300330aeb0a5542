import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { snippetNameSchema, useCreateSnippet, useDeleteSnippet, useSnippets, useUpdateSnippet, type Snippet, type SnippetName } from '../api/snippets';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Field, Input, Select } from '@/components/ui/field';
import { ErrorNote } from '@/components/ui/states';

type Asking = null | 'save-as' | 'rename' | 'delete';

/**
 * The saved snippets of the SQL editor: open one, save the editor's text into the open one
 * (Ctrl/Cmd+S; a new one is named first), save as, rename, delete. The open snippet is the
 * page's `?snippet=` so a reload reopens it.
 */
export function SnippetsBar({
  text,
  currentId,
  onOpen,
}: {
  text: string;
  currentId: string | null;
  /** A snippet opened (its text goes into the editor), or none (after a delete). */
  onOpen: (snippet: Snippet | null) => void;
}) {
  const snippets = useSnippets();
  const create = useCreateSnippet();
  const update = useUpdateSnippet();
  const remove = useDeleteSnippet();
  const [asking, setAsking] = useState<Asking>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const current = snippets.data?.find((s) => s.id === currentId) ?? null;
  const dirty = current !== null && current.sql !== text;

  const save = () => {
    if (current) update.mutate({ id: current.id, sql: text }, { onSuccess: (s) => setSaved(`Saved “${s.name}”.`) });
    else setAsking('save-as');
  };
  const saveRef = useRef(save);
  saveRef.current = save;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        saveRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const error = create.error ?? update.error ?? remove.error;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Select
        aria-label="Snippets"
        className="w-56"
        value={current?.id ?? ''}
        onChange={(e) => {
          const picked = snippets.data?.find((s) => s.id === e.target.value) ?? null;
          setSaved(null);
          onOpen(picked);
        }}
      >
        <option value="">{current ? 'New query (no snippet)' : `Snippets (${snippets.data?.length ?? 0})`}</option>
        {snippets.data?.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </Select>
      <Button onClick={save} disabled={update.isPending || create.isPending} aria-keyshortcuts="Control+S Meta+S" title="Save (Ctrl+S)">
        {current ? (dirty ? 'Save*' : 'Save') : 'Save…'} <kbd className="text-xs">Ctrl+S</kbd>
      </Button>
      {current && (
        <>
          <Button variant="ghost" onClick={() => setAsking('save-as')}>
            Save as…
          </Button>
          <Button variant="ghost" onClick={() => setAsking('rename')}>
            Rename
          </Button>
          <Button variant="ghost" onClick={() => setAsking('delete')}>
            Delete
          </Button>
        </>
      )}
      {saved && !dirty && (
        <span role="status" className="text-xs text-emerald-800">
          {saved}
        </span>
      )}
      {error && !asking && <span role="alert" className="text-xs text-red-800">{error.message}</span>}
      <Dialog
        open={asking === 'save-as' || asking === 'rename'}
        title={asking === 'rename' ? `Rename “${current?.name ?? ''}”` : 'Save as a snippet'}
        onClose={() => setAsking(null)}
      >
        {(asking === 'save-as' || asking === 'rename') && (
          <NameForm
            initial={asking === 'rename' ? (current?.name ?? '') : ''}
            submitLabel={asking === 'rename' ? 'Rename' : 'Save snippet'}
            pending={create.isPending || update.isPending}
            error={asking === 'rename' ? update.error : create.error}
            onCancel={() => setAsking(null)}
            onSubmit={({ name }) => {
              if (asking === 'rename' && current) {
                update.mutate({ id: current.id, name }, { onSuccess: (s) => (setAsking(null), setSaved(`Renamed to “${s.name}”.`)) });
              } else {
                create.mutate({ name, sql: text }, { onSuccess: (s) => (setAsking(null), setSaved(`Saved “${s.name}”.`), onOpen(s)) });
              }
            }}
          />
        )}
      </Dialog>
      <Dialog open={asking === 'delete'} title={`Delete “${current?.name ?? ''}”?`} onClose={() => setAsking(null)}>
        <p className="text-sm">The snippet is deleted; the editor keeps its text.</p>
        {remove.error && <ErrorNote error={remove.error} />}
        <div className="mt-3 flex justify-end gap-2">
          <Button onClick={() => setAsking(null)}>Cancel</Button>
          <Button
            variant="danger"
            disabled={remove.isPending}
            onClick={() => current && remove.mutate(current.id, { onSuccess: () => (setAsking(null), setSaved(null), onOpen(null)) })}
          >
            Delete snippet
          </Button>
        </div>
      </Dialog>
    </div>
  );
}

function NameForm({
  initial,
  submitLabel,
  pending,
  error,
  onCancel,
  onSubmit,
}: {
  initial: string;
  submitLabel: string;
  pending: boolean;
  error: Error | null;
  onCancel: () => void;
  onSubmit: (v: SnippetName) => void;
}) {
  const form = useForm<SnippetName>({ resolver: zodResolver(snippetNameSchema), defaultValues: { name: initial } });
  return (
    <form onSubmit={form.handleSubmit(onSubmit)} className="flex flex-col gap-3">
      <Field label="Name" error={form.formState.errors.name?.message}>
        {(id, describedBy) => <Input id={id} autoFocus aria-describedby={describedBy} {...form.register('name')} />}
      </Field>
      {error && <ErrorNote error={error} />}
      <div className="flex justify-end gap-2">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={pending}>
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
