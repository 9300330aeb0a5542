import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { usePublication, useUserSearch } from '../api/realtime';
import type { JoinOptions } from '../api/inspector';
import { changesFilter, FILTER_OPS } from '../lib/filter';
import { Button } from '@/components/ui/button';
import { CallerPicker, type Caller } from '@/components/ui/caller-picker';
import { Field, Input, Select } from '@/components/ui/field';

export const joinSchema = z.object({
  topic: z
    .string()
    .trim()
    .min(1, 'Name the channel')
    .max(255, 'At most 255 characters')
    .refine((t) => !t.startsWith('realtime:'), 'Leave out the realtime: prefix: realtime-js adds it'),
  private: z.boolean(),
  self: z.boolean(),
  presenceKey: z.string().trim().max(255),
  changes: z.boolean(),
  /** `schema.table`, or `schema.*`. */
  changesTable: z.string(),
  changesEvent: z.enum(['*', 'INSERT', 'UPDATE', 'DELETE']),
  /** A row filter (`column=op.value`), on one table only. */
  filterColumn: z.string(),
  filterOp: z.enum(FILTER_OPS),
  filterValue: z.string(),
}).superRefine((v, ctx) => {
  // A filter applies to one table; with every table of a schema its fields are hidden and ignored.
  if (!v.changes || v.changesTable.endsWith('.*')) return;
  try {
    changesFilter(v.filterColumn, v.filterOp, v.filterValue);
  } catch (err) {
    ctx.addIssue({ code: 'custom', path: ['filterColumn'], message: err instanceof Error ? err.message : 'Invalid filter' });
  }
});
export type JoinForm = z.infer<typeof joinSchema>;

/** The options realtime-js is given for a filled form. */
export function joinOptionsOf(v: JoinForm): JoinOptions {
  const dot = v.changesTable.indexOf('.');
  const schema = dot > 0 ? v.changesTable.slice(0, dot) : 'public';
  const table = dot > 0 ? v.changesTable.slice(dot + 1) : '*';
  return {
    topic: v.topic.trim(),
    private: v.private,
    self: v.self,
    presenceKey: v.presenceKey.trim(),
    changes: v.changes ? { schema, table, event: v.changesEvent, filter: table === '*' ? undefined : changesFilter(v.filterColumn, v.filterOp, v.filterValue) } : null,
  };
}

/** Which channel to join, as whom, and which Postgres changes to listen to. */
export function JoinFormView({ joined, busy, onJoin, onLeave }: { joined: boolean; busy: boolean; onJoin: (caller: Caller, options: JoinOptions) => void; onLeave: () => void }) {
  const publication = usePublication();
  const [caller, setCaller] = useState<Caller>({ kind: 'anon' });
  const [search, setSearch] = useState('');
  const users = useUserSearch(search);
  const tables = publication.data?.tables ?? [];
  const form = useForm<JoinForm>({
    resolver: zodResolver(joinSchema),
    defaultValues: { topic: 'inspector', private: false, self: true, presenceKey: 'studio', changes: true, changesTable: 'public.*', changesEvent: '*', filterColumn: '', filterOp: 'eq', filterValue: '' },
  });
  const errors = form.formState.errors;
  const listening = form.watch('changes');
  const oneTable = !form.watch('changesTable').endsWith('.*');
  const filterOp = form.watch('filterOp');
  const schemas = [...new Set(['public', ...tables.map((t) => t.schema)])];

  return (
    <form
      aria-label="Join a channel"
      className="flex flex-col gap-2 border-b border-slate-200 bg-white px-3 py-2"
      onSubmit={form.handleSubmit((v) => onJoin(caller, joinOptionsOf(v)))}
      noValidate
    >
      <div className="flex flex-wrap items-end gap-3">
        <div className="w-48">
          <Field label="Channel" error={errors.topic?.message}>
            {(id, describedBy) => <Input id={id} aria-describedby={describedBy} aria-invalid={!!errors.topic} disabled={joined} {...form.register('topic')} />}
          </Field>
        </div>
        <div className="w-32">
          <Field label="Presence key">{(id) => <Input id={id} disabled={joined} {...form.register('presenceKey')} />}</Field>
        </div>
        <label className="flex h-8 items-center gap-1 text-sm text-slate-700">
          <input type="checkbox" disabled={joined} {...form.register('private')} /> Private
        </label>
        <label className="flex h-8 items-center gap-1 text-sm text-slate-700">
          <input type="checkbox" disabled={joined} {...form.register('self')} /> Receive own broadcasts
        </label>
        <CallerPicker id="inspector-caller" label="Join as" value={caller} onChange={setCaller} users={users.data} onSearch={setSearch} disabled={joined} />
      </div>
      <div className="flex flex-wrap items-end gap-3">
        <label className="flex h-8 items-center gap-1 text-sm text-slate-700">
          <input type="checkbox" disabled={joined} {...form.register('changes')} /> Postgres changes
        </label>
        {listening && (
          <>
            <div className="w-56">
              <Field label="Table">
                {(id) => (
                  <Select id={id} disabled={joined} {...form.register('changesTable')}>
                    {schemas.map((s) => (
                      <option key={`${s}.*`} value={`${s}.*`}>
                        {s}.* (every table)
                      </option>
                    ))}
                    {tables.map((t) => (
                      <option key={`${t.schema}.${t.table}`} value={`${t.schema}.${t.table}`}>
                        {t.schema}.{t.table}
                      </option>
                    ))}
                  </Select>
                )}
              </Field>
            </div>
            <div className="w-32">
              <Field label="Event">
                {(id) => (
                  <Select id={id} disabled={joined} {...form.register('changesEvent')}>
                    <option value="*">every event</option>
                    <option value="INSERT">INSERT</option>
                    <option value="UPDATE">UPDATE</option>
                    <option value="DELETE">DELETE</option>
                  </Select>
                )}
              </Field>
            </div>
            {!oneTable ? null : (
              <div className="flex items-end gap-1" role="group" aria-label="Row filter">
                <div className="w-32">
                  <Field label="Filter column" error={errors.filterColumn?.message}>
                    {(id, describedBy) => (
                      <Input id={id} placeholder="e.g. id" disabled={joined} aria-describedby={describedBy} aria-invalid={!!errors.filterColumn} {...form.register('filterColumn')} />
                    )}
                  </Field>
                </div>
                <div className="w-20">
                  <Field label="Operator">
                    {(id) => (
                      <Select id={id} disabled={joined} {...form.register('filterOp')}>
                        {FILTER_OPS.map((op) => (
                          <option key={op} value={op}>
                            {op}
                          </option>
                        ))}
                      </Select>
                    )}
                  </Field>
                </div>
                <div className="w-32">
                  <Field label="Filter value">{(id) => <Input id={id} placeholder={filterOp === 'in' ? 'a, b, c' : 'value'} disabled={joined} {...form.register('filterValue')} />}</Field>
                </div>
              </div>
            )}
          </>
        )}
        <div className="ml-auto flex gap-2">
          {joined ? (
            <Button onClick={onLeave}>Leave</Button>
          ) : (
            <Button type="submit" variant="primary" disabled={busy || (caller.kind === 'user' && !caller.id)}>
              {busy ? 'Joining…' : 'Join'}
            </Button>
          )}
        </div>
      </div>
    </form>
  );
}
