import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useTableSizes, type TableSize } from '../api/database';
import { formatBytes, sortBy, type SortDir } from '../lib/format';
import { DatabaseLayout, Scroll, td } from './database-layout';
import { SortHeader } from './sort-header';
import { Select } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';
import { formatCount } from '@/lib/format';
import { paths } from '@/lib/paths';

type Key = 'name' | 'schema' | 'total_bytes' | 'table_bytes' | 'index_bytes' | 'toast_bytes' | 'estimated_rows' | 'seq_scan' | 'idx_scan';

/** Database › Table sizes: each table's total, heap, index and TOAST sizes, estimated rows and scans, sorted by any column. */
export function TableSizesScreen() {
  const sizes = useTableSizes();
  const [sort, setSort] = useState<{ key: Key; dir: SortDir }>({ key: 'total_bytes', dir: 'desc' });
  const [schema, setSchema] = useState('');
  const schemas = useMemo(() => [...new Set((sizes.data ?? []).map((t) => t.schema))].sort(), [sizes.data]);
  const rows = useMemo(() => sortBy((sizes.data ?? []).filter((t) => !schema || t.schema === schema), sort.key as keyof TableSize, sort.dir), [sizes.data, schema, sort]);
  const total = rows.reduce((n, t) => n + t.total_bytes, 0);
  const h = (label: string, column: Key, numeric = true) => <SortHeader label={label} column={column} sort={sort} onSort={setSort} numeric={numeric} />;
  return (
    <DatabaseLayout
      title="Table sizes"
      tools={
        <>
          <span className="text-xs text-slate-700" aria-live="polite">
            {rows.length} tables · {formatBytes(total)}
          </span>
          <Select aria-label="Schema" className="w-40" value={schema} onChange={(e) => setSchema(e.target.value)}>
            <option value="">All schemas</option>
            {schemas.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </>
      }
    >
      {sizes.isPending && <Loading />}
      {sizes.error && <ErrorNote error={sizes.error} />}
      {sizes.data && (
        <Scroll label="Table sizes (scrollable)">
          <table className="w-full text-[13px]">
            <caption className="sr-only">Table sizes; the column headers sort</caption>
            <thead className="sticky top-0 bg-slate-100 text-left">
              <tr>
                {h('Schema', 'schema', false)}
                {h('Name', 'name', false)}
                {h('Total', 'total_bytes')}
                {h('Table', 'table_bytes')}
                {h('Indexes', 'index_bytes')}
                {h('TOAST', 'toast_bytes')}
                {h('Rows (est.)', 'estimated_rows')}
                {h('Seq scans', 'seq_scan')}
                {h('Index scans', 'idx_scan')}
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr key={`${t.schema}.${t.name}`} className="border-b border-slate-200 bg-white" data-testid={`size-${t.schema}.${t.name}`}>
                  <td className={`${td} font-mono text-xs`}>{t.schema}</td>
                  <td className={`${td} font-mono`}>
                    <Link className="text-emerald-800 hover:underline" to={paths.tables(t.schema, t.name)}>
                      {t.name}
                    </Link>
                    {t.kind !== 'table' && <span className="ml-1 text-[11px] text-slate-600">{t.kind}</span>}
                  </td>
                  <td className={`${td} text-right font-medium`}>{formatBytes(t.total_bytes)}</td>
                  <td className={`${td} text-right`}>{formatBytes(t.table_bytes)}</td>
                  <td className={`${td} text-right`}>{formatBytes(t.index_bytes)}</td>
                  <td className={`${td} text-right`}>{formatBytes(t.toast_bytes)}</td>
                  <td className={`${td} text-right`}>{t.estimated_rows === null ? 'not analyzed' : formatCount(t.estimated_rows)}</td>
                  <td className={`${td} text-right`}>{t.seq_scan === null ? '—' : formatCount(t.seq_scan)}</td>
                  <td className={`${td} text-right`}>{t.idx_scan === null ? '—' : formatCount(t.idx_scan)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </DatabaseLayout>
  );
}
