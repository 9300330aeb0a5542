import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useBuckets, useCreateBucket } from '../api/storage';
import { BucketFormView } from './bucket-form';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { ErrorNote, Loading } from '@/components/ui/states';
import { paths } from '@/lib/paths';

/** The buckets, a "New bucket" form, and the way to the S3 access keys. */
export function BucketList({ current }: { current?: string }) {
  const buckets = useBuckets();
  const create = useCreateBucket();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  return (
    <nav aria-label="Buckets" className="flex h-full flex-col gap-2 border-r border-slate-200 bg-white p-2">
      <Button variant="primary" onClick={() => (create.reset(), setOpen(true))}>
        New bucket
      </Button>
      {buckets.isPending && <Loading />}
      {buckets.error && <ErrorNote error={buckets.error} />}
      <ul className="min-h-0 flex-1 overflow-auto">
        {buckets.data?.map((b) => (
          <li key={b.id}>
            <Link
              to={paths.storage(b.id)}
              aria-current={b.id === current ? 'page' : undefined}
              className={`flex items-baseline justify-between gap-2 rounded px-2 py-1 text-sm ${b.id === current ? 'bg-emerald-100 font-medium text-emerald-900' : 'text-slate-800 hover:bg-slate-100'}`}
            >
              <span className="truncate">{b.name}</span>
              {b.public && <span className="shrink-0 rounded bg-amber-100 px-1 text-xs text-amber-900">public</span>}
            </Link>
          </li>
        ))}
        {buckets.data?.length === 0 && <li className="px-2 py-1 text-sm text-slate-600">No bucket yet.</li>}
      </ul>
      <Link to={paths.s3Keys} className="rounded px-2 py-1 text-sm text-slate-800 hover:bg-slate-100">
        S3 access keys
      </Link>
      <Dialog open={open} title="New bucket" onClose={() => setOpen(false)}>
        <BucketFormView
          onCancel={() => setOpen(false)}
          pending={create.isPending}
          error={create.error}
          onSubmit={(name, settings) =>
            create.mutate(
              { name, ...settings },
              {
                onSuccess: () => {
                  setOpen(false);
                  navigate(paths.storage(name));
                },
              },
            )
          }
        />
      </Dialog>
    </nav>
  );
}
