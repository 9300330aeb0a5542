import { NavLink } from 'react-router';
import { AuthTab } from './auth-tab';
import { PostgresTab } from './postgres-tab';
import { RequestsTab } from './requests-tab';
import { paths } from '@/lib/paths';

export type LogSource = 'requests' | 'postgres' | 'auth';

const SOURCES: { key: LogSource; label: string }[] = [
  { key: 'requests', label: 'Requests' },
  { key: 'postgres', label: 'Postgres' },
  { key: 'auth', label: 'Auth audit' },
];

/** Logs: the request log, the Postgres log and the auth audit log, one tab each. */
export function LogsScreen({ source }: { source: LogSource }) {
  return (
    <div className="flex h-full flex-col">
      <header className="flex flex-wrap items-center gap-3 border-b border-slate-200 bg-white px-3 py-2">
        <h1 className="text-base font-semibold">Logs</h1>
        <nav aria-label="Log sources" className="flex gap-1">
          {SOURCES.map((s) => (
            <NavLink
              key={s.key}
              to={paths.logs(s.key)}
              className={({ isActive }) => `rounded px-2 py-1 text-sm ${isActive ? 'bg-slate-800 text-white' : 'text-slate-800 hover:bg-slate-100'}`}
            >
              {s.label}
            </NavLink>
          ))}
        </nav>
      </header>
      {source === 'requests' && <RequestsTab />}
      {source === 'postgres' && <PostgresTab />}
      {source === 'auth' && <AuthTab />}
    </div>
  );
}
