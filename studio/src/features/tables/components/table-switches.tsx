import type { Ddl, Structure } from '../api/structure';

function Switch({ label, on, onToggle, hint }: { label: string; on: boolean; onToggle: () => void; hint: string }) {
  return (
    <label className="flex items-center gap-1.5 text-xs text-slate-800" title={hint}>
      <button
        type="button"
        role="switch"
        aria-checked={on}
        onClick={onToggle}
        className={`relative h-5 w-9 rounded-full transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 ${on ? 'bg-emerald-700' : 'bg-slate-400'}`}
      >
        <span className={`absolute top-0.5 size-4 rounded-full bg-white transition-all ${on ? 'left-4.5' : 'left-0.5'}`} />
      </button>
      {label}
    </label>
  );
}

/** The table's row-level security and realtime switches; each change is shown as SQL first. */
export function TableSwitches({ schema, table, structure, onChange }: { schema: string; table: string; structure: Structure; onChange: (ddl: Ddl) => void }) {
  return (
    <div className="flex items-center gap-3">
      <Switch
        label="Row-level security"
        on={structure.rls}
        hint="With RLS on, API roles see only the rows a policy lets through"
        onToggle={() => onChange({ op: 'set_rls', schema, table, enabled: !structure.rls })}
      />
      <Switch
        label="Realtime"
        on={structure.realtime}
        hint="Membership in the supabase_realtime publication: changes are sent to subscribers"
        onToggle={() => onChange({ op: 'set_realtime', schema, table, enabled: !structure.realtime })}
      />
    </div>
  );
}
