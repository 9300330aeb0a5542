import { useState } from 'react';
import { useCreateS3Key, useRevokeS3Key, useS3Keys } from '../api/storage';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/field';
import { Empty, ErrorNote, Loading } from '@/components/ui/states';

/** The S3 access keys of the storage surface: create (the secret shown once), list, revoke. */
export function S3Keys() {
  const keys = useS3Keys();
  const create = useCreateS3Key();
  const revoke = useRevokeS3Key();
  const [description, setDescription] = useState('');
  return (
    <div className="flex h-full min-h-0 flex-col">
      <header className="border-b border-slate-200 bg-white px-3 py-2">
        <h1 className="text-base font-semibold">S3 access keys</h1>
        <p className="text-xs text-slate-700">
          For S3 clients at <code>/storage/v1/s3</code>; they act with the service role. A secret is shown once, when the key is made.
        </p>
      </header>
      <form
        className="flex flex-wrap items-end gap-2 border-b border-slate-200 bg-white px-3 py-2"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(description, { onSuccess: () => setDescription('') });
        }}
      >
        <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
          Description
          <Input value={description} onChange={(e) => setDescription(e.target.value)} placeholder="e.g. nightly backups" className="w-72" />
        </label>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          Create key
        </Button>
      </form>
      {create.data && (
        <div role="status" className="m-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm">
          <p className="mb-2 font-medium">Copy the secret now: it is not shown again.</p>
          <dl className="grid grid-cols-[8rem_1fr] gap-1 font-mono text-xs">
            <dt>Access key id</dt>
            <dd>{create.data.id}</dd>
            <dt>Secret</dt>
            <dd className="break-all">{create.data.secret}</dd>
          </dl>
        </div>
      )}
      {create.error && <ErrorNote error={create.error} />}
      {revoke.error && <ErrorNote error={revoke.error} />}
      {keys.isPending && <Loading />}
      {keys.error && <ErrorNote error={keys.error} />}
      {keys.data?.length === 0 && <Empty>No S3 access key.</Empty>}
      {!!keys.data?.length && (
        <table className="w-full text-[13px]">
          <caption className="sr-only">S3 access keys</caption>
          <thead className="bg-slate-100 text-left">
            <tr>
              <th scope="col" className="px-2 py-1">Access key id</th>
              <th scope="col" className="px-2 py-1">Description</th>
              <th scope="col" className="px-2 py-1">Created (UTC)</th>
              <th scope="col" className="px-2 py-1">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((k) => (
              <tr key={k.id} className="border-b border-slate-200 bg-white">
                <td className="px-2 py-1 font-mono">{k.id}</td>
                <td className="px-2 py-1">{k.description}</td>
                <td className="px-2 py-1">{k.created_at}</td>
                <td className="px-2 py-1 text-right">
                  <Button variant="danger" disabled={revoke.isPending} onClick={() => revoke.mutate(k.id)} aria-label={`Revoke ${k.id}`}>
                    Revoke
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
