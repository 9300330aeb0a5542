/** Small building blocks of the back office screens. */
import { useId, type ReactNode } from 'react';
import { RefreshCw, type LucideIcon } from 'lucide-react';
import { Dialog } from '@/components/ui/dialog';
import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';
import type { BookingStatus, RentalStatus } from '@/types/database';
import { bookingStatusLabel, bookingStatusTone, rentalStatusLabels } from '../lib/labels';

export function AdminHeader({ title, subtitle, children }: { title: string; subtitle?: string; children?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
      <div>
        <h1 className="text-2xl font-bold text-blue-950 sm:text-3xl">{title}</h1>
        {subtitle && <p className="mt-1 text-slate-600">{subtitle}</p>}
      </div>
      {children && <div className="flex flex-wrap items-center gap-2">{children}</div>}
    </div>
  );
}

export function StatTile({ label, value, hint, icon: Icon, testId }: { label: string; value: ReactNode; hint?: ReactNode; icon?: LucideIcon; testId?: string }) {
  return (
    <div className="min-w-0 rounded-xl border border-slate-200 bg-white p-4 shadow-sm" data-testid={testId}>
      <div className="flex items-center justify-between gap-2">
        <p className="text-sm font-medium text-slate-600">{label}</p>
        {Icon && <Icon className="h-5 w-5 text-blue-900" aria-hidden="true" />}
      </div>
      <p className="mt-2 whitespace-nowrap text-2xl font-bold tabular-nums text-slate-900" data-testid={testId ? `${testId}-value` : undefined}>
        {value}
      </p>
      {hint && <div className="mt-1 text-xs text-slate-600">{hint}</div>}
    </div>
  );
}

export function Panel({ title, children, actions, className }: { title: string; children: ReactNode; actions?: ReactNode; className?: string }) {
  return (
    <section className={cn('rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5', className)} aria-label={title}>
      <div className="mb-4 flex flex-wrap items-center justify-between gap-2">
        <h2 className="text-lg font-semibold text-blue-950">{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

export function BookingStatusBadge({ status }: { status: string }) {
  const tone = bookingStatusTone[status as BookingStatus] ?? bookingStatusTone.pending;
  return <span className={cn('inline-block rounded-full px-2.5 py-0.5 text-xs font-semibold', tone)}>{bookingStatusLabel(status)}</span>;
}

const rentalTone: Record<RentalStatus, string> = {
  available: 'bg-green-100 text-green-900',
  rented: 'bg-blue-100 text-blue-900',
  maintenance: 'bg-amber-100 text-amber-900',
  retired: 'bg-slate-200 text-slate-800',
};

export function RentalStatusBadge({ status }: { status: RentalStatus }) {
  return <span className={cn('inline-block rounded-full px-2.5 py-0.5 text-xs font-semibold', rentalTone[status])}>{rentalStatusLabels[status] ?? status}</span>;
}

export function ConfirmDialog({
  open,
  title,
  message,
  confirmLabel = 'Supprimer',
  busy,
  error,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  message: string;
  confirmLabel?: string;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} onClose={onClose} title={title}>
      <p className="text-slate-800">{message}</p>
      {error && (
        <p role="alert" className="mt-3 rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800">
          {error}
        </p>
      )}
      <div className="mt-6 flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose}>
          Annuler
        </Button>
        <Button variant="danger" onClick={onConfirm} disabled={busy}>
          {confirmLabel}
        </Button>
      </div>
    </Dialog>
  );
}

/** A compact select for filter bars (labelled, visible label). */
export function FilterSelect({ label, value, onChange, children, className }: { label: string; value: string; onChange: (v: string) => void; children: ReactNode; className?: string }) {
  const id = useId();
  return (
    <div className={cn('flex flex-col gap-1 text-sm font-medium text-slate-800', className)}>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} className="w-full min-w-0 rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 focus:border-blue-800 focus:outline-none focus:ring-3 focus:ring-amber-400/60">
        {children}
      </select>
    </div>
  );
}

export function FilterInput({ label, className, ...props }: { label: string; className?: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className={cn('flex flex-col gap-1 text-sm font-medium text-slate-800', className)}>
      <label htmlFor={id}>{label}</label>
      <input id={id} {...props} className="w-full min-w-0 rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 placeholder:text-slate-500 focus:border-blue-800 focus:outline-none focus:ring-3 focus:ring-amber-400/60" />
    </div>
  );
}

/** The « Actualiser » button of a list page, spinning while its query refetches. */
export function RefreshButton({ query, disabled, className }: { query: { isFetching: boolean; refetch: () => unknown }; disabled?: boolean; className?: string }) {
  return (
    <Button variant="outline" onClick={() => query.refetch()} disabled={query.isFetching || disabled} className={className}>
      <RefreshCw className={query.isFetching ? 'h-4 w-4 animate-spin' : 'h-4 w-4'} aria-hidden="true" /> Actualiser
    </Button>
  );
}

/** An icon button of a table row (edit, view, delete), named by its label. */
export function RowAction({ label, icon: Icon, onClick, danger, disabled }: { label: string; icon: LucideIcon; onClick: () => void; danger?: boolean; disabled?: boolean }) {
  return (
    <button
      type="button"
      onClick={onClick}
      disabled={disabled}
      aria-label={label}
      className={cn('rounded-md p-2 focus-visible:outline-3 focus-visible:outline-amber-500 disabled:opacity-40', danger ? 'text-red-700 hover:bg-red-50' : 'text-blue-900 hover:bg-blue-50')}
    >
      <Icon className="h-4 w-4" aria-hidden="true" />
    </button>
  );
}

/**
 * An e-mail address in a narrow column: it may wrap only before its « @ » (never inside a word,
 * as `overflow-wrap: anywhere` did, nor at a hyphen of the domain), and a wider column keeps it on
 * one line.
 */
export function EmailText({ email, className }: { email: string | null | undefined; className?: string }) {
  if (!email) return null;
  const at = email.indexOf('@');
  return (
    <p className={cn('text-xs text-slate-600', className)} title={email}>
      {at > 0 ? (
        <>
          <span className="whitespace-nowrap">{email.slice(0, at)}</span>
          <wbr />
          <span className="whitespace-nowrap">{email.slice(at)}</span>
        </>
      ) : (
        email
      )}
    </p>
  );
}

/** A row-selection checkbox (or the « Tout sélectionner » one in the head). */
export function SelectBox({ label, checked, onChange, disabled }: { label: string; checked: boolean; onChange: () => void; disabled?: boolean }) {
  return <input type="checkbox" className="h-4 w-4 accent-blue-900" aria-label={label} checked={checked} disabled={disabled} onChange={onChange} />;
}

/** A column of `AdminTable`: its heading, right-aligned for amounts and actions. */
export type Column = { label: ReactNode; right?: boolean };

/**
 * Sticky identity columns: what a row is stays in view while a narrow screen scrolls the table
 * sideways (1: the first column; 2: a selection box then the identity column).
 */
const stickyClasses = {
  1: '[&_tr>*:first-child]:sticky [&_tr>*:first-child]:left-0 [&_tr>*:first-child]:z-10 [&_td:first-child]:bg-white [&_th:first-child]:bg-slate-50 [&_tr>*:first-child]:shadow-[1px_0_0_0_rgb(226,232,240)]',
  2: '[&_tr>*:first-child]:sticky [&_tr>*:first-child]:left-0 [&_tr>*:first-child]:z-10 [&_tr>*:first-child]:w-14 [&_tr>*:first-child]:min-w-14 [&_td:first-child]:bg-white [&_th:first-child]:bg-slate-50 [&_tr>*:nth-child(2)]:sticky [&_tr>*:nth-child(2)]:left-14 [&_tr>*:nth-child(2)]:z-10 [&_td:nth-child(2)]:bg-white [&_th:nth-child(2)]:bg-slate-50 [&_tr>*:nth-child(2)]:shadow-[1px_0_0_0_rgb(226,232,240)]',
} as const;

/** The back office's scrollable table: a head of columns and the rows given as children. */
export function AdminTable({ columns, children, sticky = 1 }: { columns: Column[]; children: ReactNode; sticky?: 1 | 2 }) {
  return (
    <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm" data-testid="admin-table">
      {/* between 1024 and 1280 px the cells are a little tighter, so every column fits beside the compact sidebar */}
      <table className={cn('min-w-full text-left text-sm max-xl:[&_td]:px-3 max-xl:[&_th]:px-3', stickyClasses[sticky])}>
        <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-600">
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" className={cn('px-4 py-3', c.right && 'text-right')}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}
