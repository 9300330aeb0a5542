import type { UseFormReturn } from 'react-hook-form';
import { useRelation, useTables } from '../api/tables';
import { COMMON_TYPES, FK_ACTIONS, type ColumnForm } from '../lib/ddl-form';
import { Field, Input, Select } from '@/components/ui/field';

export type ColumnsForm = { name: string; rls: boolean; columns: ColumnForm[] };

const check = 'flex items-center gap-1.5 text-xs text-slate-800';
const TYPE_LIST = 'studio-column-types';

/** The types offered in every type field: rendered once per form. */
export function TypeList() {
  return (
    <datalist id={TYPE_LIST}>
      {COMMON_TYPES.map((t) => (
        <option key={t} value={t} />
      ))}
    </datalist>
  );
}

/**
 * One column's fields (name, type, default and whether it is a value or an expression, NULL,
 * unique, primary key, identity, foreign key to a table of the same schema), for the
 * create-table form (one per column) and the add-column form (one).
 */
export function ColumnFields({ form, index, schema, onRemove, allowKey = true }: { form: UseFormReturn<ColumnsForm>; index: number; schema: string; onRemove?: () => void; allowKey?: boolean }) {
  const n = index + 1;
  const at = `columns.${index}` as const;
  const errors = form.formState.errors.columns?.[index];
  const fkTable = form.watch(`${at}.fkTable`);
  const defaultKind = form.watch(`${at}.defaultKind`);
  const tables = useTables(schema);
  const referenced = useRelation(schema, fkTable, fkTable !== '');
  return (
    <fieldset className="grid grid-cols-2 gap-2 rounded-md border border-slate-200 p-2 sm:grid-cols-[repeat(4,minmax(0,1fr))_auto]">
      <legend className="px-1 text-xs font-semibold text-slate-700">Column {n}</legend>
      <Field label="Name" error={errors?.name?.message}>
        {(id, d) => <Input id={id} aria-describedby={d} aria-label={`Name of column ${n}`} className="font-mono" {...form.register(`${at}.name`)} />}
      </Field>
      <Field label="Type" error={errors?.type?.message}>
        {(id, d) => (
          <Input id={id} aria-describedby={d} aria-label={`Type of column ${n}`} list={TYPE_LIST} className="font-mono" {...form.register(`${at}.type`)} />
        )}
      </Field>
      <Field label="Default" error={errors?.defaultKind?.message}>
        {(id, d) => (
          <Select id={id} aria-describedby={d} aria-label={`Default of column ${n}`} {...form.register(`${at}.defaultKind`)}>
            <option value="none">No default</option>
            <option value="value">A value</option>
            <option value="expression">A SQL expression</option>
          </Select>
        )}
      </Field>
      <Field label={defaultKind === 'expression' ? 'Expression (run as written)' : 'Default value'} error={errors?.defaultValue?.message}>
        {(id, d) => (
          <Input
            id={id}
            aria-describedby={d}
            aria-label={`Default ${defaultKind === 'expression' ? 'expression' : 'value'} of column ${n}`}
            disabled={defaultKind === 'none'}
            placeholder={defaultKind === 'expression' ? 'now()' : defaultKind === 'value' ? 'a value' : ''}
            className="font-mono"
            {...form.register(`${at}.defaultValue`)}
          />
        )}
      </Field>
      <div className="col-span-2 flex flex-wrap items-end gap-x-3 gap-y-1 sm:col-span-1 sm:flex-col sm:items-start">
        <label className={check}>
          <input type="checkbox" {...form.register(`${at}.nullable`)} /> NULL allowed
        </label>
        <label className={check}>
          <input type="checkbox" {...form.register(`${at}.unique`)} /> Unique
        </label>
        {allowKey && (
          <label className={check}>
            <input type="checkbox" {...form.register(`${at}.primaryKey`)} /> Primary key
          </label>
        )}
        <label className={check}>
          <input type="checkbox" {...form.register(`${at}.identity`)} /> Identity
        </label>
      </div>
      <Field label="References (foreign key)">
        {(id) => (
          <Select id={id} aria-label={`Table referenced by column ${n}`} {...form.register(`${at}.fkTable`)}>
            <option value="">None</option>
            {(tables.data ?? [])
              .filter((t) => t.kind === 'r' || t.kind === 'p')
              .map((t) => (
                <option key={t.name} value={t.name}>
                  {schema}.{t.name}
                </option>
              ))}
          </Select>
        )}
      </Field>
      {fkTable !== '' && (
        <>
          <Field label="Referenced column" error={errors?.fkColumn?.message}>
            {(id, d) => (
              <Select id={id} aria-describedby={d} aria-label={`Column referenced by column ${n}`} {...form.register(`${at}.fkColumn`)}>
                <option value="">Choose…</option>
                {(referenced.data?.columns ?? []).map((c) => (
                  <option key={c.name} value={c.name}>
                    {c.name} ({c.type_name})
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="On delete">
            {(id) => (
              <Select id={id} aria-label={`On delete of column ${n}`} {...form.register(`${at}.fkOnDelete`)}>
                {FK_ACTIONS.map((a) => (
                  <option key={a.value} value={a.value}>
                    {a.label}
                  </option>
                ))}
              </Select>
            )}
          </Field>
        </>
      )}
      {onRemove && (
        <div className="flex items-end">
          <button type="button" className="h-8 rounded-md px-2 text-sm text-red-800 hover:bg-red-50" onClick={onRemove} aria-label={`Remove column ${n}`}>
            Remove
          </button>
        </div>
      )}
    </fieldset>
  );
}
