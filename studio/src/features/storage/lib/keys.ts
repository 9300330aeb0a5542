/** Object keys as the browser shows them: folders are the parts of a key before a `/`. */

/** The crumbs of a folder prefix: `a/b/` → [{name: 'a', prefix: 'a/'}, {name: 'b', prefix: 'a/b/'}]. */
export function crumbs(prefix: string): { name: string; prefix: string }[] {
  const parts = prefix.split('/').filter(Boolean);
  return parts.map((name, i) => ({ name, prefix: `${parts.slice(0, i + 1).join('/')}/` }));
}

/** A folder prefix written the one way: no leading slash, a trailing one unless empty. */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, '').replace(/\/+/g, '/');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

/** An object's path in a URL: each segment encoded, the slashes kept. */
export function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

/** The key's last segment. */
export function baseName(key: string): string {
  return key.split('/').filter(Boolean).pop() ?? key;
}

export type PreviewKind = 'image' | 'video' | 'audio' | 'pdf' | 'text' | 'none';

/** How an object can be previewed, from its MIME type. */
export function previewKind(mime: string | null | undefined): PreviewKind {
  const m = ((mime ?? '').toLowerCase().split(';')[0] ?? '').trim();
  if (m === 'image/svg+xml') return 'none'; // a script may hide in an SVG: downloaded, not shown
  if (m.startsWith('image/')) return 'image';
  if (m.startsWith('video/')) return 'video';
  if (m.startsWith('audio/')) return 'audio';
  if (m === 'application/pdf') return 'pdf';
  if (m.startsWith('text/') || m === 'application/json') return 'text';
  return 'none';
}

/** Bytes for people: 1.5 KB, 50.0 MB. */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/** A size limit typed by the operator ("", "5 MB", "200kb", "1048576") in bytes; null for none, NaN when unreadable. */
export function parseSize(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (t === '') return null;
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/.exec(t);
  if (!m) return Number.NaN;
  const mult = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b') as 'b' | 'kb' | 'mb' | 'gb'];
  return Math.round(Number(m[1]) * mult);
}
