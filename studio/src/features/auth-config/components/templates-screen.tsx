import { useEffect, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { useMailTemplates, usePreview, useSaveTemplate, useTestSend, type Draft, type MailTemplate } from '../api/auth-config';
import { Button } from '@/components/ui/button';
import { Field, Input, inputClass } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';

const LABELS: Record<string, string> = {
  confirmation: 'Confirm sign-up',
  invite: 'Invite user',
  magic_link: 'Magic link',
  recovery: 'Reset password',
  email_change: 'Change e-mail address',
  reauthentication: 'Reauthentication',
};

const draftSchema = z.object({
  subject: z.string().trim().max(500, 'At most 500 characters').refine((s) => !/[\r\n]/.test(s), 'One line'),
  html: z.string().max(100_000, 'At most 100,000 characters'),
});

/** The draft the preview shows: the form's, settled for a moment so typing does not send a request per key. */
function useSettled<T>(value: T, ms = 400): T {
  const [settled, setSettled] = useState(value);
  const text = JSON.stringify(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(JSON.parse(text) as T), ms);
    return () => clearTimeout(t);
  }, [text, ms]);
  return settled;
}

function Preview({ kind, draft }: { kind: string; draft: Draft }) {
  const preview = usePreview(kind, useSettled(draft));
  const [tab, setTab] = useState<'html' | 'text'>('html');
  if (preview.error) return <ErrorNote error={preview.error} />;
  if (!preview.data) return <Loading label="Rendering…" />;
  return (
    <section aria-label="Preview" className="flex min-h-0 flex-1 flex-col gap-1">
      <div className="flex items-center gap-2 text-sm">
        <h2 className="font-semibold">Preview</h2>
        <span className="text-slate-600">with sample values</span>
        <div role="tablist" aria-label="Preview part" className="ml-auto flex gap-1">
          {(['html', 'text'] as const).map((t) => (
            <button key={t} role="tab" aria-selected={tab === t} type="button" onClick={() => setTab(t)} className={`rounded px-2 py-0.5 text-xs ${tab === t ? 'bg-slate-800 text-white' : 'bg-slate-100 text-slate-800'}`}>
              {t === 'html' ? 'HTML' : 'Plain text'}
            </button>
          ))}
        </div>
      </div>
      <p className="text-sm">
        <span className="text-slate-600">Subject: </span>
        <span data-testid="preview-subject">{preview.data.subject}</span>
      </p>
      {tab === 'html' ? (
        <iframe title="Rendered mail" sandbox="" srcDoc={preview.data.html} className="min-h-64 w-full flex-1 rounded border border-slate-200 bg-white" />
      ) : (
        <pre aria-label="Rendered plain text" className="min-h-64 flex-1 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 text-xs whitespace-pre-wrap">
          {preview.data.text}
        </pre>
      )}
    </section>
  );
}

function TemplateEditor({ template }: { template: MailTemplate }) {
  const save = useSaveTemplate(template.kind);
  const test = useTestSend(template.kind);
  const [to, setTo] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const form = useForm<Draft>({ resolver: zodResolver(draftSchema), defaultValues: { subject: template.subject, html: template.html } });
  const draft = useWatch({ control: form.control }) as Draft;
  const { errors } = form.formState;
  return (
    <div className="grid min-h-0 flex-1 grid-cols-1 gap-3 overflow-auto p-3 lg:grid-cols-2">
      <form
        noValidate
        className="flex min-h-0 flex-col gap-2"
        onSubmit={form.handleSubmit((d) => save.mutate(d, { onSuccess: (t) => { form.reset({ subject: t.subject, html: t.html }); setNote('Saved: the next mail uses it.'); } }))}
      >
        <Field label="Subject" error={errors.subject?.message}>
          {(id, d) => <Input id={id} aria-describedby={d} aria-invalid={!!errors.subject} {...form.register('subject')} />}
        </Field>
        <Field label="HTML body" error={errors.html?.message}>
          {(id, d) => <textarea id={id} rows={16} spellCheck={false} aria-describedby={d} className={`${inputClass} h-auto w-full py-1 font-mono text-xs`} {...form.register('html')} />}
        </Field>
        <p className="text-xs text-slate-600">
          Placeholders: <code>{'{{ .ConfirmationURL }}'}</code> <code>{'{{ .Token }}'}</code> <code>{'{{ .TokenHash }}'}</code> <code>{'{{ .SiteURL }}'}</code> <code>{'{{ .RedirectTo }}'}</code> <code>{'{{ .Email }}'}</code> <code>{'{{ .NewEmail }}'}</code>. The plain-text part is made from the HTML.
        </p>
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" variant="primary" disabled={save.isPending}>
            Save template
          </Button>
          <Button
            variant="ghost"
            disabled={save.isPending || !template.overridden}
            onClick={() => save.mutate({ subject: '', html: '' }, { onSuccess: (t) => { form.reset({ subject: t.subject, html: t.html }); setNote('Back to the default template.'); } })}
          >
            Use the default
          </Button>
          {template.overridden && <span className="rounded bg-amber-100 px-1.5 text-xs text-amber-900">changed</span>}
        </div>
        <div className="flex flex-wrap items-end gap-2 border-t border-slate-200 pt-2">
          <Field label="Send a test to">
            {(id) => <Input id={id} type="email" className="w-64" placeholder="your address (default)" value={to} onChange={(e) => setTo(e.target.value)} />}
          </Field>
          <Button disabled={test.isPending} onClick={() => test.mutate({ ...draft, to }, { onSuccess: () => setNote(`Test sent to ${to || 'your address'} (see the development inbox at /inbox when SMTP is not set).`) })}>
            Send test
          </Button>
        </div>
        <p role="status" className="text-sm text-slate-700">
          {note}
        </p>
        {save.error && <ErrorNote error={save.error} />}
        {test.error && <ErrorNote error={test.error} />}
      </form>
      <Preview kind={template.kind} draft={draft} />
    </div>
  );
}

/** Auth → Mail templates: the subject and HTML of each auth mail, previewed and test-sent. */
export function TemplatesScreen() {
  const templates = useMailTemplates();
  const [kind, setKind] = useState('confirmation');
  if (templates.isPending) return <Loading />;
  if (templates.error) return <ErrorNote error={templates.error} />;
  const current = templates.data.find((t) => t.kind === kind) ?? templates.data[0];
  if (!current) return <ErrorNote error={new Error('No mail templates')} />;
  return (
    <div className="flex h-full min-h-0 flex-col bg-white">
      <header className="border-b border-slate-200 px-3 py-2">
        <h1 className="text-base font-semibold">Mail templates</h1>
        <nav aria-label="Templates" className="mt-1 flex flex-wrap gap-1">
          {templates.data.map((t) => (
            <button key={t.kind} type="button" aria-current={t.kind === current.kind ? 'page' : undefined} onClick={() => setKind(t.kind)} className={`rounded px-2 py-1 text-sm ${t.kind === current.kind ? 'bg-emerald-700 text-white' : 'bg-slate-100 text-slate-800 hover:bg-slate-200'}`}>
              {LABELS[t.kind] ?? t.kind}
              {t.overridden ? ' •' : ''}
            </button>
          ))}
        </nav>
      </header>
      <TemplateEditor key={current.kind} template={current} />
    </div>
  );
}
