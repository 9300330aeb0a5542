/**
 * Resumable uploads (TUS 1.0) to the storage surface's `/upload/resumable`, as mounted for the
 * dashboard under /studio/api/storage: the session cookie and its CSRF token, never a key. A file
 * goes in chunks, each a PATCH sent with XMLHttpRequest for its progress events; a chunk that
 * fails is retried from the offset the server reports (HEAD), so an interrupted upload resumes.
 */
import { API_BASE, ApiError, getCsrfToken } from '@/lib/api';

/** The chunk size Supabase's clients use. */
export const CHUNK = 6 * 1024 * 1024;
const TUS = '1.0.0';
const RETRIES = 3;

/** `Upload-Metadata`: `key base64(value)` pairs, comma-separated, values UTF-8. */
export function tusMetadata(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([k, v]) => {
      const bytes = new TextEncoder().encode(v);
      let bin = '';
      for (const b of bytes) bin += String.fromCharCode(b);
      return `${k} ${btoa(bin)}`;
    })
    .join(',');
}

/** The byte ranges `[start, end)` still to send, from `offset`. */
export function chunkPlan(size: number, offset = 0, chunk = CHUNK): [number, number][] {
  const out: [number, number][] = [];
  for (let start = offset; start < size; start += chunk) out.push([start, Math.min(size, start + chunk)]);
  return out;
}

function headers(extra: Record<string, string>): Record<string, string> {
  const h: Record<string, string> = { 'Tus-Resumable': TUS, ...extra };
  const csrf = getCsrfToken();
  if (csrf) h['x-csrf-token'] = csrf;
  return h;
}

async function refusal(res: Response): Promise<ApiError> {
  const text = await res.text();
  let message = text || `The server answered ${res.status}`;
  try {
    const j = JSON.parse(text) as { message?: string; error?: { message?: string } };
    message = j.error?.message ?? j.message ?? message;
  } catch {
    /* TUS refusals are plain text */
  }
  return new ApiError(res.status, 'upload', message);
}

function patch(url: string, blob: Blob, offset: number, onBytes: (n: number) => void, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PATCH', url);
    for (const [k, v] of Object.entries(headers({ 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' }))) {
      xhr.setRequestHeader(k, v);
    }
    xhr.upload.onprogress = (e) => onBytes(e.loaded);
    xhr.onload = () => {
      if (xhr.status === 204 || xhr.status === 200) resolve(Number(xhr.getResponseHeader('Upload-Offset') ?? offset + blob.size));
      else reject(new ApiError(xhr.status, 'upload', xhr.responseText || `The server answered ${xhr.status}`));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'The upload was interrupted'));
    xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(blob);
  });
}

export type UploadInput = {
  bucket: string;
  key: string;
  file: Blob;
  contentType?: string;
  upsert?: boolean;
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
};

/** Upload `file` to `bucket/key` in chunks; resolves once the object exists. */
export async function uploadResumable({ bucket, key, file, contentType, upsert = false, onProgress, signal }: UploadInput): Promise<void> {
  const metadata = tusMetadata({ bucketName: bucket, objectName: key, contentType: contentType || file.type || 'application/octet-stream' });
  const created = await fetch(`${API_BASE}/storage/upload/resumable`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: headers({ 'Upload-Length': String(file.size), 'Upload-Metadata': metadata, 'x-upsert': String(upsert) }),
    signal,
  });
  if (created.status !== 201) throw await refusal(created);
  const location = created.headers.get('Location');
  if (!location) throw new ApiError(500, 'upload', 'The server gave no upload address');
  // Same origin whatever host the server saw.
  const url = new URL(location, window.location.href).pathname;
  let offset = 0;
  onProgress?.(0, file.size);
  let failures = 0;
  while (offset < file.size) {
    const [start, end] = chunkPlan(file.size, offset)[0] ?? [offset, file.size];
    try {
      offset = await patch(url, file.slice(start, end), start, (n) => onProgress?.(start + n, file.size), signal);
      failures = 0;
    } catch (e) {
      if ((e as Error).name === 'AbortError' || ++failures > RETRIES) throw e;
      const head = await fetch(url, { method: 'HEAD', credentials: 'same-origin', headers: headers({}), signal });
      if (!head.ok) throw await refusal(head);
      offset = Number(head.headers.get('Upload-Offset') ?? start);
    }
    onProgress?.(offset, file.size);
  }
}
