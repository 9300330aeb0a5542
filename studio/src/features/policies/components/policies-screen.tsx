import { useState } from 'react';
import { useNavigate } from 'react-router';
import { usePolicies, usePolicySchemas, type Policy, type PolicyDraft, type PolicyTable, type PolicyWrite } from '../api/policies';
import { PolicyFormView } from './policy-form';
import { PolicyTester } from './policy-tester';
import { SqlReview } from './sql-review';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { SchemaTableNav } from '@/components/ui/schema-table-nav';
import { Empty } from '@/components/ui/states';
import { paths } from '@/lib/paths';

/** A schema's tables with their RLS switch and policies, the forms that write them, and the tester. */
export function PoliciesScreen({ schema, table }: { schema: string; table?: string }) {
  const tables = usePolicies(schema);
  const schemas = usePolicySchemas();
  const navigate = useNavigate();
  const [write, setWrite] = useState<PolicyWrite | null>(null);
  const [editing, setEditing] = useState<null | { policy?: Policy }>(null);
  const current = tables.data?.find((t) => t.name === table);

  const review = (draft: PolicyDraft, replaces?: string) => {
    setEditing(null);
    setWrite({ path: '/policies', body: { policy: draft, replaces } });
  };

  return (
    <div className="grid h-full grid-cols-1 grid-rows-[auto_minmax(0,1fr)] md:grid-cols-[15rem_1fr] md:grid-rows-1">
      <nav aria-label="Tables with policies" className="flex max-h-48 flex-col gap-2 border-r border-slate-200 bg-white p-2 md:max-h-none">
        <SchemaTableNav
          ids={{ schema: 'policy-schema', search: 'policy-table-search' }}
          schema={schema}
          schemas={schemas.data}
          onSchema={(s) => navigate(paths.policies(s))}
          searchPlaceholder={`Search ${schema} tables`}
          tables={tables}
          current={table}
          to={(name) => paths.policies(schema, name)}
        >
          {(t) => (
            <>
              <span className="truncate">{t.name}</span>
              <span className={`shrink-0 text-xs ${t.rls ? 'text-emerald-800' : 'text-amber-800'}`}>
                {t.rls ? `${t.policies.length} polic${t.policies.length === 1 ? 'y' : 'ies'}` : 'RLS off'}
              </span>
            </>
          )}
        </SchemaTableNav>
      </nav>
      <div className="flex min-h-0 flex-col overflow-auto">
        {!current ? (
          tables.data && <Empty>{tables.data.length ? 'Choose a table.' : `No table in ${schema}.`}</Empty>
        ) : (
          <TablePolicies
            schema={schema}
            table={current}
            onRls={(enabled) => setWrite({ path: '/policies/rls', body: { schema, table: current.name, enabled } })}
            onNew={() => setEditing({})}
            onEdit={(policy) => setEditing({ policy })}
            onDrop={(name) => setWrite({ path: '/policies/drop', body: { schema, table: current.name, name } })}
          />
        )}
        {current && <PolicyTester key={current.name} schema={schema} table={current} />}
      </div>
      {current && (
        <Dialog open={!!editing} title={editing?.policy ? `Edit policy ${editing.policy.name}` : `New policy on ${current.name}`} onClose={() => setEditing(null)}>
          {editing && <PolicyFormView schema={schema} table={current} policy={editing.policy} onCancel={() => setEditing(null)} onReview={(d) => review(d, editing.policy?.name)} />}
        </Dialog>
      )}
      <SqlReview write={write} schema={schema} onClose={() => setWrite(null)} />
    </div>
  );
}

function TablePolicies({
  schema,
  table,
  onRls,
  onNew,
  onEdit,
  onDrop,
}: {
  schema: string;
  table: PolicyTable;
  onRls: (enabled: boolean) => void;
  onNew: () => void;
  onEdit: (p: Policy) => void;
  onDrop: (name: string) => void;
}) {
  return (
    <section aria-labelledby="policies-title" className="flex flex-col">
      <header className="flex flex-wrap items-center gap-3 border-b border-slate-200 bg-white px-3 py-2">
        <h1 id="policies-title" className="text-base font-semibold">
          {schema}.{table.name}
        </h1>
        <label className="flex items-center gap-2 text-sm">
          <button
            type="button"
            role="switch"
            aria-checked={table.rls}
            onClick={() => onRls(!table.rls)}
            className={`relative h-5 w-9 rounded-full transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600 ${table.rls ? 'bg-emerald-700' : 'bg-slate-400'}`}
          >
            <span className={`absolute top-0.5 size-4 rounded-full bg-white transition-all ${table.rls ? 'left-4.5' : 'left-0.5'}`} />
          </button>
          Row-level security
        </label>
        {!table.rls && <p className="text-xs text-amber-800">Off: every role with a grant reads and writes every row.</p>}
        <Button variant="primary" className="ml-auto" onClick={onNew}>
          New policy
        </Button>
      </header>
      {table.policies.length === 0 ? (
        <Empty>{table.rls ? 'No policy: with RLS on, API roles see no row and write none.' : 'No policy.'}</Empty>
      ) : (
        <ul className="flex flex-col gap-2 p-3">
          {table.policies.map((p) => (
            <li key={p.name} className="rounded-md border border-slate-200 bg-white p-3 text-sm">
              <div className="flex flex-wrap items-center gap-2">
                <h2 className="font-semibold">{p.name}</h2>
                <span className="rounded bg-slate-100 px-1.5 font-mono text-xs uppercase">{p.command}</span>
                <span className={`rounded px-1.5 text-xs ${p.permissive ? 'bg-emerald-50 text-emerald-900' : 'bg-amber-50 text-amber-900'}`}>{p.permissive ? 'permissive' : 'restrictive'}</span>
                <span className="text-xs text-slate-700">to {p.roles.join(', ')}</span>
                <span className="ml-auto flex gap-2">
                  <Button onClick={() => onEdit(p)} aria-label={`Edit ${p.name}`}>
                    Edit
                  </Button>
                  <Button variant="danger" onClick={() => onDrop(p.name)} aria-label={`Drop ${p.name}`}>
                    Drop
                  </Button>
                </span>
              </div>
              <dl className="mt-2 grid grid-cols-[6rem_1fr] gap-x-2 gap-y-1 text-xs">
                {p.using !== null && (
                  <>
                    <dt className="text-slate-700">using</dt>
                    <dd className="font-mono break-all">{p.using}</dd>
                  </>
                )}
                {p.with_check !== null && (
                  <>
                    <dt className="text-slate-700">with check</dt>
                    <dd className="font-mono break-all">{p.with_check}</dd>
                  </>
                )}
              </dl>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
