import { useState, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { useBan, useDeleteFactor, useDeleteUser, useSendLink, useSignOutEverywhere, useUser, type UserDetail } from '../api/users';
import { banDuration } from '../lib/filters';
import { MetadataEditor } from './metadata-editor';
import { Badge } from './users-list';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Field, Input, Select } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';
import { paths } from '@/lib/paths';

const when = (t: string | null | undefined) => (t ? t.replace('T', ' ').slice(0, 19) : '—');

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title} className="border-b border-slate-200 px-3 py-2">
      <h2 className="mb-1 text-sm font-semibold text-slate-800">{title}</h2>
      {children}
    </section>
  );
}

function SmallTable({ caption, head, rows }: { caption: string; head: string[]; rows: ReactNode[][] }) {
  if (rows.length === 0) return <p className="text-sm text-slate-600">None.</p>;
  return (
    <div className="overflow-x-auto" tabIndex={0} role="region" aria-label={`${caption} (scrollable)`}>
      <table className="w-full text-[13px]">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-100 text-left">
          <tr>
            {head.map((h) => (
              <th key={h} scope="col" className="px-2 py-1 whitespace-nowrap">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} className="border-b border-slate-200 align-top">
              {r.map((c, j) => (
                <td key={j} className="max-w-[22rem] truncate px-2 py-1">
                  {c}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function BanDialog({ id, open, onClose }: { id: string; open: boolean; onClose: () => void }) {
  const ban = useBan(id);
  const [amount, setAmount] = useState('24');
  const [unit, setUnit] = useState<'h' | 'd'>('h');
  const duration = banDuration(Number(amount), unit);
  return (
    <Dialog open={open} title="Ban this user" onClose={onClose}>
      <form
        className="flex flex-col gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          if (duration) ban.mutate(duration, { onSuccess: onClose });
        }}
      >
        <p className="text-sm text-slate-700">Their sessions end now, and they cannot sign in until the ban ends.</p>
        <div className="flex gap-2">
          <Field label="Ban for" error={duration ? undefined : 'A whole number above zero'}>
            {(fid, d) => <Input id={fid} type="number" min={1} step={1} className="w-28" aria-describedby={d} value={amount} onChange={(e) => setAmount(e.target.value)} />}
          </Field>
          <Field label="Unit">
            {(fid) => (
              <Select id={fid} className="w-28" value={unit} onChange={(e) => setUnit(e.target.value as 'h' | 'd')}>
                <option value="h">hours</option>
                <option value="d">days</option>
              </Select>
            )}
          </Field>
        </div>
        {ban.error && <ErrorNote error={ban.error} />}
        <div className="flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" variant="danger" disabled={!duration || ban.isPending}>
            Ban user
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function DeleteDialog({ id, label, open, onClose }: { id: string; label: string; open: boolean; onClose: () => void }) {
  const del = useDeleteUser(id);
  const navigate = useNavigate();
  const [soft, setSoft] = useState(false);
  return (
    <Dialog open={open} title="Delete this user" onClose={onClose}>
      <div className="flex flex-col gap-3">
        <p className="text-sm text-slate-700">
          Delete <strong>{label}</strong>? A hard delete removes the user, their identities, factors and sessions for good.
        </p>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={soft} onChange={(e) => setSoft(e.target.checked)} /> Soft delete (keep the row, marked deleted, without its personal data)
        </label>
        {del.error && <ErrorNote error={del.error} />}
        <div className="flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="danger" disabled={del.isPending} onClick={() => del.mutate(soft, { onSuccess: () => navigate(paths.authUsers) })}>
            Delete user
          </Button>
        </div>
      </div>
    </Dialog>
  );
}

function Actions({ detail }: { detail: UserDetail }) {
  const u = detail.user;
  const [dialog, setDialog] = useState<'ban' | 'delete' | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const link = useSendLink(u.id);
  const unban = useBan(u.id);
  const signOut = useSignOutEverywhere(u.id);
  const banned = !!u.banned_until && new Date(u.banned_until) > new Date();
  const error = link.error ?? unban.error ?? signOut.error;
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap gap-2" role="group" aria-label="User actions">
        <Button disabled={!u.email || link.isPending} onClick={() => link.mutate('recovery', { onSuccess: () => setNote(`Recovery link sent to ${u.email}.`) })}>
          Send recovery link
        </Button>
        <Button disabled={!u.email || link.isPending} onClick={() => link.mutate('magiclink', { onSuccess: () => setNote(`Magic link sent to ${u.email}.`) })}>
          Send magic link
        </Button>
        <Button disabled={signOut.isPending} onClick={() => signOut.mutate(undefined, { onSuccess: (r) => setNote(`Signed out everywhere (${r.ended} session${r.ended === 1 ? '' : 's'} ended).`) })}>
          Sign out everywhere
        </Button>
        {banned ? (
          <Button onClick={() => unban.mutate('none', { onSuccess: () => setNote('The ban is lifted.') })}>Unban user</Button>
        ) : (
          <Button variant="danger" onClick={() => setDialog('ban')}>
            Ban user
          </Button>
        )}
        <Button variant="danger" onClick={() => setDialog('delete')}>
          Delete user
        </Button>
      </div>
      {note && (
        <p role="status" className="text-sm text-emerald-800">
          {note}
        </p>
      )}
      {error && <ErrorNote error={error} />}
      <BanDialog id={u.id} open={dialog === 'ban'} onClose={() => setDialog(null)} />
      <DeleteDialog id={u.id} label={u.email || u.id} open={dialog === 'delete'} onClose={() => setDialog(null)} />
    </div>
  );
}

/** The user's MFA factors, each removable (with a confirmation). */
function Factors({ detail }: { detail: UserDetail }) {
  const remove = useDeleteFactor(detail.user.id);
  const [target, setTarget] = useState<UserDetail['factors'][number] | null>(null);
  const name = (f: UserDetail['factors'][number]) => f.friendly_name || f.factor_type;
  return (
    <>
      <SmallTable
        caption="MFA factors"
        head={['Type', 'Name', 'Status', 'Created', '']}
        rows={detail.factors.map((f) => [
          f.factor_type,
          f.friendly_name ?? '',
          f.status,
          when(f.created_at),
          <Button variant="ghost" onClick={() => setTarget(f)} aria-label={`Remove factor ${name(f)}`}>
            Remove
          </Button>,
        ])}
      />
      <Dialog open={!!target} title="Remove this factor" onClose={() => setTarget(null)}>
        <div className="flex flex-col gap-3">
          <p className="text-sm text-slate-700">
            Remove the {target?.factor_type} factor <strong>{target ? name(target) : ''}</strong>? The user signs in without it; sessions it raised to aal2 drop to aal1.
          </p>
          {remove.error && <ErrorNote error={remove.error} />}
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={() => setTarget(null)}>
              Cancel
            </Button>
            <Button variant="danger" disabled={remove.isPending} onClick={() => target && remove.mutate(target.id, { onSuccess: () => setTarget(null) })}>
              Remove factor
            </Button>
          </div>
        </div>
      </Dialog>
    </>
  );
}

/** One user: who they are, how they sign in, their sessions and events, and what may be done to them. */
export function UserPage({ id }: { id: string }) {
  const user = useUser(id);
  if (user.isPending) return <Loading />;
  if (user.error) return <ErrorNote error={user.error} />;
  const d = user.data;
  const u = d.user;
  const banned = !!u.banned_until && new Date(u.banned_until) > new Date();
  return (
    <article aria-label="User" className="h-full min-h-0 overflow-auto bg-white">
      <header className="border-b border-slate-200 px-3 py-2">
        <Link to={paths.authUsers} className="text-sm text-emerald-800 lg:hidden">
          ← All users
        </Link>
        <h1 className="flex flex-wrap items-center gap-2 text-base font-semibold">
          {u.email || u.phone || 'anonymous user'}
          {banned && <Badge tone="red">{`banned until ${when(u.banned_until)}`}</Badge>}
          {!u.email_confirmed_at && !u.is_anonymous && <Badge tone="amber">unconfirmed</Badge>}
        </h1>
        <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 text-[13px] text-slate-700 sm:grid-cols-[auto_1fr_auto_1fr]">
          <dt className="text-slate-600">Id</dt>
          <dd className="font-mono break-all">{u.id}</dd>
          <dt className="text-slate-600">Role</dt>
          <dd>{u.role}</dd>
          <dt className="text-slate-600">Created</dt>
          <dd>{when(u.created_at)}</dd>
          <dt className="text-slate-600">Last sign-in</dt>
          <dd>{when(u.last_sign_in_at)}</dd>
          <dt className="text-slate-600">Confirmed</dt>
          <dd>{when(u.email_confirmed_at)}</dd>
          <dt className="text-slate-600">Phone</dt>
          <dd>{u.phone || '—'}</dd>
        </dl>
      </header>
      <Section title="Actions">
        <Actions detail={d} />
      </Section>
      <Section title="Identities">
        <SmallTable caption="Identities" head={['Provider', 'Provider id', 'E-mail', 'Created', 'Last sign-in']} rows={d.identities.map((i) => [i.provider, <span className="font-mono">{i.provider_id}</span>, i.email ?? '', when(i.created_at), when(i.last_sign_in_at)])} />
      </Section>
      <Section title="MFA factors">
        <Factors detail={d} />
      </Section>
      <Section title="Sessions">
        <SmallTable
          caption="Sessions"
          head={['Level', 'User agent', 'IP', 'Created', 'Refreshed']}
          rows={d.sessions.map((s) => [s.aal ?? '', <span title={s.user_agent ?? ''}>{s.user_agent ?? ''}</span>, s.ip ?? '', when(s.created_at), when(s.refreshed_at)])}
        />
      </Section>
      <Section title="Metadata">
        <div className="grid gap-3 lg:grid-cols-2">
          <MetadataEditor key={`app-${JSON.stringify(u.app_metadata)}`} id={u.id} which="app_metadata" label="App metadata" value={u.app_metadata} />
          <MetadataEditor key={`user-${JSON.stringify(u.user_metadata)}`} id={u.id} which="user_metadata" label="User metadata" value={u.user_metadata} />
        </div>
      </Section>
      <Section title="Audit events">
        <SmallTable caption="Audit events, newest first" head={['When (UTC)', 'Action', 'By', 'IP', 'Detail']} rows={d.events.map((e) => [when(e.created_at), <span className="font-mono">{e.action}</span>, e.actor ?? '', e.ip ?? '', <span className="font-mono text-xs">{JSON.stringify(e.traits)}</span>])} />
      </Section>
    </article>
  );
}
