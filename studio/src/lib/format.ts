/** Display helpers shared by the grids. */

/** A cell's text: `NULL` is shown apart from the empty string by the grid. */
export function cellText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

export function formatCount(n: number): string {
  return new Intl.NumberFormat('en-US').format(n);
}
