/** What the inspector shows of each message a channel receives. */
export type MessageKind = 'broadcast' | 'presence' | 'postgres_changes' | 'system';

export type InspectorMessage = {
  id: number;
  /** Milliseconds since the epoch, when the page received it. */
  at: number;
  kind: MessageKind;
  event: string;
  payload: unknown;
};

export const KINDS: MessageKind[] = ['broadcast', 'presence', 'postgres_changes', 'system'];

/** The most messages kept; older ones leave first. */
export const MAX_KEPT = 5000;

/** `list` with `message` added, the oldest dropped beyond `max`. */
export function append(list: InspectorMessage[], message: InspectorMessage, max = MAX_KEPT): InspectorMessage[] {
  const next = list.length >= max ? list.slice(list.length - max + 1) : list.slice();
  next.push(message);
  return next;
}

export type MessageFilter = { kinds: ReadonlySet<MessageKind>; text: string };

/** The messages of the chosen kinds whose event or payload contains `text` (case-insensitive). */
export function filterMessages(list: InspectorMessage[], filter: MessageFilter): InspectorMessage[] {
  const text = filter.text.trim().toLowerCase();
  return list.filter((m) => {
    if (!filter.kinds.has(m.kind)) return false;
    if (!text) return true;
    return m.event.toLowerCase().includes(text) || summary(m.payload).toLowerCase().includes(text);
  });
}

/** One line of JSON for the list (the full payload shows when a row is opened). */
export function summary(payload: unknown): string {
  try {
    return JSON.stringify(payload) ?? String(payload);
  } catch {
    return String(payload);
  }
}

/** A JSON object typed by the operator, or the reason it is not one. */
export function parsePayload(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (!text.trim()) return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'The payload must be a JSON object' };
    return { ok: true, value: value as Record<string, unknown> };
  } catch (e) {
    return { ok: false, error: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}
