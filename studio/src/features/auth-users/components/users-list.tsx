import { useState } from 'react';
import { Link } from 'react-router';
import { useUsers } from '../api/users';
import { NO_FILTERS, type TriState, type UserFilters } from '../lib/filters';
import { CreateUserDialog } from './create-user-dialog';
import { Button } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';
import { paths } from '@/lib/paths';

const PROVIDERS = ['email', 'phone', 'anonymous', 'google', 'github', 'apple', 'azure', 'gitlab', 'keycloak'];

const FLAG_LABELS: { key: 'confirmed' | 'banned' | 'anonymous' | 'mfa'; label: string }[] = [
  { key: 'confirmed', label: 'Confirmed' },
  { key: 'banned', label: 'Banned' },
  { key: 'anonymous', label: 'Anonymous' },
  { key: 'mfa', label: 'Has MFA' },
];

function FlagSelect({ label, value, onChange }: { label: string; value: TriState; onChange: (v: TriState) => void }) {
  return (
    <Select aria-label={label} className="w-auto" value={value} onChange={(e) => onChange(e.target.value as TriState)}>
      <option value="any">{label}: any</option>
      <option value="yes">{label}: yes</option>
      <option value="no">{label}: no</option>
    </Select>
  );
}

const shortDate = (t: string | null | undefined) => (t ? t.replace('T', ' ').slice(0, 16) : '');

/** The app's users: search, filters, newest first, more loaded on demand. */
export function UsersList({ current }: { current?: string }) {
  const [filters, setFilters] = useState<UserFilters>(NO_FILTERS);
  const [creating, setCreating] = useState<'create' | 'invite' | null>(null);
  const users = useUsers(filters);
  const rows = users.data?.pages.flatMap((p) => p.users) ?? [];
  const set = (patch: Partial<UserFilters>) => setFilters((f) => ({ ...f, ...patch }));
  return (
    <section aria-label="Users" className="flex h-full min-h-0 flex-col border-r border-slate-200 bg-white">
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-2">
        <h1 className="mr-auto text-base font-semibold">Users</h1>
        <Button variant="primary" onClick={() => setCreating('create')}>
          Create user
        </Button>
        <Button onClick={() => setCreating('invite')}>Invite user</Button>
      </header>
      <form role="search" className="flex flex-wrap gap-2 border-b border-slate-200 px-3 py-2" onSubmit={(e) => e.preventDefault()}>
        <Input type="search" aria-label="Search users by e-mail, phone or id" placeholder="Search e-mail, phone or id" className="w-64" value={filters.q} onChange={(e) => set({ q: e.target.value })} />
        <Select aria-label="Provider" className="w-36" value={filters.provider} onChange={(e) => set({ provider: e.target.value })}>
          <option value="">Any provider</option>
          {PROVIDERS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </Select>
        {FLAG_LABELS.map((f) => (
          <FlagSelect key={f.key} label={f.label} value={filters[f.key]} onChange={(v) => set({ [f.key]: v })} />
        ))}
        {filters !== NO_FILTERS && (
          <Button variant="ghost" onClick={() => setFilters(NO_FILTERS)}>
            Clear
          </Button>
        )}
      </form>
      {users.isPending && <Loading />}
      {users.error && <ErrorNote error={users.error} />}
      <div className="min-h-0 flex-1 overflow-auto" tabIndex={0} role="region" aria-label="User list (scrollable)">
        <table className="w-full text-[13px]">
          <caption className="sr-only">Users, newest first</caption>
          <thead className="sticky top-0 bg-slate-100 text-left">
            <tr>
              <th scope="col" className="px-2 py-1">User</th>
              <th scope="col" className="px-2 py-1">Providers</th>
              <th scope="col" className="px-2 py-1">State</th>
              <th scope="col" className="hidden px-2 py-1 lg:table-cell">Created (UTC)</th>
              <th scope="col" className="hidden px-2 py-1 lg:table-cell">Last sign-in</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((u) => (
              <tr key={u.id} className={`border-b border-slate-200 align-top ${u.id === current ? 'bg-emerald-50' : 'hover:bg-slate-50'}`}>
                <td className="max-w-[18rem] truncate px-2 py-1">
                  <Link to={paths.authUser(u.id)} aria-current={u.id === current ? 'page' : undefined} className="text-emerald-800 underline-offset-2 hover:underline">
                    {u.email || u.phone || (u.is_anonymous ? 'anonymous' : u.id)}
                  </Link>
                  <div className="truncate font-mono text-[11px] text-slate-600">{u.id}</div>
                </td>
                <td className="px-2 py-1">{u.providers.join(', ') || (u.is_anonymous ? 'anonymous' : '')}</td>
                <td className="px-2 py-1">
                  <span className="flex flex-wrap gap-1">
                    {u.banned_until && <Badge tone="red">banned</Badge>}
                    {!u.confirmed && !u.is_anonymous && <Badge tone="amber">unconfirmed</Badge>}
                    {u.mfa && <Badge tone="emerald">MFA</Badge>}
                    {u.is_anonymous && <Badge tone="slate">anonymous</Badge>}
                  </span>
                </td>
                <td className="hidden px-2 py-1 whitespace-nowrap lg:table-cell">{shortDate(u.created_at)}</td>
                <td className="hidden px-2 py-1 whitespace-nowrap lg:table-cell">{shortDate(u.last_sign_in_at) || 'never'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {users.data && rows.length === 0 && <p className="p-3 text-sm text-slate-600">No user matches.</p>}
        {users.hasNextPage && (
          <div className="p-2">
            <Button onClick={() => users.fetchNextPage()} disabled={users.isFetchingNextPage}>
              {users.isFetchingNextPage ? 'Loading…' : 'Load more users'}
            </Button>
          </div>
        )}
      </div>
      <CreateUserDialog mode={creating} onClose={() => setCreating(null)} />
    </section>
  );
}

export function Badge({ tone, children }: { tone: 'red' | 'amber' | 'emerald' | 'slate'; children: string }) {
  const tones = { red: 'bg-red-100 text-red-900', amber: 'bg-amber-100 text-amber-900', emerald: 'bg-emerald-100 text-emerald-900', slate: 'bg-slate-200 text-slate-800' };
  return <span className={`rounded px-1.5 py-0.5 text-[11px] font-medium ${tones[tone]}`}>{children}</span>;
}
