import { useRef, useState, type DragEvent } from 'react';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { storageKeys, useBuckets, useDeleteBucket, useEmptyBucket, useObjects, useUpdateBucket, type Entry } from '../api/storage';
import { crumbs, formatBytes, normalizePrefix } from '../lib/keys';
import { uploadResumable } from '../lib/tus';
import { BucketFormView } from './bucket-form';
import { ObjectPanel } from './object-panel';
import { UploadList, type UploadState } from './upload-list';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/field';
import { Empty, ErrorNote, Loading } from '@/components/ui/states';
import { paths } from '@/lib/paths';

let nextUpload = 1;

/** A bucket's objects by folder: breadcrumbs, drop-to-upload with progress, a side panel for the chosen file. */
export function ObjectBrowser({ bucket, prefix: rawPrefix }: { bucket: string; prefix: string }) {
  const prefix = normalizePrefix(rawPrefix);
  const navigate = useNavigate();
  const qc = useQueryClient();
  const buckets = useBuckets();
  const info = buckets.data?.find((b) => b.id === bucket);
  const objects = useObjects(bucket, prefix);
  const update = useUpdateBucket();
  const empty = useEmptyBucket();
  const remove = useDeleteBucket();
  const [selected, setSelected] = useState<string | null>(null);
  const [uploads, setUploads] = useState<UploadState[]>([]);
  const [dragging, setDragging] = useState(false);
  const [dialog, setDialog] = useState<null | 'edit' | 'empty' | 'delete' | 'folder'>(null);
  const [folder, setFolder] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);

  const uploadOne = (file: File, key: string) => {
    const id = nextUpload++;
    setUploads((u) => [...u, { id, name: key, sent: 0, total: file.size, done: false }]);
    const patch = (p: Partial<UploadState>) => setUploads((u) => u.map((x) => (x.id === id ? { ...x, ...p } : x)));
    uploadResumable({ bucket, key, file, onProgress: (sent, total) => patch({ sent, total }) })
      .then(() => {
        patch({ done: true, sent: file.size });
        void qc.invalidateQueries({ queryKey: storageKeys.bucketObjects(bucket) });
      })
      .catch((e: Error) => patch({ error: e.message }));
  };
  const upload = (files: FileList | File[]) => Array.from(files).forEach((f) => uploadOne(f, `${prefix}${f.name}`));
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (e.dataTransfer.files.length) upload(e.dataTransfer.files);
  };
  const go = (p: string) => {
    setSelected(null);
    navigate(paths.storage(bucket, p));
  };
  const entries = objects.data ?? [];
  const folders = entries.filter((e) => e.id === null);
  const files = entries.filter((e) => e.id !== null && e.name !== '.emptyFolderPlaceholder');

  return (
    <div className="grid h-full min-h-0 grid-cols-1 lg:grid-cols-[minmax(0,1fr)_22rem]">
      <section
        aria-label={`Objects in ${bucket}`}
        className={`flex min-h-0 flex-col ${dragging ? 'outline-2 -outline-offset-4 outline-emerald-600 outline-dashed' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2">
          <h1 className="text-base font-semibold">{bucket}</h1>
          {info && (
            <p className="text-xs text-slate-700">
              {info.public ? 'public' : 'private'}
              {info.file_size_limit ? ` · up to ${formatBytes(info.file_size_limit)}` : ''}
              {info.allowed_mime_types ? ` · ${info.allowed_mime_types.join(', ')}` : ''}
            </p>
          )}
          <div className="ml-auto flex flex-wrap gap-2">
            <Button variant="primary" onClick={() => fileInput.current?.click()}>
              Upload files
            </Button>
            <input ref={fileInput} type="file" multiple className="hidden" aria-label="Files to upload" onChange={(e) => e.target.files && (upload(e.target.files), (e.target.value = ''))} />
            <Button onClick={() => (setFolder(''), setDialog('folder'))}>New folder</Button>
            <Button onClick={() => (update.reset(), setDialog('edit'))}>Edit bucket</Button>
            <Button onClick={() => setDialog('empty')}>Empty</Button>
            <Button variant="danger" onClick={() => (remove.reset(), setDialog('delete'))}>
              Delete bucket
            </Button>
          </div>
        </header>
        <nav aria-label="Folder" className="flex flex-wrap items-center gap-1 border-b border-slate-200 bg-white px-3 py-1 text-sm">
          <button type="button" className="text-emerald-800 underline" onClick={() => go('')}>
            {bucket}
          </button>
          {crumbs(prefix).map((c) => (
            <span key={c.prefix} className="flex items-center gap-1">
              <span aria-hidden>/</span>
              <button type="button" className="text-emerald-800 underline" onClick={() => go(c.prefix)}>
                {c.name}
              </button>
            </span>
          ))}
        </nav>
        <UploadList uploads={uploads} onClear={() => setUploads([])} />
        {objects.isPending && <Loading />}
        {objects.error && <ErrorNote error={objects.error} />}
        <div className="min-h-0 flex-1 overflow-auto" role="region" aria-label="Folder contents (scrollable)" tabIndex={0}>
          {objects.data && entries.length === 0 && <Empty>This folder is empty. Drop files here or use “Upload files”.</Empty>}
          {entries.length > 0 && (
            <table className="w-full text-[13px]">
              <caption className="sr-only">
                Folders and files in {bucket}/{prefix}
              </caption>
              <thead className="sticky top-0 bg-slate-100 text-left">
                <tr>
                  <th scope="col" className="px-2 py-1">Name</th>
                  <th scope="col" className="px-2 py-1">Size</th>
                  <th scope="col" className="px-2 py-1">Type</th>
                  <th scope="col" className="px-2 py-1">Updated (UTC)</th>
                </tr>
              </thead>
              <tbody>
                {folders.map((f) => (
                  <tr key={`d:${f.name}`} className="border-b border-slate-200 bg-white">
                    <td className="px-2 py-1" colSpan={4}>
                      <button type="button" className="font-medium text-emerald-800 hover:underline" onClick={() => go(`${prefix}${f.name}/`)}>
                        📁 {f.name}/
                      </button>
                    </td>
                  </tr>
                ))}
                {files.map((f: Entry) => {
                  const key = `${prefix}${f.name}`;
                  return (
                    <tr key={`f:${f.name}`} className={`border-b border-slate-200 ${selected === key ? 'bg-emerald-50' : 'bg-white'}`}>
                      <td className="px-2 py-1">
                        <button type="button" aria-pressed={selected === key} className="text-left hover:underline" onClick={() => setSelected(key)}>
                          {f.name}
                        </button>
                      </td>
                      <td className="px-2 py-1 whitespace-nowrap">{formatBytes(f.metadata?.size)}</td>
                      <td className="px-2 py-1">{f.metadata?.mimetype ?? ''}</td>
                      <td className="px-2 py-1 whitespace-nowrap">{f.updated_at?.replace('T', ' ').slice(0, 19) ?? ''}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
        </div>
      </section>
      {selected ? (
        <ObjectPanel
          key={selected}
          bucket={bucket}
          objectKey={selected}
          mimetype={files.find((f) => `${prefix}${f.name}` === selected)?.metadata?.mimetype}
          size={files.find((f) => `${prefix}${f.name}` === selected)?.metadata?.size}
          onGone={() => setSelected(null)}
        />
      ) : (
        <aside className="hidden border-l border-slate-200 bg-white p-3 text-sm text-slate-700 lg:block">Choose a file to preview it, sign a URL, move, copy or delete it.</aside>
      )}

      <Dialog open={dialog === 'edit'} title={`Edit bucket ${bucket}`} onClose={() => setDialog(null)}>
        {info && (
          <BucketFormView
            bucket={info}
            onCancel={() => setDialog(null)}
            pending={update.isPending}
            error={update.error}
            onSubmit={(_, settings) => update.mutate({ id: bucket, ...settings }, { onSuccess: () => setDialog(null) })}
          />
        )}
      </Dialog>
      <Dialog open={dialog === 'empty'} title={`Empty ${bucket}?`} onClose={() => setDialog(null)}>
        <p className="mb-3 text-sm">Every object in the bucket is deleted, with its bytes. The bucket stays.</p>
        {empty.error ? <ErrorNote error={empty.error} /> : null}
        <div className="flex justify-end gap-2">
          <Button onClick={() => setDialog(null)}>Cancel</Button>
          <Button variant="danger" disabled={empty.isPending} onClick={() => empty.mutate(bucket, { onSuccess: () => setDialog(null) })}>
            Empty bucket
          </Button>
        </div>
      </Dialog>
      <Dialog open={dialog === 'delete'} title={`Delete ${bucket}?`} onClose={() => setDialog(null)}>
        <p className="mb-3 text-sm">Only an empty bucket can be deleted: empty it first.</p>
        {remove.error ? <ErrorNote error={remove.error} /> : null}
        <div className="flex justify-end gap-2">
          <Button onClick={() => setDialog(null)}>Cancel</Button>
          <Button
            variant="danger"
            disabled={remove.isPending}
            onClick={() =>
              remove.mutate(bucket, {
                onSuccess: () => {
                  setDialog(null);
                  navigate(paths.storage());
                },
              })
            }
          >
            Delete bucket
          </Button>
        </div>
      </Dialog>
      <Dialog open={dialog === 'folder'} title="New folder" onClose={() => setDialog(null)}>
        <form
          className="flex flex-col gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            const name = folder.trim().replace(/\//g, '');
            if (!name) return;
            setDialog(null);
            // A folder exists through its objects: an empty placeholder keeps it, as Supabase Studio does.
            uploadOne(new File([], '.emptyFolderPlaceholder'), `${prefix}${name}/.emptyFolderPlaceholder`);
            go(`${prefix}${name}/`);
          }}
        >
          <label className="flex flex-col gap-1 text-xs font-medium text-slate-700">
            Folder name
            <Input value={folder} onChange={(e) => setFolder(e.target.value)} autoFocus />
          </label>
          <div className="flex justify-end gap-2">
            <Button onClick={() => setDialog(null)}>Cancel</Button>
            <Button type="submit" variant="primary">
              Create folder
            </Button>
          </div>
        </form>
      </Dialog>
      <p className="sr-only" aria-live="polite">
        {uploads.filter((u) => u.done).length} of {uploads.length} uploads done
      </p>
    </div>
  );
}
