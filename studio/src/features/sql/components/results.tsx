import { useMemo } from 'react';
import { getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import type { StatementResult } from '../api/run-sql';
import { DataGrid } from '@/components/ui/data-grid';
import { Button } from '@/components/ui/button';
import { formatCount, formatMs } from '@/lib/format';

type Cells = (string | null)[];

/** One statement's result: its rows in the virtualised grid, or what it did. */
export function ResultGrid({ result, index, onMore, loadingMore }: { result: StatementResult; index: number; onMore?: () => void; loadingMore?: boolean }) {
  const columns = useMemo<ColumnDef<Cells>[]>(
    () =>
      result.columns.map((c, i) => ({
        id: `${i}`,
        size: 180,
        header: () => (
          <span className="flex items-baseline gap-1">
            <span className="truncate">{c.name}</span>
            <span className="truncate text-xs font-normal text-slate-600">{c.type}</span>
          </span>
        ),
        cell: ({ row }) => {
          const v = row.original[i];
          return v === null || v === undefined ? <span className="text-slate-500 italic">NULL</span> : v;
        },
      })),
    [result.columns],
  );
  const table = useReactTable({ data: result.rows, columns, getCoreRowModel: getCoreRowModel() });
  const summary =
    result.columns.length > 0
      ? `${formatCount(result.rows.length)} row${result.rows.length === 1 ? '' : 's'}${result.offset ? ` from row ${formatCount(result.offset + 1)}` : ''}${result.more ? ' (more available)' : ''}`
      : `${result.rows_affected ?? 0} row${result.rows_affected === 1 ? '' : 's'} affected`;
  return (
    <section aria-label={`Result of statement ${index + 1}`} className="flex min-h-0 flex-1 flex-col">
      <p className="flex items-center gap-3 border-b border-slate-200 bg-white px-3 py-1 text-xs text-slate-700">
        <span>
          Statement {index + 1}: {summary}
        </span>
        <span>{formatMs(result.elapsed_ms)}</span>
        {result.more && onMore && (
          <Button variant="ghost" onClick={onMore} disabled={loadingMore}>
            {result.pageable ? 'Next rows' : 'More rows are not kept for this statement'}
          </Button>
        )}
      </p>
      {result.columns.length > 0 && <DataGrid table={table} label={`Rows of statement ${index + 1}`} />}
    </section>
  );
}
