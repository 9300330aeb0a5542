import { useState } from 'react';
import { Input, Select } from './field';

/** Who the dashboard acts as on the app's surfaces: anon, an app user (searched), or no token. */
export type Caller = { kind: 'anon' } | { kind: 'user'; id: string; label: string } | { kind: 'none' };

export type PickableUser = { id: string; email: string | null; phone: string | null; is_anonymous: boolean };

const userLabel = (u: PickableUser) => u.email ?? u.phone ?? `${u.id}${u.is_anonymous ? ' (anonymous)' : ''}`;

/**
 * A caller chooser: the kinds offered (`none` only where it means something), and for a user a
 * search box (`onSearch`) and the matches (`users`), which the feature fetches.
 */
export function CallerPicker({
  id,
  label,
  value,
  onChange,
  users,
  onSearch,
  allowNone = false,
  disabled = false,
}: {
  id: string;
  label: string;
  value: Caller;
  onChange: (c: Caller) => void;
  users: PickableUser[] | undefined;
  onSearch: (q: string) => void;
  allowNone?: boolean;
  disabled?: boolean;
}) {
  const [search, setSearch] = useState('');
  return (
    <div className="flex flex-wrap items-center gap-2">
      <label htmlFor={id} className="text-sm text-slate-700">
        {label}
      </label>
      <Select
        id={id}
        className="w-36"
        disabled={disabled}
        value={value.kind}
        onChange={(e) => {
          const kind = e.target.value as Caller['kind'];
          if (kind !== 'user') onChange({ kind } as Caller);
          else if (users?.[0]) onChange({ kind: 'user', id: users[0].id, label: userLabel(users[0]) });
          else onChange({ kind: 'user', id: '', label: '' });
        }}
      >
        <option value="anon">anon</option>
        <option value="user">a user…</option>
        {allowNone && <option value="none">no token</option>}
      </Select>
      {value.kind === 'user' && (
        <>
          <Input
            aria-label="Search users by e-mail"
            type="search"
            placeholder="Search users"
            className="w-44"
            disabled={disabled}
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              onSearch(e.target.value);
            }}
          />
          <Select
            aria-label="User"
            className="w-60"
            disabled={disabled}
            value={value.id}
            onChange={(e) => {
              const u = users?.find((x) => x.id === e.target.value);
              onChange({ kind: 'user', id: e.target.value, label: u ? userLabel(u) : e.target.value });
            }}
          >
            {!value.id && <option value="">Choose a user</option>}
            {value.id && !users?.some((u) => u.id === value.id) && <option value={value.id}>{value.label || value.id}</option>}
            {users?.map((u) => (
              <option key={u.id} value={u.id}>
                {userLabel(u)}
              </option>
            ))}
          </Select>
        </>
      )}
    </div>
  );
}

/** The `run_as` the studio API takes for a caller. */
export function runAsOf(c: Caller): 'anon' | 'none' | { user: string } {
  return c.kind === 'user' ? { user: c.id } : c.kind;
}
