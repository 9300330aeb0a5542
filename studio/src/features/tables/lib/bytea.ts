/**
 * bytea cells: the grid shows a value as the start of its hex (`\x…`, as Postgres writes it)
 * with its size; a file's bytes go to the server as base64 (decoded and bound as bytea there).
 * Pure functions, tested in bytea.test.ts.
 */

/** How many bytes `\x…` hex holds (`null` for a value that is not hex). */
export function byteaSize(value: unknown): number | null {
  if (typeof value !== 'string' || !value.startsWith('\\x')) return null;
  return Math.floor((value.length - 2) / 2);
}

/** `5 bytes`, `1.5 KB`, `2.0 MB`. */
export function formatBytes(n: number): string {
  if (n === 1) return '1 byte';
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** The most hex digits the grid shows of a value. */
const SHOWN = 24;

/** A cell's text: `\x48656c6c6f (5 bytes)`, the hex cut after a few bytes (`…`). */
export function byteaSummary(value: unknown): string | null {
  const size = byteaSize(value);
  if (size === null) return value === null || value === undefined ? null : String(value);
  const hex = (value as string).slice(2);
  return `\\x${hex.slice(0, SHOWN)}${hex.length > SHOWN ? '…' : ''} (${formatBytes(size)})`;
}

/** Standard base64 of `bytes`, built in chunks (a large file would overflow one `apply`). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The largest value the editor sends (the server's limit too). */
export const MAX_BYTES = 10 * 1024 * 1024;
