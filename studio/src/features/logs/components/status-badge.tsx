import { statusTone } from '../lib/filters';

const TONES = { emerald: 'bg-emerald-100 text-emerald-900', slate: 'bg-slate-200 text-slate-800', amber: 'bg-amber-100 text-amber-900', red: 'bg-red-100 text-red-900' };

export function StatusBadge({ status }: { status: number }) {
  return <span className={`rounded px-1.5 py-0.5 font-mono text-[12px] font-medium ${TONES[statusTone(status)]}`}>{status}</span>;
}
