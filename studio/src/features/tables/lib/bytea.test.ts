import { byteaSize, byteaSummary, formatBytes, toBase64 } from './bytea';
import { parseText } from './cell-value';

describe('bytea values', () => {
  it('are shown as the start of their hex with their size', () => {
    expect(byteaSize('\\x48656c6c6f')).toBe(5);
    expect(byteaSize('\\x')).toBe(0);
    expect(byteaSize(null)).toBeNull();
    expect(byteaSummary('\\x48656c6c6f')).toBe('\\x48656c6c6f (5 bytes)');
    expect(byteaSummary(`\\x${'ab'.repeat(20)}`)).toBe(`\\x${'ab'.repeat(12)}… (20 bytes)`);
    expect(byteaSummary(null)).toBeNull();
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MB');
  });
  it('are typed as \\x hex, checked with a reason', () => {
    expect(parseText('\\x48 65 6C', 'bytea')).toEqual({ ok: true, value: '\\x48656c' });
    expect(parseText('\\x', 'bytea')).toEqual({ ok: true, value: '\\x' });
    expect(parseText('48656c', 'bytea')).toMatchObject({ ok: false, error: expect.stringContaining('\\x followed by pairs') });
    expect(parseText('\\x4g', 'bytea')).toMatchObject({ ok: false, error: expect.stringContaining('Only hexadecimal digits') });
    expect(parseText('\\xabc', 'bytea')).toMatchObject({ ok: false, error: expect.stringContaining('odd number') });
  });
  it('go to the server as base64', () => {
    expect(toBase64(new Uint8Array([0, 1, 255, 104, 105]))).toBe('AAH/aGk=');
    const big = new Uint8Array(100_000).fill(7);
    expect(atob(toBase64(big)).length).toBe(100_000);
  });
});
