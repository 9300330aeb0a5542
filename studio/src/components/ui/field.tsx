import { forwardRef, useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';

export const inputClass =
  'h-8 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900 placeholder:text-slate-500 focus:border-emerald-600 focus:outline-2 focus:outline-emerald-600/30';

/** Full width unless the caller gives a width. */
const widthOf = (className: string) => (/(^|\s)w-/.test(className) ? '' : 'w-full');

/** A label above its control, with an optional error below (linked by aria-describedby). */
export function Field({ label, error, children, id }: { label: string; error?: string; children: (id: string, describedBy?: string) => ReactNode; id?: string }) {
  const generated = useId();
  const controlId = id ?? generated;
  const errorId = `${controlId}-error`;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={controlId} className="text-xs font-medium text-slate-700">
        {label}
      </label>
      {children(controlId, error ? errorId : undefined)}
      {error && (
        <p id={errorId} className="text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(function Input({ className = '', ...props }, ref) {
  return <input ref={ref} className={`${inputClass} ${widthOf(className)} ${className}`} {...props} />;
});

export const Select = forwardRef<HTMLSelectElement, SelectHTMLAttributes<HTMLSelectElement>>(function Select({ className = '', ...props }, ref) {
  return <select ref={ref} className={`${inputClass} ${widthOf(className)} ${className}`} {...props} />;
});
