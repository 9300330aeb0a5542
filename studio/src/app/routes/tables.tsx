import { lazy, Suspense } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { TableList } from '@/features/tables/components/table-list';
import { RowsView } from '@/features/tables/components/rows-view';
import { Loading } from '@/components/ui/states';

// The new-table form: a chunk of its own, loaded when opened.
const CreateTable = lazy(() => import('@/features/tables/components/create-table').then((m) => ({ default: m.CreateTable })));

export function TablesRoute() {
  const { schema = 'public', table } = useParams();
  const [search] = useSearchParams();
  const creating = search.has('new');
  return (
    <div className="grid h-full grid-cols-1 grid-rows-[auto_minmax(0,1fr)] md:grid-cols-[15rem_1fr] md:grid-rows-1">
      <div className="max-h-48 md:max-h-none">
        <TableList schema={schema} current={table} />
      </div>
      {creating ? (
        <Suspense fallback={<Loading />}>
          <CreateTable key={schema} schema={schema} />
        </Suspense>
      ) : table ? (
        <RowsView key={`${schema}.${table}`} schema={schema} table={table} />
      ) : (
        <p className="p-4 text-sm text-slate-700">Choose a table, or create one.</p>
      )}
    </div>
  );
}
