import type { ButtonHTMLAttributes } from 'react';
import { Link, type LinkProps } from 'react-router';
import { cn } from '@/lib/cn';

type Variant = 'primary' | 'secondary' | 'outline' | 'ghost' | 'danger' | 'accent';

const base =
  'inline-flex items-center justify-center gap-2 rounded-lg font-semibold transition-colors focus-visible:outline focus-visible:outline-3 focus-visible:outline-offset-2 focus-visible:outline-amber-500 disabled:cursor-not-allowed disabled:opacity-60';
const variants: Record<Variant, string> = {
  primary: 'bg-blue-900 text-white hover:bg-blue-800',
  secondary: 'bg-slate-100 text-slate-900 hover:bg-slate-200',
  outline: 'border border-blue-900 text-blue-900 hover:bg-blue-50',
  ghost: 'text-slate-700 hover:bg-slate-100',
  danger: 'bg-red-700 text-white hover:bg-red-800',
  accent: 'bg-amber-400 text-slate-950 hover:bg-amber-300',
};

/** The padding and text size (classes given after them do not override them: `cn` only joins). */
type Size = 'md' | 'sm';
const sizes: Record<Size, string> = { md: 'px-4 py-2.5 text-sm', sm: 'px-3 py-1.5 text-xs' };

export function buttonClass(variant: Variant = 'primary', extra?: string, size: Size = 'md') {
  return cn(base, sizes[size], variants[variant], extra);
}

export function Button({ variant = 'primary', size = 'md', className, type = 'button', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; size?: Size }) {
  return <button type={type} className={buttonClass(variant, className, size)} {...props} />;
}

export function ButtonLink({ variant = 'primary', className, ...props }: LinkProps & { variant?: Variant }) {
  return <Link className={buttonClass(variant, className)} {...props} />;
}

/**
 * The foot of a dialog's form: Annuler, then the submit button, which says `busyLabel` and is
 * disabled while the request runs (or while `disabled`).
 */
export function FormActions({
  onCancel,
  submitLabel,
  busy,
  busyLabel = 'Envoi…',
  disabled = false,
  cancelVariant = 'ghost',
}: {
  onCancel: () => void;
  submitLabel: string;
  busy: boolean;
  busyLabel?: string;
  disabled?: boolean;
  cancelVariant?: Variant;
}) {
  return (
    <div className="flex justify-end gap-2">
      <Button variant={cancelVariant} onClick={onCancel}>
        Annuler
      </Button>
      <Button type="submit" disabled={busy || disabled}>
        {busy ? busyLabel : submitLabel}
      </Button>
    </div>
  );
}
