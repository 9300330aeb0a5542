import { describe, expect, it } from 'vitest';
import { loadRuntimeConfig, parseRuntimeConfig } from './env';

describe('runtime config', () => {
  it('validates /config.json', () => {
    const good = { supabaseUrl: 'http://127.0.0.1:54321', anonKey: 'x'.repeat(40) };
    expect(parseRuntimeConfig(good)).toEqual(good);
    expect(() => parseRuntimeConfig({ supabaseUrl: 'pas une url', anonKey: 'x'.repeat(40) })).toThrow(/supabaseUrl/);
    expect(() => parseRuntimeConfig({ supabaseUrl: 'ftp://a', anonKey: 'x'.repeat(40) })).toThrow(/supabaseUrl/);
    expect(() => parseRuntimeConfig({ supabaseUrl: 'http://a', anonKey: '' })).toThrow(/anonKey/);
    expect(() => parseRuntimeConfig(null)).toThrow(/supabaseUrl/);
  });
  it('fetches the anon key when the build has none, using this origin', async () => {
    const fetcher = (async () => new Response(JSON.stringify({ supabaseUrl: 'http://elsewhere:1', anonKey: 'k'.repeat(40) }))) as typeof fetch;
    const c = await loadRuntimeConfig(fetcher);
    expect(c).toEqual({ supabaseUrl: window.location.origin, anonKey: 'k'.repeat(40) });
  });
  it('fails clearly when /config.json is missing', async () => {
    const fetcher = (async () => new Response('nope', { status: 404 })) as typeof fetch;
    await expect(loadRuntimeConfig(fetcher)).rejects.toThrow(/404/);
  });
});
