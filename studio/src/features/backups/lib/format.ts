/** How the Backups screen shows sizes, times and ages. */

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** Unix seconds as `YYYY-MM-DD HH:MM:SS` (UTC). */
export function formatUnix(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 19);
}

/** A duration in seconds, in the largest unit that keeps it short: `45 s`, `12 min`, `3 h`, `2 d`. */
export function formatAge(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** pgBackRest's backup types, as people say them. */
export function typeName(type: string): string {
  return ({ full: 'Full', diff: 'Differential', incr: 'Incremental' } as Record<string, string>)[type] ?? type;
}
