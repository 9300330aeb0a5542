/**
 * The structure forms' values and how they become the server's `Ddl`: a column's name, type,
 * default (none, a value, or a SQL expression — marked as such in the SQL preview), NULL
 * allowed, unique, primary key, identity and foreign key. Pure, tested in ddl-form.test.ts.
 */
import { z } from 'zod';
import type { ColumnDef, DefaultValue, FkAction } from '../api/structure';

/** Types offered in the type field (any built-in name or schema.type may be typed). */
export const COMMON_TYPES = [
  'bigint',
  'integer',
  'smallint',
  'numeric',
  'double precision',
  'real',
  'boolean',
  'text',
  'varchar(255)',
  'uuid',
  'date',
  'time',
  'timestamptz',
  'timestamp',
  'interval',
  'jsonb',
  'json',
  'bytea',
  'text[]',
  'integer[]',
];

export const FK_ACTIONS: { value: FkAction; label: string }[] = [
  { value: 'no_action', label: 'No action' },
  { value: 'restrict', label: 'Restrict' },
  { value: 'cascade', label: 'Cascade' },
  { value: 'set_null', label: 'Set NULL' },
  { value: 'set_default', label: 'Set default' },
];

export const columnFormSchema = z
  .object({
    name: z.string().trim().min(1, 'Enter a name').max(63, 'At most 63 characters'),
    type: z.string().trim().min(1, 'Enter a type'),
    defaultKind: z.enum(['none', 'value', 'expression']),
    defaultValue: z.string(),
    nullable: z.boolean(),
    unique: z.boolean(),
    primaryKey: z.boolean(),
    identity: z.boolean(),
    fkTable: z.string(),
    fkColumn: z.string(),
    fkOnDelete: z.enum(['no_action', 'restrict', 'cascade', 'set_null', 'set_default']),
  })
  .superRefine((v, ctx) => {
    if (v.defaultKind === 'expression' && v.defaultValue.trim() === '') ctx.addIssue({ code: 'custom', path: ['defaultValue'], message: 'Enter an expression, e.g. now()' });
    if (v.defaultKind === 'expression' && v.defaultValue.includes(';')) ctx.addIssue({ code: 'custom', path: ['defaultValue'], message: 'No semicolon in an expression' });
    if (v.identity && v.defaultKind !== 'none') ctx.addIssue({ code: 'custom', path: ['defaultKind'], message: 'An identity column takes no default' });
    if (v.fkTable !== '' && v.fkColumn === '') ctx.addIssue({ code: 'custom', path: ['fkColumn'], message: 'Choose the referenced column' });
  });
export type ColumnForm = z.infer<typeof columnFormSchema>;

export const emptyColumn = (over: Partial<ColumnForm> = {}): ColumnForm => ({
  name: '',
  type: 'text',
  defaultKind: 'none',
  defaultValue: '',
  nullable: true,
  unique: false,
  primaryKey: false,
  identity: false,
  fkTable: '',
  fkColumn: '',
  fkOnDelete: 'no_action',
  ...over,
});

/** The columns a new table starts with, as Supabase's: an identity key and a creation time. */
export const starterColumns = (): ColumnForm[] => [
  emptyColumn({ name: 'id', type: 'bigint', identity: true, primaryKey: true, nullable: false }),
  emptyColumn({ name: 'created_at', type: 'timestamptz', defaultKind: 'expression', defaultValue: 'now()', nullable: false }),
];

export function defaultOf(form: Pick<ColumnForm, 'defaultKind' | 'defaultValue'>): DefaultValue | null {
  if (form.defaultKind === 'none') return null;
  return { kind: form.defaultKind, value: form.defaultKind === 'expression' ? form.defaultValue.trim() : form.defaultValue };
}

/** `schema.table` of the FK picker's choice split; a bare name is in `schema`. */
export function splitTable(qualified: string, schema: string): { schema: string; table: string } {
  const dot = qualified.indexOf('.');
  return dot < 0 ? { schema, table: qualified } : { schema: qualified.slice(0, dot), table: qualified.slice(dot + 1) };
}

export function toColumnDef(form: ColumnForm, schema: string): ColumnDef {
  return {
    name: form.name.trim(),
    type: form.type.trim(),
    default: defaultOf(form),
    nullable: form.primaryKey ? false : form.nullable,
    unique: form.unique,
    primary_key: form.primaryKey,
    identity: form.identity,
    references: form.fkTable ? { ...splitTable(form.fkTable, schema), columns: [form.fkColumn], on_delete: form.fkOnDelete } : null,
  };
}
