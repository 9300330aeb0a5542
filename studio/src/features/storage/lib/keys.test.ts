import { describe, expect, it } from 'vitest';
import { baseName, crumbs, encodeKey, formatBytes, normalizePrefix, parseSize, previewKind } from './keys';

describe('object keys', () => {
  it('split a prefix into breadcrumbs', () => {
    expect(crumbs('')).toEqual([]);
    expect(crumbs('a/b/')).toEqual([
      { name: 'a', prefix: 'a/' },
      { name: 'b', prefix: 'a/b/' },
    ]);
  });

  it('write a prefix one way', () => {
    expect(normalizePrefix('/a//b')).toBe('a/b/');
    expect(normalizePrefix('')).toBe('');
    expect(normalizePrefix('x/')).toBe('x/');
  });

  it('encode each segment and keep the slashes', () => {
    expect(encodeKey('été/a b#1.png')).toBe('%C3%A9t%C3%A9/a%20b%231.png');
    expect(baseName('a/b/c.txt')).toBe('c.txt');
  });

  it('tell what can be previewed', () => {
    expect(previewKind('image/png')).toBe('image');
    expect(previewKind('image/svg+xml')).toBe('none');
    expect(previewKind('video/mp4')).toBe('video');
    expect(previewKind('application/pdf')).toBe('pdf');
    expect(previewKind('text/plain; charset=utf-8')).toBe('text');
    expect(previewKind(undefined)).toBe('none');
  });

  it('read and write sizes', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(50 * 1024 * 1024)).toBe('50.0 MB');
    expect(parseSize('')).toBeNull();
    expect(parseSize('5 MB')).toBe(5 * 1024 * 1024);
    expect(parseSize('200kb')).toBe(200 * 1024);
    expect(parseSize('1048576')).toBe(1048576);
    expect(parseSize('lots')).toBeNaN();
  });
});
