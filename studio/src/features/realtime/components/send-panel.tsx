import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { parsePayload } from '../lib/messages';
import { Button } from '@/components/ui/button';
import { Field, Input, inputClass } from '@/components/ui/field';

const jsonObject = z.string().superRefine((text, ctx) => {
  const parsed = parsePayload(text);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
});

export const broadcastSchema = z.object({ event: z.string().trim().min(1, 'Name the event').max(255), payload: jsonObject });
type BroadcastForm = z.infer<typeof broadcastSchema>;
const trackSchema = z.object({ payload: jsonObject });
type TrackForm = z.infer<typeof trackSchema>;

/** Send a broadcast on the joined channel, and track this page's presence. */
export function SendPanel({ joined, onSend, onTrack }: { joined: boolean; onSend: (event: string, payload: Record<string, unknown>) => Promise<void>; onTrack: (payload: Record<string, unknown>) => Promise<void> }) {
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const send = useForm<BroadcastForm>({ resolver: zodResolver(broadcastSchema), defaultValues: { event: 'test', payload: '{"message": "hello"}' } });
  const track = useForm<TrackForm>({ resolver: zodResolver(trackSchema), defaultValues: { payload: '{"status": "online"}' } });
  const run = async (what: string, action: () => Promise<void>) => {
    try {
      await action();
      setNote({ ok: true, text: `${what}.` });
    } catch (e) {
      setNote({ ok: false, text: e instanceof Error ? e.message : String(e) });
    }
  };
  const obj = (text: string) => {
    const parsed = parsePayload(text);
    return parsed.ok ? parsed.value : {};
  };
  return (
    <section aria-labelledby="send-title" className="flex flex-col gap-3 p-3">
      <h2 id="send-title" className="text-sm font-semibold">
        Send
      </h2>
      <form aria-label="Send a broadcast" className="flex flex-col gap-2" noValidate onSubmit={send.handleSubmit((v) => run(`Broadcast ${v.event} sent`, () => onSend(v.event.trim(), obj(v.payload))))}>
        <Field label="Event" error={send.formState.errors.event?.message}>
          {(id, d) => <Input id={id} aria-describedby={d} {...send.register('event')} />}
        </Field>
        <Field label="Payload (JSON object)" error={send.formState.errors.payload?.message}>
          {(id, d) => <textarea id={id} aria-describedby={d} rows={3} className={`${inputClass} h-auto w-full py-1 font-mono`} {...send.register('payload')} />}
        </Field>
        <Button type="submit" variant="primary" disabled={!joined || send.formState.isSubmitting}>
          Send broadcast
        </Button>
      </form>
      <form aria-label="Track presence" className="flex flex-col gap-2" noValidate onSubmit={track.handleSubmit((v) => run('Presence tracked', () => onTrack(obj(v.payload))))}>
        <Field label="Presence state (JSON object)" error={track.formState.errors.payload?.message}>
          {(id, d) => <textarea id={id} aria-describedby={d} rows={2} className={`${inputClass} h-auto w-full py-1 font-mono`} {...track.register('payload')} />}
        </Field>
        <Button type="submit" disabled={!joined}>
          Track presence
        </Button>
      </form>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={`text-xs ${note.ok ? 'text-emerald-800' : 'text-red-700'}`}>
          {note.text}
        </p>
      )}
    </section>
  );
}
