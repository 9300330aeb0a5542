import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { useInvoke, useUserSearch } from '../api/functions';
import { parseHeaders, prettyBody } from '../lib/functions';
import { Button } from '@/components/ui/button';
import { CallerPicker, runAsOf, type Caller } from '@/components/ui/caller-picker';
import { Field, Input, Select, inputClass } from '@/components/ui/field';
import { ErrorNote } from '@/components/ui/states';

const METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export const invokeSchema = z.object({
  method: z.enum(METHODS),
  path: z
    .string()
    .trim()
    .refine((p) => p === '' || p.startsWith('/') || p.startsWith('?'), 'Start with / or ?'),
  headers: z.string().superRefine((text, ctx) => {
    const parsed = parseHeaders(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
  }),
  body: z.string(),
});
type InvokeForm = z.infer<typeof invokeSchema>;

/** Call the function through the studio backend as anon, a user or nobody, and show its answer. */
export function InvokePanel({ slug }: { slug: string }) {
  const invoke = useInvoke();
  const [caller, setCaller] = useState<Caller>({ kind: 'anon' });
  const [search, setSearch] = useState('');
  const users = useUserSearch(search);
  const form = useForm<InvokeForm>({
    resolver: zodResolver(invokeSchema),
    defaultValues: { method: 'POST', path: '', headers: 'Content-Type: application/json', body: '{"name": "Studio"}' },
  });
  const errors = form.formState.errors;
  const method = form.watch('method');
  const answer = invoke.data;
  const submit = form.handleSubmit((v) => {
    const parsed = parseHeaders(v.headers);
    invoke.mutate({
      slug,
      method: v.method,
      path: v.path.trim(),
      headers: parsed.ok ? parsed.headers : {},
      body: v.method === 'GET' || v.method === 'OPTIONS' ? null : v.body,
      run_as: runAsOf(caller),
    });
  });

  return (
    <section aria-labelledby="invoke-title" className="flex flex-col gap-2 border-t border-slate-200 p-3">
      <h2 id="invoke-title" className="text-sm font-semibold">
        Invoke
      </h2>
      <form aria-label="Invoke the function" className="flex flex-col gap-2" noValidate onSubmit={submit}>
        <div className="flex flex-wrap items-end gap-2">
          <div className="w-28">
            <Field label="Method">
              {(id) => (
                <Select id={id} {...form.register('method')}>
                  {METHODS.map((m) => (
                    <option key={m}>{m}</option>
                  ))}
                </Select>
              )}
            </Field>
          </div>
          <div className="w-56">
            <Field label={`Path after /functions/v1/${slug}`} error={errors.path?.message}>
              {(id, d) => <Input id={id} aria-describedby={d} placeholder="/sub/path?x=1" {...form.register('path')} />}
            </Field>
          </div>
          <CallerPicker id="invoke-caller" label="As" value={caller} onChange={setCaller} users={users.data} onSearch={setSearch} allowNone />
        </div>
        <div className="grid gap-2 md:grid-cols-2">
          <Field label="Headers (one Name: value a line)" error={errors.headers?.message}>
            {(id, d) => <textarea id={id} aria-describedby={d} rows={3} className={`${inputClass} h-auto w-full py-1 font-mono`} {...form.register('headers')} />}
          </Field>
          <Field label="Body">
            {(id) => <textarea id={id} rows={3} disabled={method === 'GET' || method === 'OPTIONS'} className={`${inputClass} h-auto w-full py-1 font-mono`} {...form.register('body')} />}
          </Field>
        </div>
        <div>
          <Button type="submit" variant="primary" disabled={invoke.isPending || (caller.kind === 'user' && !caller.id)}>
            {invoke.isPending ? 'Invoking…' : 'Invoke'}
          </Button>
        </div>
      </form>
      {invoke.error && <ErrorNote error={invoke.error} />}
      {answer && (
        <div className="rounded-md border border-slate-200 bg-slate-50 p-2" data-testid="invoke-answer">
          <p className="text-xs" role="status">
            <span className={`font-semibold ${answer.status < 400 ? 'text-emerald-800' : 'text-red-700'}`}>{answer.status}</span>
            <span className="text-slate-700">
              {' '}
              · {answer.duration_ms} ms · {answer.bytes} bytes{answer.headers['x-request-id'] ? ` · request ${answer.headers['x-request-id']}` : ''}
            </span>
          </p>
          <details className="mt-1 text-xs">
            <summary className="cursor-pointer text-slate-700">Response headers</summary>
            <ul className="font-mono">
              {Object.entries(answer.headers).map(([k, v]) => (
                <li key={k}>
                  {k}: {v}
                </li>
              ))}
            </ul>
          </details>
          <pre className="mt-1 max-h-64 overflow-auto font-mono text-xs whitespace-pre-wrap text-slate-900" data-testid="invoke-body">
            {prettyBody(answer.body, answer.headers['content-type'])}
          </pre>
          {answer.truncated && <p className="text-xs text-amber-800">The body was cut at 256 KiB.</p>}
        </div>
      )}
    </section>
  );
}
