import { useState, type ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { restoreSchema, useBackups, useRestoreBackup, useTakeBackup, useVerifyBackup, type Backup, type RestoreInput } from '../api/backups';
import { formatAge, formatBytes, formatUnix, typeName } from '../lib/format';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Field, Input, Select } from '@/components/ui/field';
import { Empty, ErrorNote, Loading } from '@/components/ui/states';

type Kind = 'full' | 'diff' | 'incr';

/** Database › Backups: the repository's backups, taken and verified on demand, restored into a folder. */
export function BackupsScreen() {
  const backups = useBackups();
  const take = useTakeBackup();
  const verify = useVerifyBackup();
  const [kind, setKind] = useState<Kind>('incr');
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const enabled = backups.data?.enabled === true;
  const busy = take.isPending || verify.isPending;

  return (
    <div className="flex h-full flex-col">
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2">
        <h1 className="text-base font-semibold">
          <span className="font-normal text-slate-600">Database › </span>Backups
        </h1>
        {enabled && (
          <div className="ml-auto flex flex-wrap items-center gap-2">
            <label htmlFor="backup-kind" className="text-xs text-slate-700">
              Type
            </label>
            <Select id="backup-kind" className="w-36" value={kind} onChange={(e) => setKind(e.target.value as Kind)} disabled={busy}>
              <option value="incr">Incremental</option>
              <option value="diff">Differential</option>
              <option value="full">Full</option>
            </Select>
            <Button variant="primary" disabled={busy} onClick={() => take.mutate(kind)}>
              {take.isPending ? 'Taking a backup…' : 'Take backup now'}
            </Button>
            <Button disabled={busy || !backups.data?.backups.length} onClick={() => verify.mutate()}>
              {verify.isPending ? 'Verifying…' : 'Verify latest'}
            </Button>
          </div>
        )}
      </header>
      {backups.isPending && <Loading />}
      {backups.error && <ErrorNote error={backups.error} />}
      {backups.data && !backups.data.enabled && <ErrorNote error={new Error(backups.data.reason)} />}
      {take.error && <ErrorNote error={take.error} />}
      {take.data && (
        <p role="status" className="mx-3 mt-2 text-sm text-emerald-800">
          Backup {take.data.label} taken in {take.data.seconds.toFixed(1)} s.
        </p>
      )}
      {verify.error && <ErrorNote error={verify.error} />}
      {verify.data &&
        (verify.data.ok ? (
          <p role="status" className="mx-3 mt-2 text-sm text-emerald-800">
            Backup {verify.data.label} verified: restored and started, {verify.data.tables} tables read
            {verify.data.compared === null ? ' (no row counts were recorded at backup time)' : `, ${verify.data.compared} compared with the counts recorded at backup time`}
            {verify.data.files_checked !== null && `, ${verify.data.files_checked} stored files checked`}, in {verify.data.seconds.toFixed(1)} s.
          </p>
        ) : (
          <div role="alert" className="m-3 rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800">
            <p>Backup {verify.data.label} failed its verification:</p>
            <ul className="mt-1 list-disc pl-5">
              {verify.data.failures.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
          </div>
        ))}
      {backups.data?.enabled && (
        <>
          <dl className="grid grid-cols-2 gap-x-4 gap-y-1 border-b border-slate-200 bg-slate-50 px-3 py-2 text-[13px] md:grid-cols-4">
            <Fact term="Repository">
              <span className="break-all font-mono text-xs">{backups.data.repository}</span>
              {backups.data.encrypted ? ' (encrypted)' : ' (not encrypted)'}
            </Fact>
            <Fact term="Last backup">
              {backups.data.status?.last_success ? `${formatAge(backups.data.status.last_success_age_seconds)} ago` : 'none yet'}
            </Fact>
            <Fact term="WAL archive lag">{backups.data.status ? formatAge(backups.data.status.wal_archive_lag_seconds) : '—'}</Fact>
            <Fact term="Last verification">
              {backups.data.status?.last_verify_ok == null
                ? 'not since the server started'
                : `${backups.data.status.last_verify_ok ? 'passed' : 'FAILED'}${backups.data.status.last_verify_at ? ` at ${formatUnix(backups.data.status.last_verify_at)}` : ''}`}
            </Fact>
          </dl>
          <div className="min-h-0 flex-1 overflow-auto" tabIndex={0} role="region" aria-label="Backups (scrollable)">
            {backups.data.backups.length === 0 ? (
              <Empty>No backup yet: the first full backup is taken when the server starts.</Empty>
            ) : (
              <table className="w-full text-[13px]">
                <caption className="sr-only">Backups in the repository, newest first</caption>
                <thead className="sticky top-0 bg-slate-100 text-left">
                  <tr>
                    <th scope="col" className="px-2 py-1">Label</th>
                    <th scope="col" className="px-2 py-1">Type</th>
                    <th scope="col" className="px-2 py-1">Finished (UTC)</th>
                    <th scope="col" className="px-2 py-1 text-right">Database</th>
                    <th scope="col" className="px-2 py-1 text-right">Stored</th>
                    <th scope="col" className="px-2 py-1 text-right">Added</th>
                    <th scope="col" className="px-2 py-1">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {[...backups.data.backups].reverse().map((b) => (
                    <tr key={b.label} className="border-b border-slate-200 bg-white">
                      <td className="px-2 py-1 font-mono">{b.label}</td>
                      <td className="px-2 py-1">{typeName(b.type)}</td>
                      <td className="px-2 py-1 whitespace-nowrap">{formatUnix(b.stopped_at)}</td>
                      <td className="px-2 py-1 text-right">{formatBytes(b.database_bytes)}</td>
                      <td className="px-2 py-1 text-right">{formatBytes(b.stored_bytes)}</td>
                      <td className="px-2 py-1 text-right">{formatBytes(b.added_bytes)}</td>
                      <td className="px-2 py-1 text-right">
                        <Button variant="ghost" aria-label={`Restore ${b.label} into a folder`} onClick={() => setRestoring(b)}>
                          Restore…
                        </Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </div>
        </>
      )}
      <Dialog open={!!restoring} title={restoring ? `Restore ${restoring.label} into a folder` : ''} onClose={() => setRestoring(null)}>
        {restoring && <RestoreForm backup={restoring} onDone={() => setRestoring(null)} />}
      </Dialog>
    </div>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-slate-600">{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The confirmation of a restore into a separate folder, and what it gave. */
function RestoreForm({ backup, onDone }: { backup: Backup; onDone: () => void }) {
  const restore = useRestoreBackup();
  const form = useForm<RestoreInput>({ resolver: zodResolver(restoreSchema), defaultValues: { target_dir: '', label: backup.label } });
  if (restore.data) {
    const r = restore.data;
    return (
      <div className="flex flex-col gap-2 text-sm">
        <p role="status">
          Restored into <span className="font-mono">{r.data_dir}</span> in {r.seconds.toFixed(1)} s
          {r.files && `, ${r.files.restored} stored files (${formatBytes(r.files.bytes)})`}.
        </p>
        {r.files && r.files.missing.length + r.files.corrupt.length > 0 && (
          <p role="alert" className="text-red-800">
            Not restored: {[...r.files.missing, ...r.files.corrupt].join(', ')}
          </p>
        )}
        {r.url && (
          <p>
            PostgreSQL runs on the restored folder: <span className="break-all font-mono text-xs">{r.url}</span>
          </p>
        )}
        <p>
          Stop it with <code className="font-mono text-xs">{r.stop_with}</code>.
        </p>
        <div className="flex justify-end">
          <Button variant="primary" onClick={onDone}>
            Close
          </Button>
        </div>
      </div>
    );
  }
  return (
    <form className="flex flex-col gap-3" onSubmit={form.handleSubmit((input) => restore.mutate(input))}>
      <p className="text-sm">
        The {typeName(backup.type).toLowerCase()} backup of {formatUnix(backup.stopped_at)} UTC is restored into a new folder and started on a free port,
        for inspection: the live data and the running server are not touched.
      </p>
      <Field label="Target folder (absolute path, new or empty)" error={form.formState.errors.target_dir?.message}>
        {(id, describedBy) => <Input id={id} aria-describedby={describedBy} placeholder="/var/lib/restores/inspect" autoComplete="off" {...form.register('target_dir')} />}
      </Field>
      {restore.error && <ErrorNote error={restore.error} />}
      <div className="flex justify-end gap-2">
        <Button onClick={onDone} disabled={restore.isPending}>
          Cancel
        </Button>
        <Button type="submit" variant="danger" disabled={restore.isPending}>
          {restore.isPending ? 'Restoring…' : 'Restore into this folder'}
        </Button>
      </div>
    </form>
  );
}
