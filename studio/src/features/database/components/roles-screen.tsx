import { useMemo, useState } from 'react';
import { useRoles, type Role } from '../api/database';
import { DatabaseLayout, Flag, Scroll, td, th } from './database-layout';
import { DropRoleForm, MembershipForm, PrivilegesForm, RoleAttributesForm } from './role-forms';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';

type Action = 'edit' | 'membership' | 'privileges' | 'drop';

const ACTIONS: { action: Action; label: string; title: string }[] = [
  { action: 'edit', label: 'Edit', title: 'Edit role' },
  { action: 'membership', label: 'Membership', title: 'Membership of' },
  { action: 'privileges', label: 'Privileges', title: 'Table privileges of' },
  { action: 'drop', label: 'Drop', title: 'Drop role' },
];

/**
 * Database › Roles: every role with its attributes, what it is a member of and its open
 * connections; a new role, and for the roles the server lets the dashboard edit, its
 * attributes, memberships, table privileges and drop, each form's SQL shown before it runs.
 */
export function RolesScreen() {
  const roles = useRoles();
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState<{ role: Role; action: Action } | null>(null);
  const close = () => setOpen(null);
  const title = open ? `${ACTIONS.find((a) => a.action === open.action)?.title} ${open.role.name}` : '';
  const [system, setSystem] = useState(false);
  const [q, setQ] = useState('');
  const shown = useMemo(
    () => (roles.data ?? []).filter((r) => (system || !r.system) && r.name.toLowerCase().includes(q.trim().toLowerCase())),
    [roles.data, system, q],
  );
  return (
    <DatabaseLayout
      title="Roles"
      tools={
        <>
          <Input aria-label="Search roles" placeholder="Search roles" className="w-48" value={q} onChange={(e) => setQ(e.target.value)} />
          <label className="flex items-center gap-1 text-sm text-slate-700">
            <input type="checkbox" checked={system} onChange={(e) => setSystem(e.target.checked)} />
            Show Postgres's pg_* roles
          </label>
          <Button variant="primary" onClick={() => setCreating(true)}>
            New role
          </Button>
        </>
      }
    >
      {roles.isPending && <Loading />}
      {roles.error && <ErrorNote error={roles.error} />}
      {roles.data && (
        <Scroll label="Roles (scrollable)">
          <table className="w-full text-[13px]">
            <caption className="sr-only">Database roles, {shown.length} shown</caption>
            <thead className="sticky top-0 bg-slate-100 text-left">
              <tr>
                <th scope="col" className={th}>Role</th>
                <th scope="col" className={th}>Attributes</th>
                <th scope="col" className={th}>Member of</th>
                <th scope="col" className={`${th} text-right`}>Connections</th>
                <th scope="col" className={`${th} text-right`}>Limit</th>
                <th scope="col" className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => (
                <tr key={r.name} className="border-b border-slate-200 bg-white" data-testid={`role-${r.name}`}>
                  <td className={`${td} font-mono`}>{r.name}</td>
                  <td className={td}>
                    <span className="flex flex-wrap gap-1">
                      <Flag on={r.superuser} label="superuser" />
                      <Flag on={r.can_login} label="can log in" />
                      <Flag on={r.bypass_rls} label="bypasses RLS" />
                      <Flag on={r.create_role} label="creates roles" />
                      <Flag on={r.create_db} label="creates databases" />
                      <Flag on={r.replication} label="replication" />
                      <Flag on={!r.inherit} label="no inherit" />
                      {r.valid_until && <span className="text-[11px] text-slate-700">valid until {r.valid_until}</span>}
                    </span>
                  </td>
                  <td className={`${td} font-mono text-xs`}>{r.member_of.join(', ') || '—'}</td>
                  <td className={`${td} text-right`}>{r.connections}</td>
                  <td className={`${td} text-right`}>{r.connection_limit < 0 ? 'none' : r.connection_limit}</td>
                  <td className={`${td} whitespace-nowrap text-right`}>
                    {r.protected ? (
                      <span className="text-xs text-slate-600">{r.system ? '' : `not editable: ${r.protected}`}</span>
                    ) : (
                      <span className="inline-flex gap-1">
                        {ACTIONS.map((a) => (
                          <Button key={a.action} variant={a.action === 'drop' ? 'ghost' : 'secondary'} className="h-7 px-2 text-xs" aria-label={`${a.label} ${r.name}`} onClick={() => setOpen({ role: r, action: a.action })}>
                            {a.label}
                          </Button>
                        ))}
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
      <Dialog open={creating} title="New role" onClose={() => setCreating(false)}>
        {creating && <RoleAttributesForm onDone={() => setCreating(false)} />}
      </Dialog>
      <Dialog open={open !== null} title={title} onClose={close}>
        {open?.action === 'edit' && <RoleAttributesForm role={open.role} onDone={close} />}
        {open?.action === 'membership' && <MembershipForm role={open.role} onDone={close} />}
        {open?.action === 'privileges' && <PrivilegesForm role={open.role} onDone={close} />}
        {open?.action === 'drop' && <DropRoleForm role={open.role} onDone={close} />}
      </Dialog>
    </DatabaseLayout>
  );
}
