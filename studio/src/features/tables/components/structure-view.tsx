import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import type { Relation } from '../api/tables';
import { useStructure, type Ddl } from '../api/structure';
import { DdlReview } from './ddl-review';
import { AddColumnForm, AlterColumnForm, CheckForm, ForeignKeyForm, KeyForm, RenameTableForm } from './structure-forms';
import { Button } from '@/components/ui/button';
import { ErrorNote, Loading } from '@/components/ui/states';
import { paths } from '@/lib/paths';

type Open = { kind: 'rename' } | { kind: 'add-column' } | { kind: 'alter'; column: string } | { kind: 'unique' } | { kind: 'check' } | { kind: 'fk' } | { kind: 'index' } | null;

const CONSTRAINT_KIND: Record<string, string> = { p: 'Primary key', u: 'Unique', c: 'Check', f: 'Foreign key', x: 'Exclusion', t: 'Trigger', n: 'Not null' };

function Section({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const id = `structure-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section aria-labelledby={id} className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id={id} className="text-sm font-semibold">
          {title}
        </h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

const th = 'border-b border-slate-300 px-2 py-1 text-left font-semibold';
const td = 'border-b border-slate-200 px-2 py-1 align-top';

/** A table's name, columns, constraints, foreign keys and indexes, each changed through a form whose SQL is shown first. */
export function StructureView({ relation }: { relation: Relation }) {
  const { schema, name: table } = relation;
  const structure = useStructure(schema, table);
  const [open, setOpen] = useState<Open>(null);
  const [ddl, setDdl] = useState<Ddl | null>(null);
  const [cascade, setCascade] = useState(false);
  const navigate = useNavigate();
  const at = { schema, table, onReview: setDdl, onCancel: () => setOpen(null) };
  if (structure.isPending) return <Loading />;
  if (structure.error) return <ErrorNote error={structure.error} />;
  const s = structure.data;
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-5 overflow-auto bg-white p-3 text-[13px]">
      <Section title="Table" actions={<Button onClick={() => setOpen({ kind: 'rename' })}>Rename table</Button>}>
        <p className="font-mono">
          {schema}.{table}
        </p>
        {open?.kind === 'rename' && <RenameTableForm {...at} />}
      </Section>

      <Section title="Columns" actions={<Button onClick={() => setOpen({ kind: 'add-column' })}>Add column</Button>}>
        {open?.kind === 'add-column' && <AddColumnForm {...at} />}
        <div className="overflow-x-auto">
          <table className="w-full border-separate border-spacing-0">
            <thead className="bg-slate-100">
              <tr>
                <th className={th}>Name</th>
                <th className={th}>Type</th>
                <th className={th}>Default</th>
                <th className={th}>NULL</th>
                <th className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {relation.columns.map((c) => (
                <tr key={c.name}>
                  <td className={`${td} font-mono`}>
                    {c.name}
                    {relation.primary_key.includes(c.name) && <span className="ml-1 font-sans text-xs text-amber-800">key</span>}
                  </td>
                  <td className={`${td} font-mono`}>{c.type_name}</td>
                  <td className={`${td} font-mono break-all`}>{c.default ?? ''}</td>
                  <td className={td}>{c.nullable ? 'yes' : 'no'}</td>
                  <td className={`${td} text-right whitespace-nowrap`}>
                    <Button variant="ghost" aria-label={`Edit column ${c.name}`} onClick={() => setOpen({ kind: 'alter', column: c.name })}>
                      Edit
                    </Button>
                    <Button variant="ghost" className="text-red-800" aria-label={`Drop column ${c.name}`} onClick={() => setDdl({ op: 'drop_column', schema, table, column: c.name })}>
                      Drop
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {open?.kind === 'alter' && relation.columns.some((c) => c.name === open.column) && (
          <AlterColumnForm key={open.column} {...at} column={relation.columns.find((c) => c.name === open.column)!} />
        )}
      </Section>

      <Section
        title="Constraints and foreign keys"
        actions={
          <>
            <Button onClick={() => setOpen({ kind: 'unique' })}>Add unique</Button>
            <Button onClick={() => setOpen({ kind: 'check' })}>Add check</Button>
            <Button onClick={() => setOpen({ kind: 'fk' })}>Add foreign key</Button>
          </>
        }
      >
        {open?.kind === 'unique' && <KeyForm {...at} columns={relation.columns} kind="unique" />}
        {open?.kind === 'check' && <CheckForm {...at} />}
        {open?.kind === 'fk' && <ForeignKeyForm {...at} columns={relation.columns} />}
        {s.constraints.length === 0 ? (
          <p className="text-slate-600">No constraint.</p>
        ) : (
          <ul className="divide-y divide-slate-200 rounded-md border border-slate-200">
            {s.constraints.map((c) => (
              <li key={c.name} className="flex flex-wrap items-center gap-2 px-2 py-1">
                <span className="w-24 shrink-0 text-xs text-slate-700">{CONSTRAINT_KIND[c.type] ?? c.type}</span>
                <span className="font-mono">{c.name}</span>
                <span className="min-w-0 flex-1 font-mono text-xs break-all text-slate-700">{c.definition}</span>
                <Button variant="ghost" className="text-red-800" aria-label={`Drop constraint ${c.name}`} onClick={() => setDdl({ op: 'drop_constraint', schema, table, name: c.name })}>
                  Drop
                </Button>
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section title="Indexes" actions={<Button onClick={() => setOpen({ kind: 'index' })}>Create index</Button>}>
        {open?.kind === 'index' && <KeyForm {...at} columns={relation.columns} kind="index" />}
        {s.indexes.length === 0 ? (
          <p className="text-slate-600">No index.</p>
        ) : (
          <ul className="divide-y divide-slate-200 rounded-md border border-slate-200">
            {s.indexes.map((i) => (
              <li key={i.name} className="flex flex-wrap items-center gap-2 px-2 py-1">
                <span className="font-mono">{i.name}</span>
                <span className="text-xs text-slate-700">
                  {i.method}
                  {i.unique ? ', unique' : ''}
                </span>
                <span className="min-w-0 flex-1 font-mono text-xs break-all text-slate-700">{i.definition}</span>
                {i.constraint ? (
                  <span className="text-xs text-slate-600">kept by its constraint</span>
                ) : (
                  <Button variant="ghost" className="text-red-800" aria-label={`Drop index ${i.name}`} onClick={() => setDdl({ op: 'drop_index', schema, table, name: i.name })}>
                    Drop
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section title="Danger zone">
        <div className="flex flex-wrap items-center gap-3 rounded-md border border-red-200 bg-red-50 p-2">
          <label className="flex items-center gap-1.5 text-xs">
            <input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} /> Also drop what depends on it (cascade)
          </label>
          <Button variant="danger" onClick={() => setDdl({ op: 'drop_table', schema, table, cascade })}>
            Drop table {table}
          </Button>
        </div>
      </Section>

      <DdlReview
        ddl={ddl}
        onClose={() => setDdl(null)}
        onDone={() =>
          ddl?.op === 'drop_table'
            ? navigate(paths.tables(schema))
            : ddl?.op === 'rename_table'
              ? navigate(paths.tables(schema, ddl.rename_to), { replace: true })
              : setOpen(null)
        }
      />
    </div>
  );
}
