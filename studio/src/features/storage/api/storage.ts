/**
 * The storage screen's calls: storage's own routes mounted for operators under
 * /studio/api/storage (buckets, objects, signed URLs, uploads) and the S3 access keys.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';
import { encodeKey } from '../lib/keys';

export const storageKeys = {
  buckets: ['storage', 'buckets'] as const,
  objects: (bucket: string, prefix: string) => ['storage', 'objects', bucket, prefix] as const,
  bucketObjects: (bucket: string) => ['storage', 'objects', bucket] as const,
  s3Keys: ['storage', 's3-keys'] as const,
};

const bucketSchema = z.object({
  id: z.string(),
  name: z.string(),
  public: z.boolean(),
  file_size_limit: z.number().nullable(),
  allowed_mime_types: z.array(z.string()).nullable(),
  created_at: z.string().nullish(),
});
export type Bucket = z.infer<typeof bucketSchema>;

const entrySchema = z.object({
  name: z.string(),
  id: z.string().nullable(),
  updated_at: z.string().nullable(),
  metadata: z.object({ size: z.number().optional(), mimetype: z.string().optional() }).passthrough().nullable(),
});
export type Entry = z.infer<typeof entrySchema>;

export type BucketSettings = { public: boolean; file_size_limit: number | null; allowed_mime_types: string[] | null };

export function useBuckets() {
  return useQuery({ queryKey: storageKeys.buckets, queryFn: () => api('/storage/bucket?sortColumn=name', z.array(bucketSchema)) });
}

export function useObjects(bucket: string | undefined, prefix: string) {
  return useQuery({
    queryKey: storageKeys.objects(bucket ?? '', prefix),
    enabled: !!bucket,
    queryFn: () =>
      api(`/storage/object/list/${encodeURIComponent(bucket!)}`, z.array(entrySchema), {
        method: 'POST',
        body: { prefix, limit: 1000, sortBy: { column: 'name', order: 'asc' } },
      }),
  });
}

const ok = z.unknown();

export function useCreateBucket() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: BucketSettings & { name: string }) => api('/storage/bucket', ok, { method: 'POST', body: b }),
    onSuccess: () => qc.invalidateQueries({ queryKey: storageKeys.buckets }),
  });
}

export function useUpdateBucket() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...b }: BucketSettings & { id: string }) => api(`/storage/bucket/${encodeURIComponent(id)}`, ok, { method: 'PUT', body: b }),
    onSuccess: () => qc.invalidateQueries({ queryKey: storageKeys.buckets }),
  });
}

export function useEmptyBucket() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/storage/bucket/${encodeURIComponent(id)}/empty`, ok, { method: 'POST' }),
    onSuccess: (_, id) => qc.invalidateQueries({ queryKey: storageKeys.bucketObjects(id) }),
  });
}

export function useDeleteBucket() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/storage/bucket/${encodeURIComponent(id)}`, ok, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: storageKeys.buckets }),
  });
}

export function useDeleteObjects(bucket: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (keys: string[]) => api(`/storage/object/${encodeURIComponent(bucket)}`, ok, { method: 'DELETE', body: { prefixes: keys } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: storageKeys.bucketObjects(bucket) }),
  });
}

/** Move or copy an object within its bucket or to another one. */
export function useMoveCopy(bucket: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ op, from, to, toBucket }: { op: 'move' | 'copy'; from: string; to: string; toBucket: string }) =>
      api(`/storage/object/${op}`, ok, {
        method: 'POST',
        body: { bucketId: bucket, sourceKey: from, destinationKey: to, destinationBucket: toBucket },
      }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['storage', 'objects'] }),
  });
}

/** A signed URL (absolute, needing no key) that opens the object for `expiresIn` seconds. */
export async function signUrl(bucket: string, key: string, expiresIn: number): Promise<string> {
  const out = await api(`/storage/object/sign/${encodeURIComponent(bucket)}/${encodeKey(key)}`, z.object({ signedURL: z.string() }), {
    method: 'POST',
    body: { expiresIn },
  });
  return `${window.location.origin}/storage/v1${out.signedURL}`;
}

/** Where the browser reads an object with the session cookie (previews, downloads). */
export function objectUrl(bucket: string, key: string, download = false): string {
  return `/studio/api/storage/object/authenticated/${encodeURIComponent(bucket)}/${encodeKey(key)}${download ? '?download' : ''}`;
}

/** An image through the transformation endpoint, resized to fit `width`. */
export function previewUrl(bucket: string, key: string, width: number): string {
  return `/studio/api/storage/render/image/authenticated/${encodeURIComponent(bucket)}/${encodeKey(key)}?width=${width}&resize=contain`;
}

const s3KeySchema = z.object({ id: z.string(), description: z.string(), created_at: z.string() });
export type S3Key = z.infer<typeof s3KeySchema>;

export function useS3Keys() {
  return useQuery({ queryKey: storageKeys.s3Keys, queryFn: () => api('/s3-keys', z.object({ keys: z.array(s3KeySchema) })).then((r) => r.keys) });
}

export function useCreateS3Key() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (description: string) => api('/s3-keys', z.object({ id: z.string(), secret: z.string() }), { method: 'POST', body: { description } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: storageKeys.s3Keys }),
  });
}

export function useRevokeS3Key() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/s3-keys/${encodeURIComponent(id)}`, z.unknown(), { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: storageKeys.s3Keys }),
  });
}
