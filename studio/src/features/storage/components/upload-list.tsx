import { formatBytes } from '../lib/keys';

export type UploadState = { id: number; name: string; sent: number; total: number; error?: string; done: boolean };

/** The uploads of this visit, each with a progress bar. */
export function UploadList({ uploads, onClear }: { uploads: UploadState[]; onClear: () => void }) {
  if (uploads.length === 0) return null;
  return (
    <section aria-label="Uploads" className="border-b border-slate-200 bg-slate-50 px-3 py-2">
      <div className="mb-1 flex items-center justify-between">
        <h2 className="text-xs font-semibold text-slate-700">Uploads</h2>
        {uploads.every((u) => u.done || u.error) && (
          <button type="button" className="text-xs text-slate-700 underline" onClick={onClear}>
            Clear
          </button>
        )}
      </div>
      <ul className="flex flex-col gap-1">
        {uploads.map((u) => {
          const pct = u.total ? Math.floor((u.sent / u.total) * 100) : 100;
          return (
            <li key={u.id} className="grid grid-cols-[minmax(0,1fr)_10rem_7rem] items-center gap-2 text-xs">
              <span className="truncate" title={u.name}>
                {u.name}
              </span>
              <progress className="h-2 w-full accent-emerald-700" max={100} value={pct} aria-label={`Upload of ${u.name}`} aria-valuetext={`${pct}%`} />
              <span className={u.error ? 'text-red-700' : 'text-slate-700'}>
                {u.error ? u.error : u.done ? `done · ${formatBytes(u.total)}` : `${pct}% of ${formatBytes(u.total)}`}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
