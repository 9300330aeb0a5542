import { useCallback, useEffect, useRef, useState } from 'react';
import { RealtimeClient, type RealtimeChannel } from '@supabase/realtime-js';
import { append, type InspectorMessage, type MessageKind } from '../lib/messages';
import type { InspectorToken } from './realtime';

export type JoinOptions = {
  topic: string;
  private: boolean;
  /** Receive the broadcasts this page sends. */
  self: boolean;
  presenceKey: string;
  /** `null`: no Postgres changes; else the table (`*` for every table of the schema). */
  changes: { schema: string; table: string; event: '*' | 'INSERT' | 'UPDATE' | 'DELETE'; filter?: string } | null;
};

export type InspectorStatus = 'idle' | 'joining' | 'joined' | 'closed' | 'error';

/** The realtime endpoint of this server, as realtime-js wants it (`ws[s]://host/realtime/v1`). */
export const realtimeEndpoint = () => `${window.location.origin.replace(/^http/, 'ws')}/realtime/v1`;

/**
 * One realtime-js client joined to one channel as the caller whose token the server minted.
 * Messages are collected (at most `MAX_KEPT`) unless paused; the page never holds more than
 * the publishable key and that token.
 */
export function useInspector() {
  const client = useRef<RealtimeClient | null>(null);
  const channel = useRef<RealtimeChannel | null>(null);
  const paused = useRef(false);
  const nextId = useRef(1);
  const [messages, setMessages] = useState<InspectorMessage[]>([]);
  const [status, setStatus] = useState<InspectorStatus>('idle');
  const [error, setError] = useState<string | null>(null);
  const [isPaused, setPaused] = useState(false);

  const push = useCallback((kind: MessageKind, event: string, payload: unknown) => {
    if (paused.current) return;
    const message = { id: nextId.current++, at: Date.now(), kind, event, payload };
    setMessages((list) => append(list, message));
  }, []);

  const leave = useCallback(async () => {
    const c = client.current;
    client.current = null;
    channel.current = null;
    if (c) {
      await c.removeAllChannels();
      c.disconnect();
    }
    setStatus((s) => (s === 'idle' ? s : 'closed'));
  }, []);

  const join = useCallback(
    async (token: InspectorToken, options: JoinOptions) => {
      await leave();
      setError(null);
      setStatus('joining');
      const c = new RealtimeClient(realtimeEndpoint(), { params: { apikey: token.apikey } });
      await c.setAuth(token.access_token);
      const ch = c.channel(options.topic, {
        config: { private: options.private, broadcast: { self: options.self, ack: true }, presence: { key: options.presenceKey } },
      });
      ch.on('broadcast', { event: '*' }, (m) => push('broadcast', String(m.event), m.payload));
      ch.on('presence', { event: 'join' }, (p) => push('presence', 'join', { key: p.key, newPresences: p.newPresences }));
      ch.on('presence', { event: 'leave' }, (p) => push('presence', 'leave', { key: p.key, leftPresences: p.leftPresences }));
      ch.on('presence', { event: 'sync' }, () => push('presence', 'sync', ch.presenceState()));
      if (options.changes) {
        const { schema, table, event, filter: rows } = options.changes;
        const filter = table === '*' ? { event, schema } : { event, schema, table, ...(rows ? { filter: rows } : {}) };
        ch.on('postgres_changes', filter as { event: '*'; schema: string; table?: string; filter?: string }, (p) =>
          push('postgres_changes', `${p.eventType} ${p.schema}.${p.table}`, p),
        );
      }
      ch.on('system', {}, (p) => push('system', String((p as { status?: string }).status ?? 'system'), p));
      client.current = c;
      channel.current = ch;
      ch.subscribe((state, err) => {
        if (client.current !== c) return;
        if (state === 'SUBSCRIBED') setStatus('joined');
        else if (state === 'CLOSED') setStatus('closed');
        else {
          setStatus('error');
          setError(err?.message ?? state);
        }
      });
    },
    [leave, push],
  );

  const send = useCallback(async (event: string, payload: Record<string, unknown>) => {
    const ch = channel.current;
    if (!ch) throw new Error('Join a channel first');
    const answer = await ch.send({ type: 'broadcast', event, payload });
    if (answer !== 'ok') throw new Error(`The broadcast was not acknowledged (${answer})`);
  }, []);

  const track = useCallback(async (payload: Record<string, unknown>) => {
    const ch = channel.current;
    if (!ch) throw new Error('Join a channel first');
    const answer = await ch.track(payload);
    if (answer !== 'ok') throw new Error(`Presence was not tracked (${answer})`);
  }, []);

  const togglePause = useCallback(() => {
    paused.current = !paused.current;
    setPaused(paused.current);
  }, []);

  const clear = useCallback(() => setMessages([]), []);

  useEffect(() => () => void leave(), [leave]);

  return { messages, status, error, paused: isPaused, join, leave, send, track, togglePause, clear };
}
