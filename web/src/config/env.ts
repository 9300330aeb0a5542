/*
 * What the app needs to reach the API, validated at start. Plain checks rather than zod: this
 * runs on every page before anything else, and even zod/mini would add about 7 KB (gzip) to the
 * JavaScript of the home page (see docs/web.md); the forms' schemas load zod with their pages.
 */

export interface RuntimeConfig {
  supabaseUrl: string;
  anonKey: string;
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** `/config.json` (or the build's values): an http(s) API URL and an anon key, else a clear error. */
export function parseRuntimeConfig(input: unknown): RuntimeConfig {
  const value = (input ?? {}) as Record<string, unknown>;
  if (!isHttpUrl(value.supabaseUrl)) throw new Error('Invalid runtime config: supabaseUrl is not an http(s) URL');
  if (typeof value.anonKey !== 'string' || value.anonKey.length < 20) throw new Error('Invalid runtime config: anonKey is missing or too short');
  return { supabaseUrl: value.supabaseUrl, anonKey: value.anonKey };
}

/**
 * The API URL defaults to this page's origin (the server serves the app); the anon key comes
 * from the build when baked in (`VITE_SUPABASE_ANON_KEY`), else from `GET /config.json`.
 */
export async function loadRuntimeConfig(fetcher: typeof fetch = fetch): Promise<RuntimeConfig> {
  const builtUrl: unknown = import.meta.env.VITE_SUPABASE_URL;
  const builtKey: unknown = import.meta.env.VITE_SUPABASE_ANON_KEY;
  if (builtUrl !== undefined && builtUrl !== '' && !isHttpUrl(builtUrl)) throw new Error('Invalid VITE_SUPABASE_URL');
  const url = (builtUrl as string | undefined) || window.location.origin;
  if (typeof builtKey === 'string' && builtKey) return parseRuntimeConfig({ supabaseUrl: url, anonKey: builtKey });
  const res = await fetcher('/config.json', { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`config.json: HTTP ${res.status}`);
  const parsed = parseRuntimeConfig(await res.json());
  // A server that reports its own external URL on another origin than ours (behind a proxy)
  // is still reached through this origin when VITE_SUPABASE_URL says nothing.
  return { supabaseUrl: (builtUrl as string | undefined) || window.location.origin || parsed.supabaseUrl, anonKey: parsed.anonKey };
}
