import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import type { Bucket, BucketSettings } from '../api/storage';
import { formatBytes, parseSize } from '../lib/keys';
import { Button } from '@/components/ui/button';
import { Field, Input } from '@/components/ui/field';
import { ErrorNote } from '@/components/ui/states';

/** The bucket form's fields as typed; turned into settings by `bucketSettings`. */
export const bucketFormSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'A bucket needs a name')
    .max(100, 'At most 100 characters')
    .regex(/^[A-Za-z0-9_.\- !*'()&$@=;:+,?]+$/, 'Letters, digits and - _ . only (no slash)'),
  public: z.boolean(),
  size: z.string().refine((t) => !Number.isNaN(parseSize(t)), 'A size such as 5 MB, 200 KB or 1048576'),
  mimes: z.string().refine((t) => t.split(',').every((m) => m.trim() === '' || /^[\w.+-]+\/[\w.+*-]+$/.test(m.trim())), 'MIME types such as image/png, image/*'),
});
export type BucketForm = z.infer<typeof bucketFormSchema>;

export function bucketSettings(form: BucketForm): BucketSettings {
  const mimes = form.mimes
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  return { public: form.public, file_size_limit: parseSize(form.size), allowed_mime_types: mimes.length ? mimes : null };
}

/** Create a bucket, or edit one (its name fixed). */
export function BucketFormView({
  bucket,
  onSubmit,
  onCancel,
  pending,
  error,
}: {
  bucket?: Bucket;
  onSubmit: (name: string, settings: BucketSettings) => void;
  onCancel: () => void;
  pending: boolean;
  error: unknown;
}) {
  const form = useForm<BucketForm>({
    resolver: zodResolver(bucketFormSchema),
    defaultValues: {
      name: bucket?.name ?? '',
      public: bucket?.public ?? false,
      size: bucket?.file_size_limit ? formatBytes(bucket.file_size_limit).replace('.0 ', ' ') : '',
      mimes: bucket?.allowed_mime_types?.join(', ') ?? '',
    },
  });
  const errors = form.formState.errors;
  return (
    <form noValidate className="flex flex-col gap-3" onSubmit={form.handleSubmit((v) => onSubmit(v.name.trim(), bucketSettings(v)))}>
      <Field label="Name" error={errors.name?.message}>
        {(id, d) => <Input id={id} aria-describedby={d} readOnly={!!bucket} autoFocus={!bucket} {...form.register('name')} />}
      </Field>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" className="size-4 accent-emerald-700" {...form.register('public')} />
        Public (anyone with an object's URL can read it)
      </label>
      <Field label="Largest file (empty: the server's limit)" error={errors.size?.message}>
        {(id, d) => <Input id={id} aria-describedby={d} placeholder="e.g. 50 MB" {...form.register('size')} />}
      </Field>
      <Field label="Allowed MIME types, comma-separated (empty: any)" error={errors.mimes?.message}>
        {(id, d) => <Input id={id} aria-describedby={d} placeholder="image/*, application/pdf" {...form.register('mimes')} />}
      </Field>
      {error ? <ErrorNote error={error} /> : null}
      <div className="flex justify-end gap-2">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={pending}>
          {bucket ? 'Save bucket' : 'Create bucket'}
        </Button>
      </div>
    </form>
  );
}
