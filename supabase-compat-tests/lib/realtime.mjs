// Helpers for the /realtime/v1 tests: supabase-js clients speaking serializer 1.0.0 or 2.0.0,
// subscriptions that resolve (or fail) with a deadline, and event inboxes to wait on.
//
// Nothing here sleeps for a fixed time: every wait polls a condition until a deadline, so a
// loaded machine only makes the tests slower, never wrong.
import { createClient } from '@supabase/supabase-js';
import { signJwt } from './jwt.mjs';

/** Both serializers realtime-js speaks (`?vsn=` on the socket URL). */
export const VSNS = ['1.0.0', '2.0.0'];

/** How long anything may take to happen (generous: CI machines are loaded). */
export const DEADLINE = Number(process.env.REALTIME_TEST_DEADLINE_MS || 20000);

const open = new Set();

/**
 * A supabase-js client for realtime tests.
 *
 * - `key`: the API key (default anon; `server.serviceKey` for the service role).
 * - `token`: a user's access token. It goes through supabase-js's `accessToken` option, the one
 *   way realtime-js keeps a custom token: with a token only in `global.headers`, realtime-js
 *   asks supabase-js for the session's token after every join and every heartbeat, gets the
 *   API key back, and sends it as the channel's new `access_token`.
 * - `vsn`: the serializer.
 *
 * `client.useToken(t)` switches the token (what an app does when its session is refreshed).
 * Every client made here is closed by `closeClients()`.
 */
export async function realtimeClient(server, { vsn = '2.0.0', key = server.anonKey, token } = {}) {
  let current = token;
  const logger = process.env.RT_DEBUG
    ? (kind, msg, data) => console.error(`[rt ${vsn}] ${kind}: ${msg}`, data === undefined ? '' : JSON.stringify(data))
    : () => {};
  const supabase = createClient(server.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    ...(token ? { accessToken: async () => current } : {}),
    realtime: { vsn, logger },
  });
  // Resolve the token before the first join, so the join carries it.
  await supabase.realtime.setAuth();
  supabase.useToken = async (next) => {
    current = next;
    await supabase.realtime.setAuth(next);
  };
  open.add(supabase);
  return supabase;
}

/** Leave every channel and close every socket of the clients made since the last call. */
export async function closeClients() {
  const clients = [...open];
  open.clear();
  await Promise.all(clients.map((c) => c.removeAllChannels().catch(() => {})));
}

/** A user's access token signed with the server's secret (`exp` in seconds from now). */
export function userToken(server, sub, { expiresIn = 3600, ...claims } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return signJwt({ sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + expiresIn, ...claims }, server.jwtSecret);
}

/**
 * Resolve with the truthy value of `predicate()` once it has one; reject after `ms` with `what`
 * in the message.
 */
export function waitFor(predicate, ms = DEADLINE, what = 'a condition') {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const check = () => {
      let value;
      try {
        value = predicate();
      } catch (e) {
        reject(e);
        return;
      }
      if (value) {
        resolve(value);
      } else if (Date.now() > deadline) {
        reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      } else {
        setTimeout(check, 20);
      }
    };
    check();
  });
}

/**
 * An event sink: pass it as a callback; `box.items` holds what arrived, in order;
 * `box.find(pred)` waits for the first item matching `pred`; `box.count(pred)` counts them.
 */
export function inbox(name = 'inbox') {
  const items = [];
  const box = (item) => { items.push(item); };
  box.items = items;
  box.find = (pred = () => true, ms = DEADLINE) => waitFor(() => items.find(pred), ms, `${name}: ${pred}`);
  box.count = (pred = () => true) => items.filter(pred).length;
  return box;
}

/**
 * Subscribe `channel` and record every status the subscribe callback reports.
 * Returns `{ statuses, errors }` (live arrays) at once, without waiting.
 */
export function subscribeLogged(channel) {
  const log = { statuses: [], errors: [] };
  channel.subscribe((status, err) => {
    log.statuses.push(status);
    if (err) log.errors.push(err);
  });
  return log;
}

/**
 * Subscribe `channel` and wait for SUBSCRIBED; a CHANNEL_ERROR or CLOSED first, or no answer by
 * the deadline, rejects. Resolves with the status log (which keeps recording).
 */
export async function subscribed(channel, ms = DEADLINE) {
  const log = subscribeLogged(channel);
  const status = await waitFor(
    () => log.statuses.find((s) => s === 'SUBSCRIBED' || s === 'CHANNEL_ERROR' || s === 'CLOSED'),
    ms,
    `${channel.topic} to be SUBSCRIBED (statuses so far: ${log.statuses})`,
  );
  if (status !== 'SUBSCRIBED') {
    throw new Error(`${channel.topic}: ${status} instead of SUBSCRIBED: ${log.errors.map((e) => e.message).join('; ')}`);
  }
  return log;
}

/** A postgres_changes payload's record without the volatile parts tests do not compare. */
export function without(record, ...keys) {
  const copy = { ...record };
  for (const k of keys) delete copy[k];
  return copy;
}

/** Presence metas without `presence_ref` (which the server generates). */
export function metas(list) {
  return (list ?? []).map(({ presence_ref: _ref, ...rest }) => rest);
}

let seq = 0;
/** A topic no other test uses. */
export function topicName(tag) {
  seq += 1;
  return `${tag}-${process.pid}-${seq}`;
}

/** Assert-friendly check of a commit timestamp: ISO 8601 and close to now. */
export function isRecentIso(value, slackMs = 120000) {
  return typeof value === 'string'
    && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)$/.test(value)
    && Math.abs(Date.parse(value) - Date.now()) < slackMs;
}
