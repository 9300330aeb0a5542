import { useState } from 'react';
import { useUserSearch, type RunAs } from '../api/run-sql';
import { Input, Select } from '@/components/ui/field';

/** Who the statements run as: the owner, the service role, anon, or an app user found by e-mail. */
export function RunAsPicker({ value, onChange }: { value: RunAs; onChange: (r: RunAs) => void }) {
  const [search, setSearch] = useState('');
  const users = useUserSearch(search);
  const [userLabel, setUserLabel] = useState('');
  return (
    <div className="flex flex-wrap items-center gap-2">
      <label htmlFor="run-as" className="text-sm text-slate-700">
        Run as
      </label>
      <Select
        id="run-as"
        className="w-44"
        value={value.kind}
        onChange={(e) => {
          const kind = e.target.value as RunAs['kind'];
          if (kind !== 'user') onChange({ kind } as RunAs);
          else if (users.data?.[0]) {
            setUserLabel(users.data[0].email ?? users.data[0].id);
            onChange({ kind: 'user', id: users.data[0].id });
          }
        }}
      >
        <option value="owner">database owner</option>
        <option value="service_role">service_role</option>
        <option value="anon">anon</option>
        <option value="user">a user…</option>
      </Select>
      {value.kind === 'user' && (
        <>
          <Input aria-label="Search users by e-mail" type="search" placeholder="Search users" className="w-48" value={search} onChange={(e) => setSearch(e.target.value)} />
          <Select
            aria-label="User"
            className="w-64"
            value={value.id}
            onChange={(e) => {
              const u = users.data?.find((x) => x.id === e.target.value);
              setUserLabel(u?.email ?? e.target.value);
              onChange({ kind: 'user', id: e.target.value });
            }}
          >
            {!users.data?.some((u) => u.id === value.id) && <option value={value.id}>{userLabel || value.id}</option>}
            {users.data?.map((u) => (
              <option key={u.id} value={u.id}>
                {u.email ?? u.phone ?? `${u.id}${u.is_anonymous ? ' (anonymous)' : ''}`}
              </option>
            ))}
          </Select>
        </>
      )}
    </div>
  );
}
