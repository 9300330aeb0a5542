import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { cn } from '@/lib/cn';

const control =
  'block w-full rounded-lg border border-slate-300 bg-white px-3 py-2.5 text-sm text-slate-900 shadow-sm placeholder:text-slate-500 focus:border-blue-800 focus:outline-none focus:ring-3 focus:ring-amber-400/60 disabled:bg-slate-100';

interface FieldShell {
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
  required?: boolean | undefined;
}

function Shell({ id, label, error, hint, required, children }: FieldShell & { id: string; children: ReactNode }) {
  return (
    <div className="space-y-1">
      <div className="flex items-baseline gap-1">
        <label htmlFor={id} className="block text-sm font-medium text-slate-800">
          {label}
        </label>
        {required && (
          <span className="text-sm text-red-700" aria-hidden="true">
            *
          </span>
        )}
      </div>
      {children}
      {hint && !error && (
        <p id={`${id}-hint`} className="text-xs text-slate-600">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

/** What every control carries: its id, style, and the ARIA state of its hint and error. */
function controlProps(id: string, { error, hint, required }: Omit<FieldShell, 'label'>, className: string | undefined) {
  return {
    id,
    className: cn(control, error && 'border-red-600', className),
    'aria-invalid': error ? true : undefined,
    'aria-required': required || undefined,
    'aria-describedby': error ? `${id}-error` : hint ? `${id}-hint` : undefined,
  };
}

export function TextField({ label, error, hint, required, className, id: givenId, ...props }: FieldShell & InputHTMLAttributes<HTMLInputElement>) {
  const auto = useId();
  const id = givenId ?? auto;
  return (
    <Shell id={id} label={label} error={error} hint={hint} required={required}>
      <input
        {...controlProps(id, { error, hint, required }, className)}
        {...props}
      />
    </Shell>
  );
}

export function SelectField({ label, error, hint, required, className, id: givenId, children, ...props }: FieldShell & SelectHTMLAttributes<HTMLSelectElement>) {
  const auto = useId();
  const id = givenId ?? auto;
  return (
    <Shell id={id} label={label} error={error} hint={hint} required={required}>
      <select
        {...controlProps(id, { error, hint, required }, className)}
        {...props}
      >
        {children}
      </select>
    </Shell>
  );
}

export function TextAreaField({ label, error, hint, required, className, id: givenId, ...props }: FieldShell & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const auto = useId();
  const id = givenId ?? auto;
  return (
    <Shell id={id} label={label} error={error} hint={hint} required={required}>
      <textarea
        rows={4}
        {...controlProps(id, { error, hint, required }, className)}
        {...props}
      />
    </Shell>
  );
}

export function Alert({ tone = 'error', children }: { tone?: 'error' | 'success' | 'info'; children: ReactNode }) {
  const tones = {
    error: 'border-red-300 bg-red-50 text-red-800',
    success: 'border-green-300 bg-green-50 text-green-800',
    info: 'border-blue-200 bg-blue-50 text-blue-900',
  };
  return (
    <div role={tone === 'error' ? 'alert' : 'status'} className={cn('rounded-lg border px-4 py-3 text-sm', tones[tone])}>
      {children}
    </div>
  );
}
