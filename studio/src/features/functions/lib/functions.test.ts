import { describe, expect, it } from 'vitest';
import { parseHeaders, prettyBody, secretNameSchema, slugSchema, template, validPath } from './functions';

describe('the functions screen helpers', () => {
  it('takes function names the server takes', () => {
    expect(slugSchema.safeParse('hello-world_2').success).toBe(true);
    expect(slugSchema.safeParse('_shared').success).toBe(false);
    expect(slugSchema.safeParse('a b').success).toBe(false);
    expect(slugSchema.safeParse('').success).toBe(false);
  });

  it('refuses reserved and malformed secret names', () => {
    expect(secretNameSchema.safeParse('STRIPE_KEY').success).toBe(true);
    expect(secretNameSchema.safeParse('SUPABASE_URL').success).toBe(false);
    expect(secretNameSchema.safeParse('1KEY').success).toBe(false);
    expect(secretNameSchema.safeParse('MY-KEY').success).toBe(false);
  });

  it('reads headers one per line and says which line is wrong', () => {
    expect(parseHeaders('X-One: 1\n\ncontent-type: text/plain')).toEqual({ ok: true, headers: { 'X-One': '1', 'content-type': 'text/plain' } });
    expect(parseHeaders('no colon here')).toEqual({ ok: false, error: 'Line 1: write a header as Name: value' });
    expect(parseHeaders('')).toEqual({ ok: true, headers: {} });
  });

  it('accepts only relative file paths', () => {
    expect(validPath('index.ts')).toBe(true);
    expect(validPath('lib/util.ts')).toBe(true);
    expect(validPath('../etc/passwd')).toBe(false);
    expect(validPath('/abs.ts')).toBe(false);
    expect(validPath('a b.ts')).toBe(false);
  });

  it('starts a new function with an index.ts that serves requests', () => {
    const [file] = template('hello');
    expect(file?.path).toBe('index.ts');
    expect(file?.content).toContain('Deno.serve');
  });

  it('pretty-prints JSON bodies only', () => {
    expect(prettyBody('{"a":1}', 'application/json')).toBe('{\n  "a": 1\n}');
    expect(prettyBody('{"a":1}', 'text/plain')).toBe('{"a":1}');
    expect(prettyBody('not json', 'application/json')).toBe('not json');
  });
});
