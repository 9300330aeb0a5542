/** Display helpers of the Database section. */

/** Bytes as a person reads them: `0 B`, `8.0 kB`, `1.2 MB` (powers of 1024, as Postgres's pg_size_pretty). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v >= 100 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

export type SortDir = 'asc' | 'desc';

/** Rows sorted by one key, numbers as numbers, null last whichever way; the input is not changed. */
export function sortBy<T>(rows: readonly T[], key: keyof T, dir: SortDir): T[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (x == null && y == null) return 0;
    if (x == null) return 1;
    if (y == null) return -1;
    if (typeof x === 'number' && typeof y === 'number') return (x - y) * sign;
    return String(x).localeCompare(String(y)) * sign;
  });
}

/** A refinery `applied_on` (RFC 3339 text) or a project version (`20240101120000`) as `2024-01-01 12:00:00`. */
export function formatVersionTime(version: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(version);
  return m ? `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6]}` : null;
}
