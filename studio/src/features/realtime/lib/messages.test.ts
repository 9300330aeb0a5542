import { describe, expect, it } from 'vitest';
import { append, filterMessages, parsePayload, type InspectorMessage, type MessageKind } from './messages';

const msg = (id: number, kind: MessageKind, event: string, payload: unknown = {}): InspectorMessage => ({ id, at: id, kind, event, payload });

describe('the inspector message list', () => {
  it('keeps the newest messages up to its bound', () => {
    let list: InspectorMessage[] = [];
    for (let i = 1; i <= 5; i++) list = append(list, msg(i, 'broadcast', 'e'), 3);
    expect(list.map((m) => m.id)).toEqual([3, 4, 5]);
  });

  it('filters by kind and by text in the event or the payload', () => {
    const list = [msg(1, 'broadcast', 'cursor', { x: 1 }), msg(2, 'postgres_changes', 'INSERT', { table: 'cars' }), msg(3, 'presence', 'join')];
    expect(filterMessages(list, { kinds: new Set(['broadcast', 'presence']), text: '' }).map((m) => m.id)).toEqual([1, 3]);
    expect(filterMessages(list, { kinds: new Set(['broadcast', 'postgres_changes', 'presence']), text: 'CARS' }).map((m) => m.id)).toEqual([2]);
    expect(filterMessages(list, { kinds: new Set(['broadcast', 'postgres_changes', 'presence']), text: 'curs' }).map((m) => m.id)).toEqual([1]);
  });

  it('takes a JSON object as a payload and says why anything else is refused', () => {
    expect(parsePayload('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parsePayload('')).toEqual({ ok: true, value: {} });
    expect(parsePayload('[1]')).toEqual({ ok: false, error: 'The payload must be a JSON object' });
    const bad = parsePayload('{a');
    expect(bad.ok).toBe(false);
  });
});
