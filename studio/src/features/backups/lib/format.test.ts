import { describe, expect, it } from 'vitest';
import { formatAge, formatBytes, formatUnix, typeName } from './format';

describe('backup display helpers', () => {
  it('sizes use binary units with one decimal under ten', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(25 * 1024 * 1024)).toBe('25 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
  });

  it('ages are short', () => {
    expect(formatAge(0)).toBe('0 s');
    expect(formatAge(89)).toBe('89 s');
    expect(formatAge(600)).toBe('10 min');
    expect(formatAge(7200)).toBe('2 h');
    expect(formatAge(3 * 86400)).toBe('3 d');
    expect(formatAge(-5)).toBe('0 s');
  });

  it('times are UTC and types are named', () => {
    expect(formatUnix(0)).toBe('1970-01-01 00:00:00');
    expect(typeName('incr')).toBe('Incremental');
    expect(typeName('other')).toBe('other');
  });
});
