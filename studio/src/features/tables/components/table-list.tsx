import { Link, useNavigate } from 'react-router';
import { useSchemas, useTables } from '../api/tables';
import { SchemaTableNav } from '@/components/ui/schema-table-nav';
import { paths } from '@/lib/paths';
import { formatCount } from '@/lib/format';

const KIND_LABEL: Record<string, string> = { r: 'table', p: 'partitioned table', v: 'view', m: 'materialized view', f: 'foreign table' };

/** The schema picker and its tables, views and materialized views. */
export function TableList({ schema, current }: { schema: string; current?: string }) {
  const navigate = useNavigate();
  const schemas = useSchemas();
  const tables = useTables(schema);
  return (
    <nav aria-label="Tables" className="flex h-full flex-col gap-2 border-r border-slate-200 bg-white p-2">
      <Link
        to={`${paths.tables(schema)}?new`}
        className="inline-flex h-8 items-center justify-center rounded-md bg-emerald-700 px-3 text-sm font-medium text-white hover:bg-emerald-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600"
      >
        New table
      </Link>
      <SchemaTableNav
        ids={{ schema: 'schema-picker', search: 'table-search' }}
        schema={schema}
        schemas={schemas.data}
        onSchema={(s) => navigate(paths.tables(s))}
        searchPlaceholder="Search tables"
        tables={tables}
        current={current}
        to={(name) => paths.tables(schema, name)}
        noMatch="No table matches."
      >
        {(t) => (
          <>
            <span className="truncate">
              {t.name}
              {t.kind !== 'r' && <span className="ml-1 text-xs text-slate-600">({KIND_LABEL[t.kind] ?? t.kind})</span>}
            </span>
            {t.estimated_rows !== null && (
              <span className="shrink-0 text-xs text-slate-600" title="Estimated rows">
                {formatCount(t.estimated_rows)}
              </span>
            )}
          </>
        )}
      </SchemaTableNav>
    </nav>
  );
}
