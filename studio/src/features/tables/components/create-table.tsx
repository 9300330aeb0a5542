import { useState } from 'react';
import { useFieldArray, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import type { Ddl } from '../api/structure';
import { columnFormSchema, emptyColumn, starterColumns, toColumnDef } from '../lib/ddl-form';
import { ColumnFields, TypeList, type ColumnsForm } from './column-fields';
import { DdlReview } from './ddl-review';
import { Button } from '@/components/ui/button';
import { Field, Input } from '@/components/ui/field';
import { paths } from '@/lib/paths';

export const createTableSchema = z.object({
  name: z.string().trim().min(1, 'Enter a table name').max(63, 'At most 63 characters'),
  rls: z.boolean(),
  columns: z.array(columnFormSchema).min(1, 'A table needs a column'),
});

/** The new-table form: a name, row-level security (on, as Supabase does), columns; the SQL is shown before it runs. */
export function CreateTable({ schema }: { schema: string }) {
  const navigate = useNavigate();
  const form = useForm<ColumnsForm>({ resolver: zodResolver(createTableSchema), defaultValues: { name: '', rls: true, columns: starterColumns() } });
  const columns = useFieldArray({ control: form.control, name: 'columns' });
  const [ddl, setDdl] = useState<Ddl | null>(null);
  const submit = form.handleSubmit((v) =>
    setDdl({ op: 'create_table', schema, table: v.name.trim(), rls: v.rls, columns: v.columns.map((c) => toColumnDef(c, schema)) }),
  );
  return (
    <section aria-label="New table" className="h-full overflow-auto bg-white p-4">
      <h1 className="mb-3 text-base font-semibold">
        New table in <span className="font-mono">{schema}</span>
      </h1>
      <form noValidate onSubmit={submit} className="flex max-w-5xl flex-col gap-3">
        <TypeList />
        <div className="flex flex-wrap items-end gap-4">
          <div className="w-72">
            <Field label="Table name" error={form.formState.errors.name?.message}>
              {(id, d) => <Input id={id} aria-describedby={d} className="font-mono" autoFocus {...form.register('name')} />}
            </Field>
          </div>
          <label className="flex items-center gap-1.5 pb-1.5 text-sm">
            <input type="checkbox" {...form.register('rls')} /> Enable row-level security (recommended: no policy means no access through the API)
          </label>
        </div>
        {columns.fields.map((f, i) => (
          <ColumnFields key={f.id} form={form} index={i} schema={schema} onRemove={columns.fields.length > 1 ? () => columns.remove(i) : undefined} />
        ))}
        {form.formState.errors.columns?.message && <p className="text-xs text-red-700">{form.formState.errors.columns.message}</p>}
        <div className="flex flex-wrap gap-2">
          <Button onClick={() => columns.append(emptyColumn())}>Add column</Button>
          <span className="flex-1" />
          <Button variant="ghost" onClick={() => navigate(paths.tables(schema))}>
            Cancel
          </Button>
          <Button type="submit" variant="primary">
            Review SQL
          </Button>
        </div>
      </form>
      <DdlReview ddl={ddl} title="Create table: review the SQL" onClose={() => setDdl(null)} onDone={() => ddl && navigate(paths.tables(schema, ddl.table))} />
    </section>
  );
}
