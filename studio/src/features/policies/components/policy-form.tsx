import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { COMMANDS, type Policy, type PolicyDraft, type PolicyTable } from '../api/policies';
import { expressionsOf, fillTemplate, ownerColumns, TEMPLATES } from '../lib/templates';
import { Button } from '@/components/ui/button';
import { Field, Input, Select, inputClass } from '@/components/ui/field';

export const policyFormSchema = z
  .object({
    name: z.string().trim().min(1, 'A policy needs a name').max(63, 'At most 63 characters'),
    command: z.enum(COMMANDS),
    roles: z.string(),
    permissive: z.enum(['permissive', 'restrictive']),
    using: z.string(),
    with_check: z.string(),
  })
  .superRefine((v, ctx) => {
    const takes = expressionsOf(v.command);
    if (takes.using && !takes.withCheck && !v.using.trim()) ctx.addIssue({ code: 'custom', path: ['using'], message: `A ${v.command} policy needs a using expression` });
    if (!takes.using && !v.with_check.trim()) ctx.addIssue({ code: 'custom', path: ['with_check'], message: 'An insert policy needs a with check expression' });
    if (takes.using && takes.withCheck && !v.using.trim() && !v.with_check.trim()) ctx.addIssue({ code: 'custom', path: ['using'], message: 'Give a using or a with check expression' });
  });
export type PolicyForm = z.infer<typeof policyFormSchema>;

/** The draft the server builds SQL from: only the expressions the command takes. */
export function draftOf(schema: string, table: string, v: PolicyForm): PolicyDraft {
  const takes = expressionsOf(v.command);
  return {
    schema,
    table,
    name: v.name.trim(),
    command: v.command,
    roles: v.roles
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean),
    permissive: v.permissive === 'permissive',
    using: takes.using && v.using.trim() ? v.using.trim() : null,
    with_check: takes.withCheck && v.with_check.trim() ? v.with_check.trim() : null,
  };
}

/** Create a policy from a template, or edit one; submitting shows its SQL first. */
export function PolicyFormView({ schema, table, policy, onReview, onCancel }: { schema: string; table: PolicyTable; policy?: Policy; onReview: (d: PolicyDraft) => void; onCancel: () => void }) {
  const owners = ownerColumns(table.columns);
  const [owner, setOwner] = useState(owners[0] ?? '');
  const [template, setTemplate] = useState('');
  const form = useForm<PolicyForm>({
    resolver: zodResolver(policyFormSchema),
    defaultValues: policy
      ? { name: policy.name, command: policy.command, roles: policy.roles.join(', '), permissive: policy.permissive ? 'permissive' : 'restrictive', using: policy.using ?? '', with_check: policy.with_check ?? '' }
      : { name: '', command: 'select', roles: 'authenticated', permissive: 'permissive', using: '', with_check: '' },
  });
  const errors = form.formState.errors;
  const command = form.watch('command');
  const takes = expressionsOf(command);
  const applyTemplate = (id: string, owner: string) => {
    if (!id) return;
    const t = fillTemplate(id, table.name, owner);
    form.reset({ ...form.getValues(), ...t, roles: t.roles.join(', '), permissive: 'permissive' });
  };
  return (
    <form noValidate className="flex flex-col gap-3" onSubmit={form.handleSubmit((v) => onReview(draftOf(schema, table.name, v)))}>
      {!policy && (
        <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
          <Field label="Template">
            {(id) => (
              <Select
                id={id}
                value={template}
                onChange={(e) => {
                  setTemplate(e.target.value);
                  applyTemplate(e.target.value, owner);
                }}
              >
                <option value="">Start from a template…</option>
                {TEMPLATES.map((t) => (
                  <option key={t.id} value={t.id} disabled={t.needsOwner && owners.length === 0}>
                    {t.label}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Owner column (uuid = auth.uid())">
            {(id) => (
              <Select
                id={id}
                disabled={owners.length === 0}
                value={owner}
                onChange={(e) => {
                  setOwner(e.target.value);
                  applyTemplate(template, e.target.value);
                }}
              >
                {owners.length === 0 && <option value="">no uuid column</option>}
                {owners.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </Select>
            )}
          </Field>
        </div>
      )}
      <Field label="Name" error={errors.name?.message}>
        {(id, d) => <Input id={id} aria-describedby={d} {...form.register('name')} />}
      </Field>
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-3">
        <Field label="Command">
          {(id) => (
            <Select id={id} {...form.register('command')}>
              {COMMANDS.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Roles (comma-separated)">{(id) => <Input id={id} {...form.register('roles')} placeholder="public" />}</Field>
        <Field label="Kind">
          {(id) => (
            <Select id={id} {...form.register('permissive')}>
              <option value="permissive">permissive (any one lets a row in)</option>
              <option value="restrictive">restrictive (each must pass)</option>
            </Select>
          )}
        </Field>
      </div>
      {takes.using && (
        <Field label="Using (rows the role may see or change)" error={errors.using?.message}>
          {(id, d) => <textarea id={id} aria-describedby={d} rows={2} className={`${inputClass} h-auto w-full py-1 font-mono`} {...form.register('using')} />}
        </Field>
      )}
      {takes.withCheck && (
        <Field label="With check (rows the role may write)" error={errors.with_check?.message}>
          {(id, d) => <textarea id={id} aria-describedby={d} rows={2} className={`${inputClass} h-auto w-full py-1 font-mono`} {...form.register('with_check')} />}
        </Field>
      )}
      <div className="flex justify-end gap-2">
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="submit" variant="primary">
          Review SQL
        </Button>
      </div>
    </form>
  );
}
