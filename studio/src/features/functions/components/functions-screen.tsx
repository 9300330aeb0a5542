import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { useDeleteFunction, useFunction, useFunctions, type ListedFunction } from '../api/functions';
import { slugSchema, template } from '../lib/functions';
import { FunctionEditor } from './function-editor';
import { InvokePanel } from './invoke-panel';
import { LogsPanel } from './logs-panel';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Field, Input } from '@/components/ui/field';
import { Empty, ErrorNote, Loading } from '@/components/ui/states';
import { paths } from '@/lib/paths';

const newSchema = z.object({ slug: slugSchema });

/** Edge Functions: the list, and for the chosen one its code (deploy), invocation and logs. */
export function FunctionsScreen({ slug }: { slug?: string }) {
  const list = useFunctions();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const form = useForm<z.infer<typeof newSchema>>({ resolver: zodResolver(newSchema), defaultValues: { slug: '' } });
  const current = list.data?.functions.find((f) => f.slug === slug);

  return (
    <div className="grid h-full grid-cols-1 grid-rows-[auto_minmax(0,1fr)] md:grid-cols-[17rem_1fr] md:grid-rows-1">
      <nav aria-label="Functions" className="flex max-h-56 flex-col gap-2 overflow-auto border-r border-slate-200 bg-white p-2 md:max-h-none">
        <div className="flex items-center gap-2">
          <h1 className="text-base font-semibold">Edge Functions</h1>
          <Button variant="primary" className="ml-auto" onClick={() => setCreating(true)}>
            New
          </Button>
        </div>
        {list.data && (
          <p className="text-xs text-slate-600">
            Runtime: {list.data.runtime ?? 'no function yet'}
            {!list.data.metrics && ' · invocation counts need METRICS on'}
          </p>
        )}
        {list.isPending && <Loading />}
        {list.error && <ErrorNote error={list.error} />}
        <ul className="flex flex-col gap-0.5">
          {list.data?.functions.map((f) => (
            <li key={f.slug}>
              <Link
                to={paths.function(f.slug)}
                aria-current={f.slug === slug ? 'page' : undefined}
                className={`flex flex-col rounded px-2 py-1 text-sm ${f.slug === slug ? 'bg-emerald-50 ring-1 ring-emerald-600' : 'hover:bg-slate-100'}`}
              >
                <span className="flex items-center gap-2">
                  <span className="truncate font-medium">{f.slug}</span>
                  <span className={`ml-auto shrink-0 rounded px-1 text-xs ${f.source === 'deployed' ? 'bg-emerald-100 text-emerald-900' : 'bg-slate-200 text-slate-800'}`}>
                    {f.source === 'deployed' ? `v${f.version}` : 'folder'}
                  </span>
                </span>
                <FunctionFacts f={f} />
              </Link>
            </li>
          ))}
        </ul>
        {list.data && !list.data.functions.length && <p className="text-xs text-slate-600">No function yet.</p>}
        <Link to={paths.functionSecrets} className="mt-auto rounded px-2 py-1 text-sm text-emerald-800 underline hover:bg-slate-100">
          Secrets
        </Link>
      </nav>
      <div className="min-h-0 overflow-auto">
        {!slug ? (
          <Empty>Choose a function, or create one.</Empty>
        ) : (
          <FunctionPage key={slug} slug={slug} listed={current} onDeleted={() => navigate(paths.function())} />
        )}
      </div>
      <Dialog open={creating} title="New function" onClose={() => setCreating(false)}>
        <form
          noValidate
          className="flex flex-col gap-3"
          onSubmit={form.handleSubmit((v) => {
            setCreating(false);
            form.reset();
            navigate(paths.function(v.slug.trim()));
          })}
        >
          <Field label="Name (its URL is /functions/v1/<name>)" error={form.formState.errors.slug?.message}>
            {(id, d) => <Input id={id} aria-describedby={d} autoFocus {...form.register('slug')} />}
          </Field>
          <p className="text-xs text-slate-600">It starts from a template; it is served once you deploy it.</p>
          <div className="flex justify-end gap-2">
            <Button onClick={() => setCreating(false)}>Cancel</Button>
            <Button type="submit" variant="primary">
              Create
            </Button>
          </div>
        </form>
      </Dialog>
    </div>
  );
}

function FunctionFacts({ f }: { f: ListedFunction }) {
  const calls = f.invocations ? `${f.invocations.total} call${f.invocations.total === 1 ? '' : 's'}${f.invocations.errors ? `, ${f.invocations.errors} failed` : ''}` : null;
  return (
    <span className="text-xs text-slate-600">
      {f.verify_jwt ? 'JWT verified' : 'no JWT check'}
      {f.updated_at && ` · ${new Date(f.updated_at).toLocaleString()}`}
      {calls && ` · ${calls}`}
    </span>
  );
}

function FunctionPage({ slug, listed, onDeleted }: { slug: string; listed?: ListedFunction; onDeleted: () => void }) {
  const source = useFunction(slug);
  const remove = useDeleteFunction();
  const [confirming, setConfirming] = useState(false);
  if (source.isPending) return <Loading />;
  if (source.error) return <ErrorNote error={source.error} />;
  const data = source.data;
  const binary = data?.files.filter((f) => f.binary) ?? [];
  const files = data ? data.files.filter((f) => !f.binary).map((f) => ({ path: f.path, content: f.content ?? '' })) : template(slug);
  return (
    <div className="flex flex-col">
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2">
        <h2 className="text-base font-semibold">
          <span className="font-normal text-slate-600">Functions › </span>
          {slug}
        </h2>
        <code className="text-xs text-slate-600">/functions/v1/{slug}</code>
        {data && (
          <Button variant="danger" className="ml-auto" onClick={() => setConfirming(true)}>
            Delete
          </Button>
        )}
      </header>
      {listed?.source === 'folder' && (
        <p className="mx-3 mt-2 rounded-md border border-slate-200 bg-slate-50 p-2 text-xs text-slate-700">
          This function is served from the project folder, which the dashboard does not edit. Deploying here creates a deployed function of the same name, which takes its place until deleted.
        </p>
      )}
      {binary.length > 0 ? (
        <ErrorNote error={new Error(`This function has binary files (${binary.map((f) => f.path).join(', ')}): deploy it with the CLI.`)} />
      ) : (
        <FunctionEditor key={data ? `${data.function.version}` : 'draft'} slug={slug} deployed={data?.function ?? null} initial={files} />
      )}
      {(data || listed) && <InvokePanel slug={slug} />}
      {(data || listed) && <LogsPanel slug={slug} />}
      <Dialog open={confirming} title={`Delete ${slug}?`} onClose={() => setConfirming(false)}>
        <p className="text-sm">The deployed function and its files are removed; its URL answers 404 (or the project folder's function of that name).</p>
        {remove.error && <ErrorNote error={remove.error} />}
        <div className="mt-3 flex justify-end gap-2">
          <Button onClick={() => setConfirming(false)}>Cancel</Button>
          <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate(slug, { onSuccess: () => (setConfirming(false), onDeleted()) })}>
            Delete function
          </Button>
        </div>
      </Dialog>
    </div>
  );
}
