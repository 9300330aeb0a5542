import { useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { filterMessages, KINDS, summary, type InspectorMessage, type MessageKind } from '../lib/messages';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/field';

const ROW = 28;

const KIND_STYLE: Record<MessageKind, string> = {
  broadcast: 'bg-sky-100 text-sky-900',
  presence: 'bg-violet-100 text-violet-900',
  postgres_changes: 'bg-emerald-100 text-emerald-900',
  system: 'bg-slate-200 text-slate-800',
};

const time = (ms: number) => new Date(ms).toISOString().slice(11, 23);

/** The messages as they arrive: a virtualised list with pause, clear and filters; a row opens its payload. */
export function MessageLog({ messages, paused, onPause, onClear }: { messages: InspectorMessage[]; paused: boolean; onPause: () => void; onClear: () => void }) {
  const [kinds, setKinds] = useState<Set<MessageKind>>(() => new Set(KINDS));
  const [text, setText] = useState('');
  const [open, setOpen] = useState<number | null>(null);
  const shown = useMemo(() => filterMessages(messages, { kinds, text }), [messages, kinds, text]);
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: shown.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 12 });
  const opened = shown.find((m) => m.id === open) ?? null;
  const toggle = (k: MessageKind) =>
    setKinds((prev) => {
      const next = new Set(prev);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });

  return (
    <section aria-labelledby="messages-title" className="flex min-h-0 flex-1 flex-col">
      <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2">
        <h2 id="messages-title" className="text-sm font-semibold">
          Messages <span className="font-normal text-slate-600">({shown.length === messages.length ? messages.length : `${shown.length} of ${messages.length}`})</span>
        </h2>
        <fieldset className="flex flex-wrap items-center gap-2">
          <legend className="sr-only">Message kinds shown</legend>
          {KINDS.map((k) => (
            <label key={k} className="flex items-center gap-1 text-xs text-slate-700">
              <input type="checkbox" checked={kinds.has(k)} onChange={() => toggle(k)} />
              {k}
            </label>
          ))}
        </fieldset>
        <Input type="search" aria-label="Filter messages" placeholder="Filter by event or payload" className="w-56" value={text} onChange={(e) => setText(e.target.value)} />
        <div className="ml-auto flex gap-2">
          <Button onClick={onPause} aria-pressed={paused}>
            {paused ? 'Resume' : 'Pause'}
          </Button>
          <Button onClick={onClear} disabled={!messages.length}>
            Clear
          </Button>
        </div>
      </div>
      {paused && (
        <p role="status" className="bg-amber-50 px-3 py-1 text-xs text-amber-900">
          Paused: new messages are not collected.
        </p>
      )}
      <div className="grid min-h-0 flex-1 grid-rows-[1fr_auto]">
        <div ref={scroller} className="min-h-0 overflow-auto bg-white" tabIndex={0} role="region" aria-label="Received messages (scrollable)">
          {!shown.length ? (
            <p className="p-3 text-sm text-slate-600">{messages.length ? 'No message matches the filters.' : 'No message yet. Join a channel, then send a broadcast or change a row.'}</p>
          ) : (
            <ul aria-label="Received messages" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((item) => {
                const m = shown[item.index];
                if (!m) return null;
                return (
                  <li key={m.id} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW, transform: `translateY(${item.start}px)` }} data-testid="inspector-message" data-kind={m.kind}>
                    <button
                      type="button"
                      onClick={() => setOpen(open === m.id ? null : m.id)}
                      aria-expanded={open === m.id}
                      className={`flex h-full w-full items-center gap-2 border-b border-slate-100 px-3 text-left font-mono text-xs hover:bg-emerald-50/60 ${open === m.id ? 'bg-emerald-50' : ''}`}
                    >
                      <span className="shrink-0 text-slate-600">{time(m.at)}</span>
                      <span className={`shrink-0 rounded px-1.5 ${KIND_STYLE[m.kind]}`}>{m.kind}</span>
                      <span className="shrink-0 font-semibold text-slate-900">{m.event}</span>
                      <span className="truncate text-slate-700">{summary(m.payload)}</span>
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
        </div>
        {opened && (
          <div className="max-h-64 overflow-auto border-t border-slate-200 bg-slate-50 p-3">
            <p className="mb-1 text-xs font-semibold text-slate-700">
              {opened.kind} · {opened.event} · {time(opened.at)}
            </p>
            <pre className="font-mono text-xs whitespace-pre-wrap text-slate-900" data-testid="inspector-payload">
              {JSON.stringify(opened.payload, null, 2)}
            </pre>
          </div>
        )}
      </div>
    </section>
  );
}
