import { describe, expect, it } from 'vitest';
import { formatBytes, formatVersionTime, sortBy } from './format';

describe('formatBytes', () => {
  it('reads as pg_size_pretty does', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(8192)).toBe('8.0 kB');
    expect(formatBytes(1536 * 1024)).toBe('1.5 MB');
    expect(formatBytes(300 * 1024 * 1024)).toBe('300 MB');
  });
});

describe('sortBy', () => {
  const rows = [
    { name: 'b', n: 2 as number | null },
    { name: 'a', n: null },
    { name: 'c', n: 10 },
  ];
  it('sorts numbers as numbers and keeps nulls last both ways', () => {
    expect(sortBy(rows, 'n', 'asc').map((r) => r.name)).toEqual(['b', 'c', 'a']);
    expect(sortBy(rows, 'n', 'desc').map((r) => r.name)).toEqual(['c', 'b', 'a']);
    expect(sortBy(rows, 'name', 'desc').map((r) => r.name)).toEqual(['c', 'b', 'a']);
    expect(rows[0]?.name).toBe('b');
  });
});

describe('formatVersionTime', () => {
  it('reads a timestamped version and leaves others', () => {
    expect(formatVersionTime('20240101120000')).toBe('2024-01-01 12:00:00');
    expect(formatVersionTime('98')).toBeNull();
  });
});
