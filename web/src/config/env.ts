// zod/mini: the same validation, a fraction of the bytes in the start-up bundle.
import * as z from 'zod/mini';

/** What the app needs to reach the API: validated at start, from the build or from /config.json. */
export const runtimeConfigSchema = z.object({
  supabaseUrl: z.url(),
  anonKey: z.string().check(z.minLength(20)),
});
export type RuntimeConfig = z.infer<typeof runtimeConfigSchema>;

const buildEnvSchema = z.object({
  VITE_SUPABASE_URL: z.optional(z.union([z.url(), z.literal('')])),
  VITE_SUPABASE_ANON_KEY: z.optional(z.string()),
});

/**
 * The API URL defaults to this page's origin (the server serves the app); the anon key comes
 * from the build when baked in, else from `GET /config.json` served by the server.
 */
export async function loadRuntimeConfig(fetcher: typeof fetch = fetch): Promise<RuntimeConfig> {
  const env = buildEnvSchema.parse(import.meta.env);
  const url = env.VITE_SUPABASE_URL || window.location.origin;
  if (env.VITE_SUPABASE_ANON_KEY) {
    return runtimeConfigSchema.parse({ supabaseUrl: url, anonKey: env.VITE_SUPABASE_ANON_KEY });
  }
  const res = await fetcher('/config.json', { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`config.json: HTTP ${res.status}`);
  const json: unknown = await res.json();
  const parsed = runtimeConfigSchema.parse(json);
  // A server that reports its own external URL on another origin than ours (behind a proxy)
  // is still reached through this origin when VITE_SUPABASE_URL says nothing.
  return { supabaseUrl: env.VITE_SUPABASE_URL || window.location.origin || parsed.supabaseUrl, anonKey: parsed.anonKey };
}
