import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useSchemas, useTables } from '../api/tables';
import { Input, Select } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';
import { paths } from '@/lib/paths';
import { formatCount } from '@/lib/format';

const KIND_LABEL: Record<string, string> = { r: 'table', p: 'partitioned table', v: 'view', m: 'materialized view', f: 'foreign table' };

/** The schema picker and its tables, views and materialized views. */
export function TableList({ schema, current }: { schema: string; current?: string }) {
  const navigate = useNavigate();
  const schemas = useSchemas();
  const tables = useTables(schema);
  const [search, setSearch] = useState('');
  const shown = (tables.data ?? []).filter((t) => t.name.toLowerCase().includes(search.toLowerCase()));
  return (
    <nav aria-label="Tables" className="flex h-full flex-col gap-2 border-r border-slate-200 bg-white p-2">
      <label className="sr-only" htmlFor="schema-picker">
        Schema
      </label>
      <Select id="schema-picker" value={schema} onChange={(e) => navigate(paths.tables(e.target.value))}>
        {(schemas.data ?? [schema]).map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </Select>
      <label className="sr-only" htmlFor="table-search">
        Search tables
      </label>
      <Input id="table-search" type="search" placeholder="Search tables" value={search} onChange={(e) => setSearch(e.target.value)} />
      {tables.isPending && <Loading />}
      {tables.error && <ErrorNote error={tables.error} />}
      <ul className="min-h-0 flex-1 overflow-auto">
        {shown.map((t) => (
          <li key={t.name}>
            <Link
              to={paths.tables(schema, t.name)}
              aria-current={t.name === current ? 'page' : undefined}
              className={`flex items-baseline justify-between gap-2 rounded px-2 py-1 text-sm ${t.name === current ? 'bg-emerald-100 font-medium text-emerald-900' : 'text-slate-800 hover:bg-slate-100'}`}
            >
              <span className="truncate">
                {t.name}
                {t.kind !== 'r' && <span className="ml-1 text-xs text-slate-600">({KIND_LABEL[t.kind] ?? t.kind})</span>}
              </span>
              {t.estimated_rows !== null && (
                <span className="shrink-0 text-xs text-slate-600" title="Estimated rows">
                  {formatCount(t.estimated_rows)}
                </span>
              )}
            </Link>
          </li>
        ))}
        {tables.data && shown.length === 0 && <li className="px-2 py-1 text-sm text-slate-600">No table matches.</li>}
      </ul>
    </nav>
  );
}
