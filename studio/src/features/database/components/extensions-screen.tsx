import { useEffect, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { switchExtension, updateExtension, useExtensions, useSwitchExtension, type Extension } from '../api/database';
import { SqlReview } from './sql-review';
import { DatabaseLayout, Scroll, td, th } from './database-layout';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Field, Input, Select } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';

type Show = 'all' | 'installed' | 'available';

/** Database › Extensions: what is installed and what the server could install, each switched with its SQL shown first. */
export function ExtensionsScreen() {
  const extensions = useExtensions();
  const [q, setQ] = useState('');
  const [show, setShow] = useState<Show>('all');
  const [picked, setPicked] = useState<Extension | null>(null);
  const [updating, setUpdating] = useState<Extension | null>(null);
  const shown = useMemo(() => {
    const term = q.trim().toLowerCase();
    return (extensions.data ?? []).filter(
      (e) =>
        (show === 'all' || (show === 'installed') === (e.installed_version !== null)) &&
        (e.name.includes(term) || (e.comment ?? '').toLowerCase().includes(term)),
    );
  }, [extensions.data, q, show]);
  const installed = extensions.data?.filter((e) => e.installed_version).length ?? 0;
  return (
    <DatabaseLayout
      title="Extensions"
      tools={
        <>
          <Input aria-label="Search extensions" placeholder="Search extensions" className="w-48" value={q} onChange={(e) => setQ(e.target.value)} />
          <div role="group" aria-label="Show" className="flex gap-1">
            {(['all', 'installed', 'available'] as const).map((s) => (
              <Button key={s} variant={show === s ? 'primary' : 'secondary'} aria-pressed={show === s} onClick={() => setShow(s)}>
                {s === 'all' ? `All (${extensions.data?.length ?? 0})` : s === 'installed' ? `Installed (${installed})` : 'Not installed'}
              </Button>
            ))}
          </div>
        </>
      }
    >
      {extensions.isPending && <Loading />}
      {extensions.error && <ErrorNote error={extensions.error} />}
      {extensions.data && (
        <Scroll label="Extensions (scrollable)">
          <table className="w-full text-[13px]">
            <caption className="sr-only">Extensions, {shown.length} shown</caption>
            <thead className="sticky top-0 bg-slate-100 text-left">
              <tr>
                <th scope="col" className={th}>Extension</th>
                <th scope="col" className={th}>Installed</th>
                <th scope="col" className={th}>Schema</th>
                <th scope="col" className={th}>Description</th>
                <th scope="col" className={th}>
                  <span className="sr-only">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((e) => (
                <tr key={e.name} className="border-b border-slate-200 bg-white" data-testid={`extension-${e.name}`}>
                  <td className={`${td} font-mono`}>{e.name}</td>
                  <td className={td}>
                    {e.installed_version ? (
                      <>
                        {e.installed_version}
                        {e.updates.length > 0 && <span className="ml-1 rounded bg-amber-100 px-1 text-[11px] text-amber-900">update: {e.updates[e.updates.length - 1]}</span>}
                      </>
                    ) : (
                      <span className="text-slate-600">no ({e.default_version})</span>
                    )}
                  </td>
                  <td className={`${td} font-mono text-xs`}>{e.schema ?? ''}</td>
                  <td className={`${td} text-slate-700`}>{e.comment}</td>
                  <td className={`${td} whitespace-nowrap text-right`}>
                    {e.updates.length > 0 && (
                      <Button className="mr-1" aria-label={`Update ${e.name}`} onClick={() => setUpdating(e)}>
                        Update
                      </Button>
                    )}
                    <Button variant={e.installed_version ? 'secondary' : 'primary'} aria-label={`${e.installed_version ? 'Disable' : 'Enable'} ${e.name}`} onClick={() => setPicked(e)}>
                      {e.installed_version ? 'Disable' : 'Enable'}
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <Dialog open={picked !== null} title={picked ? `${picked.installed_version ? 'Disable' : 'Enable'} ${picked.name}` : ''} onClose={() => setPicked(null)}>
        {picked && <SwitchForm extension={picked} onDone={() => setPicked(null)} />}
      </Dialog>
      <Dialog open={updating !== null} title={updating ? `Update ${updating.name}` : ''} onClose={() => setUpdating(null)}>
        {updating && <UpdateForm extension={updating} onDone={() => setUpdating(null)} />}
      </Dialog>
    </DatabaseLayout>
  );
}

const switchForm = z.object({
  schema: z.string().trim().max(63, 'At most 63 characters'),
  cascade: z.boolean(),
});
type SwitchInput = z.infer<typeof switchForm>;

/** The switch's options, the SQL the server builds for them (asked with dry_run as they change), and Run SQL. */
function SwitchForm({ extension, onDone }: { extension: Extension; onDone: () => void }) {
  const enabling = extension.installed_version === null;
  const form = useForm<SwitchInput>({ resolver: zodResolver(switchForm), defaultValues: { schema: 'extensions', cascade: false } });
  const run = useSwitchExtension();
  const [preview, setPreview] = useState<{ sql: string } | { error: string } | null>(null);
  const schema = form.watch('schema');
  const cascade = form.watch('cascade');
  useEffect(() => {
    let live = true;
    const input = { name: extension.name, enabled: enabling, schema: enabling ? schema.trim() || undefined : undefined, cascade, dry_run: true };
    switchExtension(input).then(
      (out) => live && setPreview({ sql: out.sql }),
      (err: unknown) => live && setPreview({ error: err instanceof Error ? err.message : 'Could not build the SQL' }),
    );
    return () => {
      live = false;
    };
  }, [extension.name, enabling, schema, cascade]);
  const submit = form.handleSubmit((v) =>
    run.mutate({ name: extension.name, enabled: enabling, schema: enabling ? v.schema || undefined : undefined, cascade: v.cascade }, { onSuccess: onDone }),
  );
  return (
    <form onSubmit={submit} className="flex flex-col gap-3 text-sm">
      <p className="text-slate-700">{extension.comment}</p>
      {enabling ? (
        <Field label="Schema" error={form.formState.errors.schema?.message}>
          {(id, describedBy) => <Input id={id} aria-describedby={describedBy} {...form.register('schema')} />}
        </Field>
      ) : (
        <label className="flex items-center gap-1 text-slate-800">
          <input type="checkbox" {...form.register('cascade')} />
          Also drop the objects that depend on it (cascade)
        </label>
      )}
      <div>
        <p className="text-xs font-medium text-slate-700">Review the SQL</p>
        {preview && 'sql' in preview && (
          <pre className="mt-1 overflow-auto rounded bg-slate-900 p-2 font-mono text-xs text-slate-100" data-testid="extension-sql">
            {preview.sql}
          </pre>
        )}
        {preview && 'error' in preview && <ErrorNote error={new Error(preview.error)} />}
      </div>
      {run.error && <ErrorNote error={run.error} />}
      <div className="flex justify-end gap-2">
        <Button onClick={onDone}>Cancel</Button>
        <Button type="submit" variant={enabling ? 'primary' : 'danger'} disabled={run.isPending || !preview || 'error' in preview}>
          {run.isPending ? 'Running…' : 'Run SQL'}
        </Button>
      </div>
    </form>
  );
}

/** Update an installed extension to its default version or another its scripts reach, the SQL shown first. */
function UpdateForm({ extension, onDone }: { extension: Extension; onDone: () => void }) {
  const toDefault = extension.default_version !== null && extension.updates.includes(extension.default_version);
  const form = useForm<{ version: string }>({ defaultValues: { version: toDefault ? '' : extension.updates[extension.updates.length - 1] } });
  const version = form.watch('version');
  return (
    <form className="flex flex-col gap-3 text-sm" onSubmit={(e) => e.preventDefault()}>
      <p className="text-slate-700">
        Installed: <span className="font-mono">{extension.installed_version}</span>. Versions this server has:{' '}
        <span className="font-mono">{extension.versions.join(', ')}</span>.
      </p>
      <Field label="Update to">
        {(id) => (
          <Select id={id} {...form.register('version')}>
            {toDefault && <option value="">{extension.default_version} (the default version)</option>}
            {extension.updates
              .filter((v) => !toDefault || v !== extension.default_version)
              .map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
          </Select>
        )}
      </Field>
      <SqlReview
        send={(dryRun) => updateExtension({ name: extension.name, version: version || undefined, dry_run: dryRun })}
        inputKey={version}
        onDone={onDone}
        testId="extension-sql"
      />
    </form>
  );
}
