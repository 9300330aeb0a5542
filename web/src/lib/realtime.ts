import { useEffect, useRef, useState } from 'react';
import type { RealtimeChannel, RealtimePostgresChangesPayload } from '@supabase/supabase-js';
import { supabaseClient } from './supabase';

/*
 * The plumbing of the live queries: one channel of postgres_changes on some tables of `public`,
 * through supabase-js. Each live query has its own hook in its feature (`useLiveMyBookings`,
 * `useLiveAdminBookings`, …) that decides what a change does to its TanStack Query cache.
 * Row-level security on the server decides which rows a subscriber receives; the access token
 * of the session goes with the join, so a hook subscribes only once the session is known.
 */

export type Row = Record<string, unknown>;

/** One row change, as the live queries use it. */
export interface TableChange {
  table: string;
  eventType: 'INSERT' | 'UPDATE' | 'DELETE';
  /** The new row (INSERT, UPDATE); `{}` for a DELETE. */
  new: Row;
  /** The old row of an UPDATE or DELETE: its primary key only (replica identity default, V50). */
  old: Row;
  /** Set by Realtime when it could not send the row (too large): the cache must be refetched. */
  errors?: string[] | null;
}

/** A table to follow, optionally filtered (`user_id=eq.<uuid>`). */
export interface TableBinding {
  table: string;
  filter?: string;
}

/**
 * 'off': not subscribed (disabled or unmounted); 'connecting': joining; 'live': joined, changes
 * arrive; 'error': refused or timed out (realtime-js joins again after the reconnect delays).
 */
export type LiveStatus = 'off' | 'connecting' | 'live' | 'error';

/** Changes arriving within this window reach `onChanges` together (one cache update, one refetch). */
export const CHANGE_BATCH_MS = 100;

export function toTableChange(payload: RealtimePostgresChangesPayload<Row>): TableChange {
  return { table: payload.table, eventType: payload.eventType, new: payload.new as Row, old: payload.old as Row, errors: payload.errors };
}

/** A listed row of one of the followed tables: which table it comes from, and its id. */
export interface ListedRow<K extends string> {
  kind: K;
  id: string;
}

/**
 * What row changes do to a cached list of rows of several tables: a deleted row leaves; an
 * update of a listed row goes through `merge`, which returns the row to list, or `undefined`
 * when only a refetch can tell; anything else (a new row, an update of a row not listed yet, a
 * change Realtime could not send whole, no list yet) asks for a refetch (`refetch: true`).
 */
export function applyRowChanges<K extends string, T extends ListedRow<K>>(
  list: T[] | undefined,
  changes: TableChange[],
  kindOfTable: ReadonlyMap<string, K>,
  merge: (previous: T, change: TableChange, kind: K) => T | undefined,
): { list: T[] | undefined; refetch: boolean } {
  let refetch = false;
  let next = list;
  for (const change of changes) {
    const kind = kindOfTable.get(change.table);
    if (!kind) continue;
    if (change.errors?.length || !next) {
      refetch = true;
      continue;
    }
    const id = (change.eventType === 'DELETE' ? change.old.id : change.new.id) as string | undefined;
    const index = next.findIndex((row) => row.kind === kind && row.id === id);
    if (change.eventType === 'DELETE') {
      if (index >= 0) next = next.filter((_, i) => i !== index);
    } else if (change.eventType === 'UPDATE' && index >= 0) {
      const merged = merge(next[index] as T, change, kind);
      if (!merged) {
        refetch = true;
        continue;
      }
      next = next.map((row, i) => (i === index ? merged : row));
    } else {
      refetch = true;
    }
  }
  return { list: next, refetch };
}

let channelCount = 0;

export interface TableChangesOptions {
  /** Channel name prefix (a unique suffix is added: one channel per mounted hook). */
  name: string;
  tables: readonly TableBinding[];
  /** Subscribe only when true (e.g. once the user is known). */
  enabled: boolean;
  onChanges: (changes: TableChange[]) => void;
  /**
   * Called on every join, the first and those after a reconnection: changes made while the
   * channel was not joined were not sent, so the live query is fetched again.
   */
  onSubscribed?: () => void;
}

/**
 * Subscribes to the changes of `tables` while mounted and enabled; removes the channel on
 * unmount. Returns where the subscription stands.
 */
export function useTableChanges({ name, tables, enabled, onChanges, onSubscribed }: TableChangesOptions): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>('off');
  const handlers = useRef({ onChanges, onSubscribed });
  useEffect(() => {
    handlers.current = { onChanges, onSubscribed };
  });
  const bindingsKey = JSON.stringify(tables);

  useEffect(() => {
    if (!enabled) return;
    const bindings = JSON.parse(bindingsKey) as TableBinding[];
    let active = true; // false once cleaned up: the channel's last callbacks are ignored
    let pending: TableChange[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let remove: (() => void) | undefined;
    const flush = () => {
      timer = undefined;
      const changes = pending;
      pending = [];
      if (active && changes.length) handlers.current.onChanges(changes);
    };
    setStatus('connecting');
    // realtime comes with the full supabase-js client, loaded on first use
    void supabaseClient().then((client) => {
      if (!active) return;
      // a unique topic: a channel being left (unmounted a moment ago, e.g. by StrictMode) keeps its
      // name until the server answers, and supabase-js would hand it back instead of a new one.
      const channel: RealtimeChannel = client.channel(`${name}:${++channelCount}`, { config: { postgres_changes_options: { wait: true } } });
      remove = () => void client.removeChannel(channel);
      for (const { table, filter } of bindings) {
        channel.on<Row>('postgres_changes', { event: '*', schema: 'public', table, ...(filter ? { filter } : {}) }, (payload) => {
          pending.push(toTableChange(payload));
          timer ??= setTimeout(flush, CHANGE_BATCH_MS);
        });
      }
      channel.subscribe((state, err) => {
        if (!active) return;
        if (state === 'SUBSCRIBED') {
          setStatus('live');
          handlers.current.onSubscribed?.();
        } else if (state === 'CHANNEL_ERROR' || state === 'TIMED_OUT') {
          setStatus('error');
          console.warn(`realtime ${channel.topic}: ${state}`, err ?? '');
        } else if (state === 'CLOSED') {
          setStatus('off');
        }
      });
    });
    return () => {
      active = false;
      if (timer !== undefined) clearTimeout(timer);
      remove?.();
    };
  }, [name, bindingsKey, enabled]);

  return enabled ? status : 'off';
}
