import { useState } from 'react';
import { useTestPolicy, useUsers, type Caller, type PolicyTable } from '../api/policies';
import { operationOf, type TesterForm } from '../lib/tester';
import { Button } from '@/components/ui/button';
import { Field, Input, Select, inputClass } from '@/components/ui/field';
import { ErrorNote } from '@/components/ui/states';
import { cellText } from '@/lib/format';

const OPS = [
  ['eq', '='],
  ['neq', '≠'],
  ['lt', '<'],
  ['lte', '≤'],
  ['gt', '>'],
  ['gte', '≥'],
  ['ilike', 'ilike'],
  ['is_null', 'is null'],
  ['not_null', 'is not null'],
] as const;

/** Try an operation on the table as a user, anon or the service role; it runs in a transaction that is rolled back. */
export function PolicyTester({ schema, table }: { schema: string; table: PolicyTable }) {
  const [who, setWho] = useState<'anon' | 'service_role' | 'user'>('user');
  const [search, setSearch] = useState('');
  const users = useUsers(search);
  const [userId, setUserId] = useState('');
  const [form, setForm] = useState<TesterForm>({ kind: 'select', filterColumn: '', filterOp: 'eq', filterValue: '', row: '{\n  \n}', key: '{"id": 1}' });
  const [formError, setFormError] = useState<string | null>(null);
  const test = useTestPolicy();
  const chosenUser = userId || users.data?.[0]?.id || '';
  const set = (p: Partial<TesterForm>) => setForm((f) => ({ ...f, ...p }));

  const run = () => {
    setFormError(null);
    let operation;
    try {
      operation = operationOf(form);
    } catch (e) {
      setFormError((e as Error).message);
      return;
    }
    if (who === 'user' && !chosenUser) {
      setFormError('Choose a user');
      return;
    }
    const run_as: Caller = who === 'user' ? { kind: 'user', id: chosenUser } : { kind: who };
    test.mutate({ schema, table: table.name, run_as, operation });
  };
  const out = test.data;
  const columns = out?.rows[0] ? Object.keys(out.rows[0]) : [];

  return (
    <section aria-labelledby="tester-title" className="flex flex-col gap-3 border-t border-slate-200 bg-white p-3">
      <div>
        <h2 id="tester-title" className="text-sm font-semibold">
          Policy tester
        </h2>
        <p className="text-xs text-slate-700">Runs as the chosen caller with the request context of the REST API, in a transaction that is always rolled back.</p>
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <Field label="As">
          {(id) => (
            <Select id={id} className="w-40" value={who} onChange={(e) => setWho(e.target.value as typeof who)}>
              <option value="user">a user…</option>
              <option value="anon">anon</option>
              <option value="service_role">service_role</option>
            </Select>
          )}
        </Field>
        {who === 'user' && (
          <>
            <Field label="Search users">{(id) => <Input id={id} type="search" className="w-44" value={search} onChange={(e) => setSearch(e.target.value)} />}</Field>
            <Field label="User">
              {(id) => (
                <Select id={id} className="w-64" value={chosenUser} onChange={(e) => setUserId(e.target.value)}>
                  {users.data?.length === 0 && <option value="">no user matches</option>}
                  {users.data?.map((u) => (
                    <option key={u.id} value={u.id}>
                      {u.email ?? u.phone ?? u.id}
                    </option>
                  ))}
                </Select>
              )}
            </Field>
          </>
        )}
        <Field label="Operation">
          {(id) => (
            <Select id={id} className="w-32" value={form.kind} onChange={(e) => set({ kind: e.target.value as TesterForm['kind'] })}>
              <option value="select">select</option>
              <option value="insert">insert</option>
              <option value="update">update</option>
              <option value="delete">delete</option>
            </Select>
          )}
        </Field>
        {form.kind === 'select' && (
          <>
            <Field label="Filter column">
              {(id) => (
                <Select id={id} className="w-36" value={form.filterColumn} onChange={(e) => set({ filterColumn: e.target.value })}>
                  <option value="">no filter</option>
                  {table.columns.map((c) => (
                    <option key={c.name} value={c.name}>
                      {c.name}
                    </option>
                  ))}
                </Select>
              )}
            </Field>
            {form.filterColumn && (
              <>
                <Field label="Operator">
                  {(id) => (
                    <Select id={id} className="w-28" value={form.filterOp} onChange={(e) => set({ filterOp: e.target.value })}>
                      {OPS.map(([v, l]) => (
                        <option key={v} value={v}>
                          {l}
                        </option>
                      ))}
                    </Select>
                  )}
                </Field>
                {form.filterOp !== 'is_null' && form.filterOp !== 'not_null' && (
                  <Field label="Value">{(id) => <Input id={id} className="w-36" value={form.filterValue} onChange={(e) => set({ filterValue: e.target.value })} />}</Field>
                )}
              </>
            )}
          </>
        )}
      </div>
      {(form.kind === 'update' || form.kind === 'delete') && (
        <Field label="Primary key (JSON)">
          {(id) => <textarea id={id} rows={1} className={`${inputClass} h-auto w-full py-1 font-mono`} value={form.key} onChange={(e) => set({ key: e.target.value })} />}
        </Field>
      )}
      {(form.kind === 'insert' || form.kind === 'update') && (
        <Field label={form.kind === 'insert' ? 'Row (JSON)' : 'New values (JSON)'}>
          {(id) => <textarea id={id} rows={3} className={`${inputClass} h-auto w-full py-1 font-mono`} value={form.row} onChange={(e) => set({ row: e.target.value })} />}
        </Field>
      )}
      <div>
        <Button variant="primary" onClick={run} disabled={test.isPending}>
          Test
        </Button>
      </div>
      {formError && (
        <p role="alert" className="text-sm text-red-700">
          {formError}
        </p>
      )}
      {test.error && <ErrorNote error={test.error} />}
      {out && (
        <div role="status" className={`rounded-md border p-2 text-sm ${out.allowed ? 'border-emerald-300 bg-emerald-50' : 'border-red-300 bg-red-50'}`}>
          {out.error
            ? `Refused: ${out.error.message}`
            : test.variables?.operation.kind === 'select'
              ? `Sees ${out.rows.length} of ${out.total ?? '?'} rows`
              : out.allowed
                ? `Allowed: ${out.affected} row${out.affected === 1 ? '' : 's'} would be written (rolled back)`
                : 'Refused: no row this caller may see matches'}
        </div>
      )}
      {out && out.rows.length > 0 && (
        <div className="max-h-64 overflow-auto" role="region" aria-label="Rows the caller sees (scrollable)" tabIndex={0}>
          <table className="w-full text-[13px]">
            <caption className="sr-only">Rows as the caller sees them</caption>
            <thead className="sticky top-0 bg-slate-100 text-left">
              <tr>
                {columns.map((c) => (
                  <th key={c} scope="col" className="px-2 py-1">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {out.rows.map((r, i) => (
                <tr key={i} className="border-b border-slate-200">
                  {columns.map((c) => (
                    <td key={c} className="max-w-60 truncate px-2 py-1 font-mono text-xs">
                      {cellText(r[c]) ?? <span className="text-slate-500">NULL</span>}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
