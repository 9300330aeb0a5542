/**
 * The one way the dashboard talks to its server: `fetch` under /studio/api with the session
 * cookie (same origin, sent by the browser), the session's CSRF token on every write, JSON in
 * and out, and failures thrown as `ApiError` with the server's `{error: {code, message}}`.
 * The dashboard never holds an API key.
 */
import { z } from 'zod';

export const API_BASE = '/studio/api';

let csrfToken: string | null = null;

/** Remember the CSRF token of the current session (from sign-in or GET /session). */
export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

/** The session's CSRF token, for a write that cannot go through `api` (an upload with progress). */
export function getCsrfToken(): string | null {
  return csrfToken;
}

const errorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    detail: z.string().nullish(),
    hint: z.string().nullish(),
    position: z.number().nullish(),
  }),
});

/** The storage surface's shape, which its routes mounted under /studio/api/storage answer in. */
const storageErrorBody = z.object({ statusCode: z.string(), error: z.string(), message: z.string() });

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly detail?: string | null,
    readonly hint?: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Called when the server says the session is gone (401): the app goes back to sign-in. */
let onUnauthenticated: () => void = () => {};
export function setUnauthenticatedHandler(handler: () => void) {
  onUnauthenticated = handler;
}

export async function api<T>(
  path: string,
  schema: z.ZodType<T>,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(`${API_BASE}${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: init.signal,
  });
  const text = await res.text();
  const json: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const parsed = errorBody.safeParse(json);
    if (res.status === 401 && path !== '/signin') onUnauthenticated();
    if (parsed.success) {
      const e = parsed.data.error;
      throw new ApiError(res.status, e.code, e.message, e.detail, e.hint);
    }
    const storage = storageErrorBody.safeParse(json);
    if (storage.success) throw new ApiError(Number(storage.data.statusCode) || res.status, storage.data.error, storage.data.message);
    throw new ApiError(res.status, 'http', `The server answered ${res.status}`);
  }
  return schema.parse(json);
}

/** A GET whose answer is text (the generated types), with the same errors as `api`. */
export async function apiText(path: string): Promise<string> {
  const res = await fetch(`${API_BASE}${path}`, { headers: { accept: 'text/plain' }, credentials: 'same-origin' });
  const text = await res.text();
  if (!res.ok) {
    if (res.status === 401) onUnauthenticated();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    const parsed = errorBody.safeParse(json);
    if (parsed.success) throw new ApiError(res.status, parsed.data.error.code, parsed.data.error.message);
    throw new ApiError(res.status, 'http', `The server answered ${res.status}`);
  }
  return text;
}
