import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { RuntimeConfig } from '@/config/env';

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

let client: SupabaseClient | null = null;
let apiUrl = '';

/** Create the one client of the app (called once at start, after the config is loaded). */
export function initSupabase(config: RuntimeConfig): SupabaseClient {
  apiUrl = config.supabaseUrl.replace(/\/$/, '');
  client = createClient(apiUrl, config.anonKey, {
    auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true, flowType: 'implicit', storage: rememberingStorage },
    realtime: { heartbeatIntervalMs: REALTIME_HEARTBEAT_MS, reconnectAfterMs },
  });
  return client;
}

/** The client; throws if used before `initSupabase`. */
export function supabase(): SupabaseClient {
  if (!client) throw new Error('Supabase client not initialised');
  return client;
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
