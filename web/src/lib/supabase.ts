/**
 * The app's two ways to the API. Data (`supabase().from(...)`, `.rpc(...)`) goes through a small
 * PostgREST client, loaded with every page; the full supabase-js client (auth, realtime,
 * storage) is loaded when needed (`supabaseClient()`): at start when a session is stored or an
 * e-mail link brought one in the URL, else when a page signs in, subscribes or uploads. A
 * visitor's public pages never load it. Data requests carry the signed-in user's token (read
 * through supabase-js, which refreshes it) when there is a session, else the anon key.
 */
import { PostgrestClient } from '@supabase/postgrest-js';
import type { SupabaseClient } from '@supabase/supabase-js';
import type { RuntimeConfig } from '@/config/env';
import type { Database } from '@/types/supabase';

/** Where the "remember me" choice is kept. */
export const REMEMBER_ME_KEY = 'kpa.remember-me';

/**
 * Session storage that honours "remember me": the session lives in localStorage when the user
 * asked to be remembered, else in sessionStorage (gone when the browser closes).
 */
const rememberingStorage = {
  getItem(key: string): string | null {
    return window.localStorage.getItem(key) ?? window.sessionStorage.getItem(key);
  },
  setItem(key: string, value: string): void {
    const remember = window.localStorage.getItem(REMEMBER_ME_KEY) !== 'false';
    (remember ? window.localStorage : window.sessionStorage).setItem(key, value);
    (remember ? window.sessionStorage : window.localStorage).removeItem(key);
  },
  removeItem(key: string): void {
    window.localStorage.removeItem(key);
    window.sessionStorage.removeItem(key);
  },
};

/** customer-site.md §7: the realtime channel sends a heartbeat every 30 s ... */
export const REALTIME_HEARTBEAT_MS = 30_000;
/** ... and reconnects after 1, 2, 5, then every 10 s. */
export const REALTIME_RECONNECT_DELAYS_MS = [1000, 2000, 5000, 10000] as const;

/** The delay before reconnection attempt `tries` (1 for the first). */
export function reconnectAfterMs(tries: number): number {
  return REALTIME_RECONNECT_DELAYS_MS[tries - 1] ?? 10_000;
}

let config: RuntimeConfig | null = null;
let apiUrl = '';
let data: PostgrestClient<Database> | null = null;
let loading: Promise<SupabaseClient<Database>> | null = null;
let loaded: SupabaseClient<Database> | null = null;
const loadedListeners = new Set<(client: SupabaseClient<Database>) => void>();

/** supabase-js's default storage key for the API's URL (`sb-<first label of the host>-auth-token`). */
function storageKey(): string {
  return `sb-${new URL(apiUrl).hostname.split('.')[0]}-auth-token`;
}

/** Whether a session is stored (the user signed in earlier): its token is then needed. */
export function hasStoredSession(): boolean {
  if (typeof window === 'undefined' || !apiUrl) return false;
  try {
    return rememberingStorage.getItem(storageKey()) !== null;
  } catch {
    return false;
  }
}

/** Whether the page was opened from an e-mail link that carries a session or an auth error. */
function urlCarriesAuth(): boolean {
  return /(^|[#&])(access_token|error_description|error_code)=/.test(initialUrl.hash) || /[?&]code=/.test(initialUrl.search);
}

/** The data request's fetch: the user's token when a session exists, else the anon key. */
async function authedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const headers = new Headers(init?.headers);
  let token = config?.anonKey ?? '';
  if (loaded || hasStoredSession()) {
    const client = await supabaseClient();
    const { data: current } = await client.auth.getSession();
    token = current.session?.access_token ?? token;
  }
  if (!headers.has('Authorization')) headers.set('Authorization', `Bearer ${token}`);
  return fetch(input, { ...init, headers });
}

/** Set the app up (called once at start, after the config is loaded). */
export function initSupabase(runtime: RuntimeConfig): void {
  config = runtime;
  apiUrl = runtime.supabaseUrl.replace(/\/$/, '');
  data = new PostgrestClient<Database>(`${apiUrl}/rest/v1`, { headers: { apikey: runtime.anonKey }, fetch: authedFetch });
  loading = null;
  loaded = null;
  if (hasStoredSession() || urlCarriesAuth()) void supabaseClient();
}

/** The data client (`from`, `rpc`); throws if used before `initSupabase`. */
export function supabase(): PostgrestClient<Database> {
  if (!data) throw new Error('Supabase client not initialised');
  return data;
}

/** The full supabase-js client, loaded on first use. */
export function supabaseClient(): Promise<SupabaseClient<Database>> {
  if (!config) return Promise.reject(new Error('Supabase client not initialised'));
  const runtime = config;
  loading ??= import('@supabase/supabase-js').then(({ createClient }) => {
    loaded = createClient<Database>(apiUrl, runtime.anonKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true, flowType: 'implicit', storage: rememberingStorage },
      realtime: { heartbeatIntervalMs: REALTIME_HEARTBEAT_MS, reconnectAfterMs },
    });
    for (const listener of loadedListeners) listener(loaded);
    return loaded;
  });
  return loading;
}

/** The full client if it is loaded already. */
export function loadedSupabaseClient(): SupabaseClient<Database> | null {
  return loaded;
}

/** Call `listener` when the full client gets loaded (at once if it is); returns the unsubscribe. */
export function onSupabaseLoaded(listener: (client: SupabaseClient<Database>) => void): () => void {
  if (loaded) {
    listener(loaded);
    return () => {};
  }
  loadedListeners.add(listener);
  return () => loadedListeners.delete(listener);
}

/** The API base URL (for storage paths). */
export function getApiUrl(): string {
  return apiUrl || window.location.origin;
}

/**
 * The URL fragment and query the page was opened with, captured before supabase-js consumes
 * them (the e-mail links put the session or the error there).
 */
export const initialUrl =
  typeof window === 'undefined'
    ? { hash: '', search: '', path: '/' }
    : { hash: window.location.hash, search: window.location.search, path: window.location.pathname };
