/** The Users list's search and filters, and the query string the server reads. */

export type TriState = 'any' | 'yes' | 'no';

export type UserFilters = {
  q: string;
  provider: string;
  confirmed: TriState;
  banned: TriState;
  anonymous: TriState;
  mfa: TriState;
};

export const NO_FILTERS: UserFilters = { q: '', provider: '', confirmed: 'any', banned: 'any', anonymous: 'any', mfa: 'any' };

const FLAGS = ['confirmed', 'banned', 'anonymous', 'mfa'] as const;

/** `?q=…&provider=…&confirmed=true…&after=…&limit=…`: only what is set. */
export function usersQuery(filters: UserFilters, after: string | null, limit: number): string {
  const params = new URLSearchParams();
  if (filters.q.trim()) params.set('q', filters.q.trim());
  if (filters.provider) params.set('provider', filters.provider);
  for (const flag of FLAGS) {
    if (filters[flag] !== 'any') params.set(flag, filters[flag] === 'yes' ? 'true' : 'false');
  }
  if (after) params.set('after', after);
  params.set('limit', String(limit));
  return `?${params.toString()}`;
}

/** A ban's length as the server reads it (Go's duration syntax), from a number and a unit. */
export function banDuration(amount: number, unit: 'h' | 'd'): string | null {
  if (!Number.isInteger(amount) || amount <= 0) return null;
  return unit === 'd' ? `${amount * 24}h` : `${amount}h`;
}

/** Parse edited metadata: a JSON object, or the reason it is not one. */
export function parseMetadata(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `Invalid JSON: ${(e as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'Metadata must be a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}
