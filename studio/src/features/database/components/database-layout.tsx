import type { ReactNode } from 'react';
import { NavLink } from 'react-router';
import { paths } from '@/lib/paths';

const TABS = [
  { to: paths.database.roles, label: 'Roles' },
  { to: paths.database.extensions, label: 'Extensions' },
  { to: paths.database.migrations, label: 'Migrations' },
  { to: paths.database.tableSizes, label: 'Table sizes' },
  { to: paths.database.indexes, label: 'Indexes' },
  { to: paths.backups, label: 'Backups' },
];

/** The frame of a Database screen: its title, the section's tabs, its own tools, then the screen. */
export function DatabaseLayout({ title, tools, children }: { title: string; tools?: ReactNode; children: ReactNode }) {
  return (
    <div className="flex h-full min-w-0 flex-col">
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2">
        <h1 className="text-base font-semibold">
          <span className="font-normal text-slate-600">Database › </span>
          {title}
        </h1>
        <nav aria-label="Database" className="flex flex-wrap gap-1">
          {TABS.map((t) => (
            <NavLink
              key={t.to}
              to={t.to}
              className={({ isActive }) =>
                `rounded px-2 py-0.5 text-xs ${isActive ? 'bg-emerald-100 font-semibold text-emerald-900' : 'text-slate-700 hover:bg-slate-100'}`
              }
            >
              {t.label}
            </NavLink>
          ))}
        </nav>
        {tools && <div className="ml-auto flex flex-wrap items-center gap-2">{tools}</div>}
      </header>
      {children}
    </div>
  );
}

/** A scrollable region of the screen (focusable, so a keyboard can scroll it). */
export function Scroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-h-0 flex-1 overflow-auto" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

export const th = 'px-2 py-1 font-medium text-slate-800';
export const td = 'px-2 py-1 align-top';

/** A yes/no attribute as a short word a screen reader says too. */
export function Flag({ on, label }: { on: boolean; label: string }) {
  return on ? <span className="rounded bg-slate-200 px-1 text-[11px] text-slate-900">{label}</span> : null;
}
