import { describe, expect, it } from 'vitest';
import { banDuration, NO_FILTERS, parseMetadata, usersQuery } from './filters';

describe('usersQuery', () => {
  it('sends only the limit when nothing is filtered', () => {
    expect(usersQuery(NO_FILTERS, null, 50)).toBe('?limit=50');
  });

  it('sends the search, the provider, each flag both ways and the cursor', () => {
    const q = usersQuery({ q: ' ann@ ', provider: 'google', confirmed: 'yes', banned: 'no', anonymous: 'any', mfa: 'yes' }, '2026-01-01T00:00:00Z|abc', 20);
    const params = new URLSearchParams(q.slice(1));
    expect(Object.fromEntries(params)).toEqual({ q: 'ann@', provider: 'google', confirmed: 'true', banned: 'false', mfa: 'true', after: '2026-01-01T00:00:00Z|abc', limit: '20' });
  });
});

describe('banDuration', () => {
  it('writes hours and days as hours', () => {
    expect(banDuration(2, 'h')).toBe('2h');
    expect(banDuration(3, 'd')).toBe('72h');
  });
  it('refuses zero, negatives and fractions', () => {
    expect(banDuration(0, 'h')).toBeNull();
    expect(banDuration(-1, 'd')).toBeNull();
    expect(banDuration(1.5, 'h')).toBeNull();
  });
});

describe('parseMetadata', () => {
  it('accepts an object', () => {
    expect(parseMetadata('{"plan": "pro"}')).toEqual({ ok: true, value: { plan: 'pro' } });
  });
  it('refuses broken JSON, arrays and scalars', () => {
    expect(parseMetadata('{oops').ok).toBe(false);
    expect(parseMetadata('[1]')).toEqual({ ok: false, error: 'Metadata must be a JSON object' });
    expect(parseMetadata('null').ok).toBe(false);
  });
});
