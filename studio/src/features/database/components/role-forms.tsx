import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { sendRoleWrite, useRoles, useSchemaNames, useTableNames, type Role, type TablePrivilege } from '../api/database';
import { attributesOf, roleFormDefaults, roleFormSchema, type RoleForm } from '../lib/roles';
import { SqlReview } from './sql-review';
import { Field, Input, Select } from '@/components/ui/field';

const check = 'flex items-center gap-1 text-sm text-slate-800';

/** Create a role, or alter one (`role`): its attributes and password, the SQL shown before it runs. */
export function RoleAttributesForm({ role, onDone }: { role?: Role; onDone: () => void }) {
  const form = useForm<RoleForm>({ resolver: zodResolver(roleFormSchema), defaultValues: roleFormDefaults(role), mode: 'onChange' });
  const values = form.watch();
  const parsed = roleFormSchema.safeParse(values);
  const errors = form.formState.errors;
  const attributes = parsed.success ? attributesOf(parsed.data, role) : null;
  const changed = attributes !== null && (!role || Object.keys(attributes).length > 0);
  const send =
    parsed.success && attributes && changed
      ? (dryRun: boolean) =>
          sendRoleWrite(role ? { kind: 'alter', name: role.name, attributes } : { kind: 'create', name: parsed.data.name, attributes }, dryRun)
      : null;
  return (
    <form className="flex flex-col gap-3 text-sm" onSubmit={(e) => e.preventDefault()} noValidate>
      {!role && (
        <Field label="Name" error={errors.name?.message}>
          {(id, describedBy) => <Input id={id} aria-describedby={describedBy} aria-invalid={!!errors.name} autoComplete="off" {...form.register('name')} />}
        </Field>
      )}
      <div className="grid grid-cols-2 gap-2">
        <label className={check}>
          <input type="checkbox" {...form.register('login')} /> Can log in
        </label>
        <label className={check}>
          <input type="checkbox" {...form.register('inherit')} /> Inherits its roles' privileges
        </label>
        <label className={check}>
          <input type="checkbox" {...form.register('create_db')} /> Creates databases
        </label>
        <label className={check}>
          <input type="checkbox" {...form.register('create_role')} /> Creates roles
        </label>
        <label className={check}>
          <input type="checkbox" {...form.register('bypass_rls')} /> Bypasses row-level security
        </label>
      </div>
      <div className="grid grid-cols-2 gap-2">
        <Field label={role ? 'New password (empty: unchanged)' : 'Password (optional)'}>
          {(id) => <Input id={id} type="password" autoComplete="new-password" {...form.register('password')} />}
        </Field>
        <Field label="Connection limit (-1: none)" error={errors.connection_limit?.message}>
          {(id, describedBy) => <Input id={id} inputMode="numeric" aria-describedby={describedBy} aria-invalid={!!errors.connection_limit} {...form.register('connection_limit')} />}
        </Field>
        <Field label="Valid until (empty: always)">
          {(id) => <Input id={id} placeholder="2030-01-01 00:00+00" {...form.register('valid_until')} />}
        </Field>
        {role && (
          <label className={`${check} self-end`}>
            <input type="checkbox" {...form.register('clear_password')} /> Remove its password
          </label>
        )}
      </div>
      <p className="text-xs text-slate-600">The password is sent to Postgres as a SCRAM-SHA-256 verifier; neither it nor the verifier is shown or kept in the audit log.</p>
      <SqlReview send={send} inputKey={JSON.stringify([parsed.success ? parsed.data.name : null, attributes])} onDone={onDone} testId="role-sql" />
    </form>
  );
}

const membershipSchema = z.object({ role: z.string().min(1, 'Pick a role') });

/** Grant membership in another role, or revoke one the role has. */
export function MembershipForm({ role, onDone }: { role: Role; onDone: () => void }) {
  const roles = useRoles();
  const form = useForm<{ role: string; action: 'grant' | 'revoke' }>({ defaultValues: { role: '', action: 'grant' } });
  const action = form.watch('action');
  const picked = form.watch('role');
  const choices =
    action === 'revoke'
      ? role.member_of
      : (roles.data ?? []).filter((r) => r.name !== role.name && !r.superuser && !role.member_of.includes(r.name)).map((r) => r.name);
  const valid = membershipSchema.safeParse({ role: picked }).success && choices.includes(picked);
  const send = valid ? (dryRun: boolean) => sendRoleWrite({ kind: 'membership', name: role.name, role: picked, grant: action === 'grant' }, dryRun) : null;
  return (
    <form className="flex flex-col gap-3 text-sm" onSubmit={(e) => e.preventDefault()}>
      <p className="text-slate-700">
        Member of: <span className="font-mono">{role.member_of.join(', ') || 'no role'}</span>
      </p>
      <div className="grid grid-cols-2 gap-2">
        <Field label="Action">
          {(id) => (
            <Select id={id} {...form.register('action', { onChange: () => form.setValue('role', '') })}>
              <option value="grant">Grant membership in</option>
              <option value="revoke">Revoke membership in</option>
            </Select>
          )}
        </Field>
        <Field label="Role">
          {(id) => (
            <Select id={id} {...form.register('role')}>
              <option value="">Pick a role</option>
              {choices.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </Select>
          )}
        </Field>
      </div>
      <SqlReview send={send} inputKey={`${action}:${picked}`} danger={action === 'revoke'} onDone={onDone} testId="role-sql" />
    </form>
  );
}

const PRIVILEGES: TablePrivilege[] = ['select', 'insert', 'update', 'delete'];

/** Grant or revoke select / insert / update / delete on one table of a schema, or on all of them. */
export function PrivilegesForm({ role, onDone }: { role: Role; onDone: () => void }) {
  const schemas = useSchemaNames();
  const form = useForm<{ schema: string; table: string; privileges: TablePrivilege[]; action: 'grant' | 'revoke' }>({
    defaultValues: { schema: 'public', table: '', privileges: ['select'], action: 'grant' },
  });
  const v = form.watch();
  const tables = useTableNames(v.schema);
  const privileges = Array.isArray(v.privileges) ? v.privileges : [];
  const valid = v.schema !== '' && privileges.length > 0;
  const write = { kind: 'privileges' as const, name: role.name, schema: v.schema, table: v.table || null, privileges, grant: v.action === 'grant' };
  const send = valid ? (dryRun: boolean) => sendRoleWrite(write, dryRun) : null;
  return (
    <form className="flex flex-col gap-3 text-sm" onSubmit={(e) => e.preventDefault()}>
      <div className="grid grid-cols-3 gap-2">
        <Field label="Action">
          {(id) => (
            <Select id={id} {...form.register('action')}>
              <option value="grant">Grant</option>
              <option value="revoke">Revoke</option>
            </Select>
          )}
        </Field>
        <Field label="Schema">
          {(id) => (
            <Select id={id} {...form.register('schema', { onChange: () => form.setValue('table', '') })}>
              {(schemas.data ?? ['public']).map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Table">
          {(id) => (
            <Select id={id} {...form.register('table')}>
              <option value="">every table</option>
              {(tables.data ?? []).map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </Select>
          )}
        </Field>
      </div>
      <fieldset className="flex gap-3">
        <legend className="mb-1 text-xs font-medium text-slate-700">Privileges</legend>
        {PRIVILEGES.map((p) => (
          <label key={p} className={check}>
            <input type="checkbox" value={p} {...form.register('privileges')} /> {p}
          </label>
        ))}
      </fieldset>
      <SqlReview send={send} inputKey={JSON.stringify(write)} danger={v.action === 'revoke'} onDone={onDone} testId="role-sql" />
    </form>
  );
}

/** Drop a role, optionally with what it owns and its privileges (`drop owned by`). */
export function DropRoleForm({ role, onDone }: { role: Role; onDone: () => void }) {
  const form = useForm<{ dropOwned: boolean }>({ defaultValues: { dropOwned: false } });
  const dropOwned = form.watch('dropOwned');
  return (
    <form className="flex flex-col gap-3 text-sm" onSubmit={(e) => e.preventDefault()}>
      <p className="text-slate-700">
        Postgres refuses to drop a role that still owns objects or holds privileges; <code>drop owned by</code> drops its objects in this database and
        revokes its privileges first.
      </p>
      <label className={check}>
        <input type="checkbox" {...form.register('dropOwned')} /> Also drop what it owns and revoke its privileges (drop owned by)
      </label>
      <SqlReview send={(dryRun) => sendRoleWrite({ kind: 'drop', name: role.name, dropOwned }, dryRun)} inputKey={String(dropOwned)} danger onDone={onDone} testId="role-sql" />
    </form>
  );
}
