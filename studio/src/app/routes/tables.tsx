import { useParams } from 'react-router';
import { TableList } from '@/features/tables/components/table-list';
import { RowsView } from '@/features/tables/components/rows-view';

export function TablesRoute() {
  const { schema = 'public', table } = useParams();
  return (
    <div className="grid h-full grid-cols-1 grid-rows-[auto_1fr] md:grid-cols-[15rem_1fr] md:grid-rows-1">
      <div className="max-h-48 md:max-h-none">
        <TableList schema={schema} current={table} />
      </div>
      {table ? <RowsView key={`${schema}.${table}`} schema={schema} table={table} /> : <p className="p-4 text-sm text-slate-700">Choose a table.</p>}
    </div>
  );
}
