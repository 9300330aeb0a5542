import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { objectUrl, previewUrl, signUrl, useBuckets, useDeleteObjects, useMoveCopy } from '../api/storage';
import { baseName, formatBytes, previewKind } from '../lib/keys';
import { Button } from '@/components/ui/button';
import { Field, Input, Select } from '@/components/ui/field';
import { ErrorNote } from '@/components/ui/states';

const LIFETIMES = [
  { label: '1 minute', seconds: 60 },
  { label: '1 hour', seconds: 3600 },
  { label: '1 day', seconds: 86400 },
  { label: '1 week', seconds: 604800 },
];

/** One object: its preview (images through the transformation endpoint), download, signed URL, move, copy, delete. */
export function ObjectPanel({
  bucket,
  objectKey,
  mimetype,
  size,
  onGone,
}: {
  bucket: string;
  objectKey: string;
  mimetype?: string;
  size?: number;
  onGone: () => void;
}) {
  const kind = previewKind(mimetype);
  const buckets = useBuckets();
  const [lifetime, setLifetime] = useState(3600);
  const sign = useMutation({ mutationFn: () => signUrl(bucket, objectKey, lifetime) });
  const moveCopy = useMoveCopy(bucket);
  const remove = useDeleteObjects(bucket);
  const [target, setTarget] = useState(objectKey);
  const [targetBucket, setTargetBucket] = useState(bucket);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const name = baseName(objectKey);

  return (
    <aside aria-label={`File ${name}`} className="flex min-h-0 flex-col gap-3 overflow-auto border-l border-slate-200 bg-white p-3 text-sm">
      <div>
        <h2 className="truncate text-base font-semibold" title={objectKey}>
          {name}
        </h2>
        <p className="text-xs text-slate-700">
          {mimetype ?? 'unknown type'} · {formatBytes(size)}
        </p>
      </div>
      <figure className="flex min-h-24 items-center justify-center rounded border border-slate-200 bg-slate-50">
        {kind === 'image' && <img src={previewUrl(bucket, objectKey, 640)} alt={`Preview of ${name}`} className="max-h-64 max-w-full object-contain" />}
        {kind === 'video' && <video src={objectUrl(bucket, objectKey)} controls preload="metadata" className="max-h-64 max-w-full" aria-label={`Video ${name}`} />}
        {kind === 'audio' && <audio src={objectUrl(bucket, objectKey)} controls aria-label={`Audio ${name}`} />}
        {kind === 'pdf' && <iframe src={objectUrl(bucket, objectKey)} title={`PDF ${name}`} className="h-72 w-full" />}
        {(kind === 'text' || kind === 'none') && <figcaption className="p-3 text-xs text-slate-700">No preview for this type.</figcaption>}
      </figure>
      <a href={objectUrl(bucket, objectKey, true)} className="inline-flex h-8 items-center justify-center rounded-md border border-slate-300 px-3 font-medium hover:bg-slate-100">
        Download
      </a>

      <section aria-label="Signed URL" className="flex flex-col gap-2 border-t border-slate-200 pt-3">
        <h3 className="text-xs font-semibold text-slate-700">Signed URL</h3>
        <div className="flex gap-2">
          <Select aria-label="Lifetime" value={lifetime} onChange={(e) => setLifetime(Number(e.target.value))} className="flex-1">
            {LIFETIMES.map((l) => (
              <option key={l.seconds} value={l.seconds}>
                valid {l.label}
              </option>
            ))}
          </Select>
          <Button onClick={() => sign.mutate()} disabled={sign.isPending}>
            Get URL
          </Button>
        </div>
        {sign.data && (
          <div className="flex gap-2">
            <Input readOnly aria-label="Signed URL" value={sign.data} onFocus={(e) => e.target.select()} className="flex-1 font-mono text-xs" />
            <Button onClick={() => void navigator.clipboard?.writeText(sign.data)}>Copy</Button>
          </div>
        )}
        {sign.error && <ErrorNote error={sign.error} />}
      </section>

      <section aria-label="Move or copy" className="flex flex-col gap-2 border-t border-slate-200 pt-3">
        <h3 className="text-xs font-semibold text-slate-700">Move or copy</h3>
        <Field label="To bucket">
          {(id) => (
            <Select id={id} value={targetBucket} onChange={(e) => setTargetBucket(e.target.value)}>
              {(buckets.data ?? [{ id: bucket, name: bucket }]).map((b) => (
                <option key={b.id} value={b.id}>
                  {b.name}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="To path">{(id) => <Input id={id} value={target} onChange={(e) => setTarget(e.target.value)} className="font-mono text-xs" />}</Field>
        <div className="flex gap-2">
          <Button
            disabled={moveCopy.isPending || (target === objectKey && targetBucket === bucket)}
            onClick={() => moveCopy.mutate({ op: 'move', from: objectKey, to: target, toBucket: targetBucket }, { onSuccess: onGone })}
          >
            Move
          </Button>
          <Button disabled={moveCopy.isPending || (target === objectKey && targetBucket === bucket)} onClick={() => moveCopy.mutate({ op: 'copy', from: objectKey, to: target, toBucket: targetBucket })}>
            Copy
          </Button>
        </div>
        {moveCopy.isSuccess && <p role="status" className="text-xs text-emerald-800">Done.</p>}
        {moveCopy.error && <ErrorNote error={moveCopy.error} />}
      </section>

      <section aria-label="Delete" className="flex flex-col gap-2 border-t border-slate-200 pt-3">
        {confirmDelete ? (
          <div className="flex items-center gap-2">
            <span className="text-xs">Delete {name} for good?</span>
            <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate([objectKey], { onSuccess: onGone })}>
              Delete file
            </Button>
            <Button onClick={() => setConfirmDelete(false)}>Keep</Button>
          </div>
        ) : (
          <Button variant="danger" onClick={() => setConfirmDelete(true)}>
            Delete…
          </Button>
        )}
        {remove.error && <ErrorNote error={remove.error} />}
      </section>
    </aside>
  );
}
