import { useMemo, useState } from 'react';
import { useRoles } from '../api/database';
import { DatabaseLayout, Flag, Scroll, td, th } from './database-layout';
import { Input } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';

/** Database › Roles: every role with its attributes, what it is a member of and its open connections (read-only). */
export function RolesScreen() {
  const roles = useRoles();
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
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </DatabaseLayout>
  );
}
