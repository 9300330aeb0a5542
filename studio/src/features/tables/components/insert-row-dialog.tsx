import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import type { Relation } from '../api/tables';
import { editorKind, parseText } from '../lib/cell-value';
import { Button } from '@/components/ui/button';
import { Field, Input, Select } from '@/components/ui/field';
import { ApiError } from '@/lib/api';

/** The form's schema: each writable column's text checked by its editor's rules; empty means "default". */
export function insertSchema(relation: Relation): z.ZodType<Record<string, string>, Record<string, string>> {
  const shape: Record<string, z.ZodType<string, string>> = {};
  for (const c of relation.columns.filter((c) => !c.read_only)) {
    const kind = editorKind(c);
    shape[c.name] = z.string().superRefine((text, ctx) => {
      if (text === '') return;
      const parsed = parseText(text, kind);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
    });
  }
  return z.record(z.string(), z.string()).superRefine((values, ctx) => {
    for (const [name, check] of Object.entries(shape)) {
      const result = check.safeParse(values[name] ?? '');
      if (!result.success) ctx.addIssue({ code: 'custom', path: [name], message: result.error.issues[0]?.message ?? 'Invalid value' });
    }
  });
}

/** The values to send: only the filled fields, each parsed for its type. */
export function insertValues(relation: Relation, form: Record<string, string>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const c of relation.columns.filter((c) => !c.read_only)) {
    const text = form[c.name] ?? '';
    if (text === '') continue;
    const parsed = parseText(text, editorKind(c));
    if (parsed.ok) values[c.name] = parsed.value;
  }
  return values;
}

/**
 * The insert form: a field per writable column, empty for its default. `initial` starts the
 * fields with a row's values (a duplicated row, see lib/duplicate.ts).
 */
export function InsertRowForm({ relation, initial, onSubmit, onCancel, pending, error }: { relation: Relation; initial?: Record<string, string>; onSubmit: (values: Record<string, unknown>) => void; onCancel: () => void; pending: boolean; error: unknown }) {
  const writable = relation.columns.filter((c) => !c.read_only);
  const form = useForm<Record<string, string>>({
    resolver: zodResolver(insertSchema(relation)),
    defaultValues: Object.fromEntries(writable.map((c) => [c.name, initial?.[c.name] ?? ''])),
  });
  const errors = form.formState.errors;
  return (
    <form noValidate onSubmit={form.handleSubmit((v) => onSubmit(insertValues(relation, v)))} className="flex flex-col gap-3">
      <p className="text-sm text-slate-600">
        {initial ? 'A copy of the row: keys made by the database (identity, serial, random uuid) are left to their defaults. ' : ''}Leave a field empty to use its default (or NULL).
      </p>
      {writable.map((c) => {
        const kind = editorKind(c);
        const label = `${c.name} (${c.type_name}${c.nullable ? '' : ', required'})`;
        return (
          <Field key={c.name} label={label} error={errors[c.name]?.message}>
            {(id, describedBy) =>
              kind === 'bool' || kind === 'enum' ? (
                <Select id={id} aria-describedby={describedBy} {...form.register(c.name)}>
                  <option value="">{c.default ? `default: ${c.default}` : 'NULL'}</option>
                  {(kind === 'bool' ? ['true', 'false'] : (c.enum_values ?? [])).map((v) => (
                    <option key={v} value={v}>
                      {v}
                    </option>
                  ))}
                </Select>
              ) : (
                <Input
                  id={id}
                  type={kind === 'date' ? 'date' : 'text'}
                  aria-describedby={describedBy}
                  aria-invalid={!!errors[c.name]}
                  placeholder={c.default ? `default: ${c.default}` : c.identity ? 'identity: the next value' : ''}
                  className={kind === 'json' || kind === 'array' || kind === 'uuid' || kind === 'bytea' ? 'font-mono' : ''}
                  {...form.register(c.name)}
                />
              )
            }
          </Field>
        );
      })}
      {error ? (
        <p role="alert" className="text-sm text-red-700">
          {error instanceof ApiError ? error.message : 'The row could not be inserted.'}
        </p>
      ) : null}
      <div className="flex justify-end gap-2">
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" disabled={pending}>
          {initial ? 'Insert copy' : 'Insert row'}
        </Button>
      </div>
    </form>
  );
}
