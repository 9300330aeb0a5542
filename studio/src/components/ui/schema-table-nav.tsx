import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { Input, Select } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';

/** A listing of a schema's tables as a query hook answers it. */
type TablesQuery<T> = { data?: T[]; isPending: boolean; error: unknown };

/**
 * The schema picker, a search box and a link per table of the schema whose name matches (the
 * current one marked), as the table editor and the policies screen list them beside their pane.
 */
export function SchemaTableNav<T extends { name: string }>({
  ids,
  schema,
  schemas,
  onSchema,
  searchPlaceholder,
  tables,
  current,
  to,
  children,
  noMatch,
}: {
  /** The ids of the schema picker and of the search box. */
  ids: { schema: string; search: string };
  schema: string;
  schemas?: string[];
  onSchema: (schema: string) => void;
  searchPlaceholder: string;
  tables: TablesQuery<T>;
  current?: string;
  /** Where a table's link goes. */
  to: (name: string) => string;
  /** What a table's link shows. */
  children: (table: T) => ReactNode;
  /** Said when no table matches the search (nothing when absent). */
  noMatch?: string;
}) {
  const [search, setSearch] = useState('');
  const shown = (tables.data ?? []).filter((t) => t.name.toLowerCase().includes(search.toLowerCase()));
  return (
    <>
      <label className="sr-only" htmlFor={ids.schema}>
        Schema
      </label>
      <Select id={ids.schema} value={schema} onChange={(e) => onSchema(e.target.value)}>
        {(schemas ?? [schema]).map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </Select>
      <label className="sr-only" htmlFor={ids.search}>
        Search tables
      </label>
      <Input id={ids.search} type="search" placeholder={searchPlaceholder} value={search} onChange={(e) => setSearch(e.target.value)} />
      {tables.isPending && <Loading />}
      {tables.error ? <ErrorNote error={tables.error} /> : null}
      <ul className="min-h-0 flex-1 overflow-auto">
        {shown.map((t) => (
          <li key={t.name}>
            <Link
              to={to(t.name)}
              aria-current={t.name === current ? 'page' : undefined}
              className={`flex items-baseline justify-between gap-2 rounded px-2 py-1 text-sm ${t.name === current ? 'bg-emerald-100 font-medium text-emerald-900' : 'text-slate-800 hover:bg-slate-100'}`}
            >
              {children(t)}
            </Link>
          </li>
        ))}
        {noMatch && tables.data && shown.length === 0 && <li className="px-2 py-1 text-sm text-slate-600">{noMatch}</li>}
      </ul>
    </>
  );
}
