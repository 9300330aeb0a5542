import { useEffect, useRef, type ReactNode } from 'react';

/** A modal built on <dialog>: focus is trapped and Escape closes it, as the platform does. */
export function Dialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby="dialog-title"
      onClose={onClose}
      className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-lg border border-slate-300 p-0 shadow-xl backdrop:bg-slate-900/40"
    >
      {open && (
        <div className="flex max-h-[80vh] flex-col">
          <h2 id="dialog-title" className="border-b border-slate-200 px-4 py-3 text-base font-semibold">
            {title}
          </h2>
          <div className="overflow-auto px-4 py-3">{children}</div>
        </div>
      )}
    </dialog>
  );
}
