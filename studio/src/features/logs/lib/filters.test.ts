import { describe, expect, it } from 'vitest';
import { filtersSchema, mergeNewest, NO_FILTERS, rangeBounds, requestsQuery, statusTone } from './filters';

const NOW = new Date('2026-12-06T12:00:00Z');

describe('requestsQuery', () => {
  it('sends the start of the default range and the limit only', () => {
    expect(requestsQuery(NO_FILTERS, NOW, {}, 100)).toBe('?from=2026-12-05T12%3A00%3A00.000Z&limit=100');
  });

  it('sends every filter that is set and the page cursor', () => {
    const q = requestsQuery(
      { ...NO_FILTERS, surface: 'rest', path: ' /rest/v1/cars ', status: '5xx', user: '11111111-1111-4111-8111-111111111111', requestId: 'abc-1', range: 'all' },
      NOW,
      { before: 42 },
      50,
    );
    expect(Object.fromEntries(new URLSearchParams(q.slice(1)))).toEqual({
      surface: 'rest',
      path: '/rest/v1/cars',
      status: '5xx',
      user: '11111111-1111-4111-8111-111111111111',
      request_id: 'abc-1',
      before: '42',
      limit: '50',
    });
  });

  it('lets the live tail ask for newer rows without the rolling start', () => {
    const q = new URLSearchParams(requestsQuery({ ...NO_FILTERS, range: '15m' }, NOW, { after: 7 }, 500).slice(1));
    expect(q.get('from')).toBeNull();
    expect(q.get('after')).toBe('7');
  });
});

describe('rangeBounds', () => {
  it('rolls back from now, or takes the custom bounds', () => {
    expect(rangeBounds({ range: '15m', from: '', to: '' }, NOW)).toEqual({ from: '2026-12-06T11:45:00.000Z' });
    expect(rangeBounds({ range: 'all', from: '', to: '' }, NOW)).toEqual({});
    const custom = rangeBounds({ range: 'custom', from: '2026-12-01T10:00', to: '' }, NOW);
    expect(custom.from).toBe(new Date('2026-12-01T10:00').toISOString());
    expect(custom.to).toBeUndefined();
  });
});

describe('filtersSchema', () => {
  it('refuses a user that is not a UUID, a bad request id and a reversed range', () => {
    const bad = filtersSchema.safeParse({ ...NO_FILTERS, user: 'bob', requestId: 'a b', range: 'custom', from: '2026-12-02T00:00', to: '2026-12-01T00:00' });
    expect(bad.success).toBe(false);
    const paths = bad.success ? [] : bad.error.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['user', 'requestId', 'to']));
  });

  it('accepts a status class or code', () => {
    expect(filtersSchema.safeParse({ ...NO_FILTERS, status: '404' }).success).toBe(true);
    expect(filtersSchema.safeParse({ ...NO_FILTERS, status: '4xx' }).success).toBe(true);
    expect(filtersSchema.safeParse({ ...NO_FILTERS, status: '700' }).success).toBe(false);
  });
});

describe('mergeNewest', () => {
  it('puts newer rows first, once each, and keeps at most max', () => {
    const rows = mergeNewest([{ id: 5 }, { id: 4 }], [{ id: 4 }, { id: 3 }, { id: 2 }], 3);
    expect(rows.map((r) => r.id)).toEqual([5, 4, 3]);
  });
});

it('colours statuses by class', () => {
  expect([200, 304, 404, 503].map(statusTone)).toEqual(['emerald', 'slate', 'amber', 'red']);
});
