import { useEffect, useId, useRef, type ReactNode } from 'react';
import { X } from 'lucide-react';

const widths = { md: 'max-w-lg', xl: 'max-w-2xl', '4xl': 'max-w-4xl' } as const;

/**
 * A modal on the native <dialog> element: focus is trapped, Escape closes, the title labels it,
 * and focus goes back to what opened it, also when the dialog is unmounted rather than closed.
 */
export function Dialog({ open, onClose, title, children, size = 'md' }: { open: boolean; onClose: () => void; title: string; children: ReactNode; size?: keyof typeof widths }) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      d.showModal();
    }
    if (!open && d.open) d.close();
  }, [open]);
  useEffect(
    () => () => {
      if (opener.current?.isConnected) opener.current.focus();
    },
    [],
  );
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      className={`m-auto w-[calc(100%-1.5rem)] ${widths[size]} rounded-2xl bg-white p-0 text-slate-900 shadow-2xl backdrop:bg-slate-950/60`}
    >
      {open && (
        <div className="max-h-[90vh] overflow-y-auto p-5 sm:p-6">
          <div className="mb-4 flex items-start justify-between gap-4">
            <h2 id={titleId} className="text-xl font-bold text-blue-950">
              {title}
            </h2>
            <button type="button" onClick={onClose} className="rounded-md p-1 text-slate-600 hover:bg-slate-100 focus-visible:outline-3 focus-visible:outline-amber-500" aria-label="Fermer">
              <X className="h-5 w-5" aria-hidden="true" />
            </button>
          </div>
          {children}
        </div>
      )}
    </dialog>
  );
}
