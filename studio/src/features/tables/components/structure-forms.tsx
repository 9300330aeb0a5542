import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import type { Column } from '../api/tables';
import { useRelation, useTables } from '../api/tables';
import type { Ddl, DefaultValue } from '../api/structure';
import { FK_ACTIONS, columnFormSchema, emptyColumn, toColumnDef } from '../lib/ddl-form';
import { ColumnFields, TypeList, type ColumnsForm } from './column-fields';
import { Button } from '@/components/ui/button';
import { Field, Input, Select } from '@/components/ui/field';

type At = { schema: string; table: string };
type FormProps = At & { onReview: (ddl: Ddl) => void; onCancel: () => void };

function Actions({ onCancel }: { onCancel: () => void }) {
  return (
    <div className="flex justify-end gap-2">
      <Button variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" variant="primary">
        Review SQL
      </Button>
    </div>
  );
}

const panel = 'flex flex-col gap-2 rounded-md border border-slate-300 bg-slate-50 p-3';

/** Add a column (with its default, constraints and foreign key). */
export function AddColumnForm({ schema, table, onReview, onCancel }: FormProps) {
  const form = useForm<ColumnsForm>({
    resolver: zodResolver(z.object({ name: z.string(), rls: z.boolean(), columns: z.array(columnFormSchema).length(1) })),
    defaultValues: { name: table, rls: true, columns: [emptyColumn()] },
  });
  const submit = form.handleSubmit((v) => onReview({ op: 'add_column', schema, table, column: toColumnDef(v.columns[0]!, schema) }));
  return (
    <form noValidate onSubmit={submit} className={panel} aria-label="Add column">
      <TypeList />
      <ColumnFields form={form} index={0} schema={schema} allowKey={false} />
      <Actions onCancel={onCancel} />
    </form>
  );
}

const alterSchema = z
  .object({
    name: z.string().trim().min(1, 'Enter a name').max(63, 'At most 63 characters'),
    type: z.string().trim().min(1, 'Enter a type'),
    defaultKind: z.enum(['keep', 'drop', 'value', 'expression']),
    defaultValue: z.string(),
    notNull: z.enum(['keep', 'yes', 'no']),
  })
  .superRefine((v, ctx) => {
    if (v.defaultKind === 'expression' && (v.defaultValue.trim() === '' || v.defaultValue.includes(';')))
      ctx.addIssue({ code: 'custom', path: ['defaultValue'], message: 'Enter an expression without a semicolon' });
  });
type AlterForm = z.infer<typeof alterSchema>;

/** The alter-column change for what the form changed (nothing unchanged is sent). */
export function alterDdl(at: At, column: Column, v: AlterForm): Ddl | null {
  const ddl: Extract<Ddl, { op: 'alter_column' }> = { op: 'alter_column', ...at, column: column.name };
  if (v.name.trim() !== column.name) ddl.rename_to = v.name.trim();
  if (v.type.trim() !== column.type_name) ddl.type = v.type.trim();
  if (v.defaultKind === 'drop') ddl.drop_default = true;
  if (v.defaultKind === 'value' || v.defaultKind === 'expression') ddl.default = { kind: v.defaultKind, value: v.defaultKind === 'expression' ? v.defaultValue.trim() : v.defaultValue } satisfies DefaultValue;
  if (v.notNull !== 'keep') ddl.not_null = v.notNull === 'yes';
  return Object.keys(ddl).length > 4 ? ddl : null;
}

/** Rename a column, change its type, default or NULL rule. */
export function AlterColumnForm({ schema, table, column, onReview, onCancel }: FormProps & { column: Column }) {
  const form = useForm<AlterForm>({
    resolver: zodResolver(alterSchema),
    defaultValues: { name: column.name, type: column.type_name, defaultKind: 'keep', defaultValue: '', notNull: 'keep' },
  });
  const kind = form.watch('defaultKind');
  const e = form.formState.errors;
  const submit = form.handleSubmit((v) => {
    const ddl = alterDdl({ schema, table }, column, v);
    if (ddl) onReview(ddl);
    else form.setError('name', { message: 'Nothing was changed' });
  });
  return (
    <form noValidate onSubmit={submit} className={panel} aria-label={`Edit column ${column.name}`}>
      <TypeList />
      <p className="text-xs text-slate-700">
        Now: <span className="font-mono">{column.type_name}</span>, {column.nullable ? 'NULL allowed' : 'not null'}, default{' '}
        <span className="font-mono">{column.default ?? 'none'}</span>
      </p>
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-5">
        <Field label="Name" error={e.name?.message}>
          {(id, d) => <Input id={id} aria-describedby={d} className="font-mono" {...form.register('name')} />}
        </Field>
        <Field label="Type" error={e.type?.message}>
          {(id, d) => <Input id={id} aria-describedby={d} className="font-mono" list="studio-column-types" {...form.register('type')} />}
        </Field>
        <Field label="Default">
          {(id) => (
            <Select id={id} {...form.register('defaultKind')}>
              <option value="keep">Keep</option>
              <option value="drop">Drop the default</option>
              <option value="value">A value</option>
              <option value="expression">A SQL expression</option>
            </Select>
          )}
        </Field>
        <Field label={kind === 'expression' ? 'Expression (run as written)' : 'Default value'} error={e.defaultValue?.message}>
          {(id, d) => <Input id={id} aria-describedby={d} className="font-mono" disabled={kind === 'keep' || kind === 'drop'} {...form.register('defaultValue')} />}
        </Field>
        <Field label="NULL">
          {(id) => (
            <Select id={id} {...form.register('notNull')}>
              <option value="keep">Keep</option>
              <option value="yes">Not null</option>
              <option value="no">NULL allowed</option>
            </Select>
          )}
        </Field>
      </div>
      <Actions onCancel={onCancel} />
    </form>
  );
}

const columnsPicked = z.array(z.string()).min(1, 'Choose at least one column');

/** A unique constraint or an index on chosen columns. */
export function KeyForm({ schema, table, columns, kind, onReview, onCancel }: FormProps & { columns: Column[]; kind: 'unique' | 'index' }) {
  const schemaOf = z.object({ columns: columnsPicked, name: z.string(), unique: z.boolean(), method: z.enum(['btree', 'hash', 'gin', 'gist', 'brin']) });
  type V = z.infer<typeof schemaOf>;
  const form = useForm<V>({ resolver: zodResolver(schemaOf), defaultValues: { columns: [], name: '', unique: false, method: 'btree' } });
  const submit = form.handleSubmit((v) =>
    onReview(
      kind === 'unique'
        ? { op: 'add_unique', schema, table, columns: v.columns, name: v.name.trim() || undefined }
        : { op: 'create_index', schema, table, columns: v.columns, unique: v.unique, method: v.method, name: v.name.trim() || undefined },
    ),
  );
  return (
    <form noValidate onSubmit={submit} className={panel} aria-label={kind === 'unique' ? 'Add unique constraint' : 'Create index'}>
      <fieldset className="flex flex-wrap gap-x-3 gap-y-1">
        <legend className="mb-1 text-xs font-medium text-slate-700">Columns ({kind === 'unique' ? 'unique together' : 'indexed'}, in table order)</legend>
        {columns.map((c) => (
          <label key={c.name} className="flex items-center gap-1 font-mono text-xs">
            <input type="checkbox" value={c.name} {...form.register('columns')} /> {c.name}
          </label>
        ))}
      </fieldset>
      {form.formState.errors.columns?.message && <p className="text-xs text-red-700">{form.formState.errors.columns.message}</p>}
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4">
        <Field label="Name (optional)">{(id) => <Input id={id} className="font-mono" {...form.register('name')} />}</Field>
        {kind === 'index' && (
          <>
            <Field label="Method">
              {(id) => (
                <Select id={id} {...form.register('method')}>
                  {['btree', 'hash', 'gin', 'gist', 'brin'].map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </Select>
              )}
            </Field>
            <label className="flex items-end gap-1.5 pb-1.5 text-xs">
              <input type="checkbox" {...form.register('unique')} /> Unique index
            </label>
          </>
        )}
      </div>
      <Actions onCancel={onCancel} />
    </form>
  );
}

/** A check constraint: a SQL expression run as written. */
export function CheckForm({ schema, table, onReview, onCancel }: FormProps) {
  const s = z.object({ name: z.string(), expression: z.string().trim().min(1, 'Enter an expression').refine((x) => !x.includes(';'), 'No semicolon in an expression') });
  const form = useForm<z.infer<typeof s>>({ resolver: zodResolver(s), defaultValues: { name: '', expression: '' } });
  const submit = form.handleSubmit((v) => onReview({ op: 'add_check', schema, table, expression: v.expression, name: v.name.trim() || undefined }));
  return (
    <form noValidate onSubmit={submit} className={panel} aria-label="Add check constraint">
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-[1fr_2fr]">
        <Field label="Name (optional)">{(id) => <Input id={id} className="font-mono" {...form.register('name')} />}</Field>
        <Field label="Check expression (run as written)" error={form.formState.errors.expression?.message}>
          {(id, d) => <Input id={id} aria-describedby={d} className="font-mono" placeholder="price >= 0" {...form.register('expression')} />}
        </Field>
      </div>
      <Actions onCancel={onCancel} />
    </form>
  );
}

/** Rename the table (it stays in its schema). */
export function RenameTableForm({ schema, table, onReview, onCancel }: FormProps) {
  const s = z.object({
    name: z
      .string()
      .trim()
      .min(1, 'Enter a name')
      .max(63, 'At most 63 characters')
      .refine((n) => n !== table, 'Enter a name other than the current one'),
  });
  const form = useForm<z.infer<typeof s>>({ resolver: zodResolver(s), defaultValues: { name: table } });
  const submit = form.handleSubmit((v) => onReview({ op: 'rename_table', schema, table, rename_to: v.name }));
  return (
    <form noValidate onSubmit={submit} className={panel} aria-label="Rename table">
      <Field label="New table name" error={form.formState.errors.name?.message}>
        {(id, d) => <Input id={id} aria-describedby={d} aria-invalid={!!form.formState.errors.name} className="font-mono" {...form.register('name')} />}
      </Field>
      <Actions onCancel={onCancel} />
    </form>
  );
}

/** A foreign key from one column to a column of a table of the same schema. */
export function ForeignKeyForm({ schema, table, columns, onReview, onCancel }: FormProps & { columns: Column[] }) {
  const s = z.object({
    column: z.string().min(1, 'Choose a column'),
    refTable: z.string().min(1, 'Choose a table'),
    refColumn: z.string().min(1, 'Choose a column'),
    onDelete: z.enum(['no_action', 'restrict', 'cascade', 'set_null', 'set_default']),
    name: z.string(),
  });
  const form = useForm<z.infer<typeof s>>({ resolver: zodResolver(s), defaultValues: { column: '', refTable: '', refColumn: '', onDelete: 'no_action', name: '' } });
  const tables = useTables(schema);
  const refTable = form.watch('refTable');
  const referenced = useRelation(schema, refTable, refTable !== '');
  const e = form.formState.errors;
  const submit = form.handleSubmit((v) =>
    onReview({
      op: 'add_foreign_key',
      schema,
      table,
      columns: [v.column],
      name: v.name.trim() || undefined,
      references: { schema, table: v.refTable, columns: [v.refColumn], on_delete: v.onDelete },
    }),
  );
  return (
    <form noValidate onSubmit={submit} className={panel} aria-label="Add foreign key">
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-5">
        <Field label="Column" error={e.column?.message}>
          {(id, d) => (
            <Select id={id} aria-describedby={d} {...form.register('column')}>
              <option value="">Choose…</option>
              {columns.map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Referenced table" error={e.refTable?.message}>
          {(id, d) => (
            <Select id={id} aria-describedby={d} {...form.register('refTable')}>
              <option value="">Choose…</option>
              {(tables.data ?? [])
                .filter((t) => t.kind === 'r' || t.kind === 'p')
                .map((t) => (
                  <option key={t.name} value={t.name}>
                    {t.name}
                  </option>
                ))}
            </Select>
          )}
        </Field>
        <Field label="Referenced column" error={e.refColumn?.message}>
          {(id, d) => (
            <Select id={id} aria-describedby={d} {...form.register('refColumn')}>
              <option value="">Choose…</option>
              {(referenced.data?.columns ?? []).map((c) => (
                <option key={c.name} value={c.name}>
                  {c.name}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="On delete">
          {(id) => (
            <Select id={id} {...form.register('onDelete')}>
              {FK_ACTIONS.map((a) => (
                <option key={a.value} value={a.value}>
                  {a.label}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Name (optional)">{(id) => <Input id={id} className="font-mono" {...form.register('name')} />}</Field>
      </div>
      <Actions onCancel={onCancel} />
    </form>
  );
}
