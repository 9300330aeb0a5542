import { lazy, Suspense, useMemo, useState } from 'react';
import { getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import { useRelation, useRowWrites, useRows, type Column, type Row, type RowQuery, type Sort } from '../api/tables';
import { keyOf } from '../lib/cell-value';
import { byteaSummary } from '../lib/bytea';
import { duplicateForm } from '../lib/duplicate';
import { exportUrl, foreignKeys, useStructure, type Ddl } from '../api/structure';
import { BytesEditor } from './bytes-editor';
import { CellEditor } from './cell-editor';
import { DdlReview } from './ddl-review';
import { FilterBar } from './filter-bar';
import { FkPicker } from './fk-picker';
import { InsertRowForm } from './insert-row-dialog';
import { TableSwitches } from './table-switches';
import { Button } from '@/components/ui/button';
import { DataGrid } from '@/components/ui/data-grid';
import { Dialog } from '@/components/ui/dialog';
import { ErrorNote, Loading } from '@/components/ui/states';
import { cellText, formatCount, formatMs } from '@/lib/format';
import { ApiError } from '@/lib/api';

type Editing = { row: Row; column: Column };

// The structure tab and the CSV import are chunks of their own, loaded when opened.
const StructureView = lazy(() => import('./structure-view').then((m) => ({ default: m.StructureView })));
const ImportCsv = lazy(() => import('./import-csv').then((m) => ({ default: m.ImportCsv })));

function nextSort(sort: Sort[], column: string): Sort[] {
  const current = sort.find((s) => s.column === column);
  if (!current) return [{ column, desc: false }];
  if (!current.desc) return [{ column, desc: true }];
  return [];
}

/**
 * One table: its rows (filters, sort, pages as the grid scrolls, edit a cell — a foreign key
 * through a picker over the referenced table, bytea as hex or a file —, insert, duplicate and
 * delete rows, CSV export of the view and import) or its structure; the row-level security and
 * realtime switches in the header.
 */
export function RowsView({ schema, table }: { schema: string; table: string }) {
  const relation = useRelation(schema, table);
  const isTable = relation.data?.kind === 'r' || relation.data?.kind === 'p';
  const structure = useStructure(schema, table, isTable);
  const fks = useMemo(() => foreignKeys(structure.data), [structure.data]);
  const [tab, setTab] = useState<'data' | 'structure'>('data');
  const [switchDdl, setSwitchDdl] = useState<Ddl | null>(null);
  const [importing, setImporting] = useState(false);
  const [imported, setImported] = useState<number | null>(null);
  const [query, setQuery] = useState<RowQuery>({ filters: [], sort: [] });
  const rows = useRows(schema, table, query);
  const writes = useRowWrites(schema, table);
  const [editing, setEditing] = useState<Editing | null>(null);
  // The insert form, empty or (a duplicated row) started with a row's values.
  const [inserting, setInserting] = useState<{ initial?: Record<string, string> } | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirmDelete, setConfirmDelete] = useState(false);
  const rel = relation.data;
  const pk = rel?.primary_key ?? [];
  const editable = !!rel && rel.kind !== 'v' && rel.kind !== 'm' && pk.length > 0;
  const data = useMemo(() => rows.data?.pages.flatMap((p) => p.rows) ?? [], [rows.data]);
  const keyText = (row: Row) => JSON.stringify(keyOf(row, pk));

  const columns = useMemo<ColumnDef<Row>[]>(() => {
    if (!rel) return [];
    const defs: ColumnDef<Row>[] = rel.columns.map((c) => ({
      id: c.name,
      size: c.category === 'N' || c.udt === 'bool' ? 110 : c.udt === 'uuid' ? 300 : 190,
      header: () => {
        const s = query.sort.find((x) => x.column === c.name);
        return (
          <button
            type="button"
            className="flex w-full items-baseline gap-1 text-left"
            onClick={() => setQuery((q) => ({ ...q, sort: nextSort(q.sort, c.name) }))}
            title={`Sort by ${c.name}`}
          >
            <span className="truncate">{c.name}</span>
            <span className="truncate text-xs font-normal text-slate-600">{c.type_name}</span>
            {s && <span aria-hidden="true">{s.desc ? '↓' : '↑'}</span>}
            {s && <span className="sr-only">{s.desc ? ', sorted descending' : ', sorted ascending'}</span>}
            {pk.includes(c.name) && <span className="text-xs font-normal text-amber-800">key</span>}
          </button>
        );
      },
      cell: ({ row }) => {
        const text = c.udt === 'bytea' ? byteaSummary(row.original[c.name]) : cellText(row.original[c.name]);
        const canEdit = editable && !c.read_only;
        return (
          <button
            type="button"
            className={`cell block w-full text-left ${text === null ? 'text-slate-500 italic' : ''} ${canEdit ? 'cursor-text' : 'cursor-default'}`}
            title={canEdit ? 'Double-click or press Enter to edit' : text ?? 'NULL'}
            aria-label={`${c.name}: ${text ?? 'NULL'}`}
            onDoubleClick={() => canEdit && setEditing({ row: row.original, column: c })}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && canEdit) {
                e.preventDefault();
                setEditing({ row: row.original, column: c });
              }
            }}
          >
            {text ?? 'NULL'}
          </button>
        );
      },
    }));
    if (editable) {
      defs.unshift({
        id: '__select',
        size: 36,
        header: () => <span className="sr-only">Select</span>,
        cell: ({ row }) => {
          const k = keyText(row.original);
          return (
            <input
              type="checkbox"
              aria-label={`Select row ${k}`}
              checked={selected.has(k)}
              onChange={(e) =>
                setSelected((s) => {
                  const n = new Set(s);
                  if (e.target.checked) n.add(k);
                  else n.delete(k);
                  return n;
                })
              }
            />
          );
        },
      });
    }
    return defs;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rel, query.sort, editable, selected]);

  const grid = useReactTable({ data, columns, getCoreRowModel: getCoreRowModel(), getRowId: (r, i) => (pk.length ? keyText(r) : String(i)) });

  if (relation.isPending) return <Loading />;
  if (relation.error || !rel) return <ErrorNote error={relation.error} />;
  const lastPage = rows.data?.pages[rows.data.pages.length - 1];
  const loadMore = () => {
    if (rows.hasNextPage && !rows.isFetchingNextPage) void rows.fetchNextPage();
  };
  const saveEdit = (value: unknown) => {
    if (!editing) return;
    writes.update.mutate({ key: keyOf(editing.row, pk), values: { [editing.column.name]: value } }, { onSuccess: () => setEditing(null) });
  };
  const deleteSelected = () => {
    const keys = [...selected].map((k) => JSON.parse(k) as Row);
    writes.remove.mutate(keys, { onSuccess: () => (setSelected(new Set()), setConfirmDelete(false)) });
  };
  return (
    <section aria-label={`Rows of ${schema}.${table}`} className="flex h-full min-w-0 flex-col">
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2">
        <h1 className="mr-2 text-base font-semibold">
          <span className="text-slate-600">{schema}.</span>
          {table}
        </h1>
        {editable && (
          <Button variant="primary" onClick={() => (writes.insert.reset(), setInserting({}))}>
            Insert row
          </Button>
        )}
        {editable && selected.size === 1 && (
          <Button
            onClick={() => {
              const source = data.find((r) => selected.has(keyText(r)));
              if (!source) return;
              writes.insert.reset();
              setInserting({ initial: duplicateForm(rel, source) });
            }}
            title="Open the insert form with the selected row's values (new key)"
          >
            Duplicate row
          </Button>
        )}
        {editable && selected.size > 0 && (
          <Button variant="danger" onClick={() => setConfirmDelete(true)}>
            Delete {selected.size} row{selected.size > 1 ? 's' : ''}
          </Button>
        )}
        <Button variant="ghost" onClick={() => void rows.refetch()}>
          Refresh
        </Button>
        <a
          href={exportUrl(schema, table, query)}
          download={`${table}.csv`}
          className="inline-flex h-8 items-center rounded-md px-3 text-sm font-medium text-slate-700 hover:bg-slate-200 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600"
          title="Every row of the current filters and sort, as CSV"
        >
          Export CSV
        </a>
        {isTable && (
          <Button variant="ghost" onClick={() => (setImported(null), setImporting(true))}>
            Import CSV
          </Button>
        )}
        {!editable && <span className="text-xs text-slate-600">{pk.length === 0 ? 'Read-only: no primary key' : 'Read-only view'}</span>}
        {imported !== null && (
          <span role="status" className="text-xs text-emerald-800">
            {formatCount(imported)} rows imported
          </span>
        )}
        <span className="flex-1" />
        {isTable && structure.data && <TableSwitches schema={schema} table={table} structure={structure.data} onChange={setSwitchDdl} />}
      </header>
      {isTable && (
        <div role="tablist" aria-label="Table view" className="flex gap-1 border-b border-slate-200 bg-white px-3">
          {(['data', 'structure'] as const).map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              id={`table-tab-${t}`}
              aria-selected={tab === t}
              aria-controls={tab === t ? `table-panel-${t}` : undefined}
              onClick={() => setTab(t)}
              className={`-mb-px border-b-2 px-3 py-1.5 text-sm ${tab === t ? 'border-emerald-700 font-medium text-emerald-900' : 'border-transparent text-slate-700 hover:text-slate-900'}`}
            >
              {t === 'data' ? 'Data' : 'Structure'}
            </button>
          ))}
        </div>
      )}
      {tab === 'structure' && isTable ? (
        <div role="tabpanel" id="table-panel-structure" aria-labelledby="table-tab-structure" className="flex min-h-0 flex-1 flex-col">
          <Suspense fallback={<Loading />}>
            <StructureView relation={rel} />
          </Suspense>
        </div>
      ) : (
        <div className="flex min-h-0 flex-1 flex-col" {...(isTable ? { role: 'tabpanel', id: 'table-panel-data', 'aria-labelledby': 'table-tab-data' } : {})}>
      <div className="border-b border-slate-200 bg-slate-50 px-3 py-2">
        <FilterBar columns={rel.columns} filters={query.filters} onChange={(filters) => setQuery((q) => ({ ...q, filters }))} />
      </div>
      {rows.error ? <ErrorNote error={rows.error} /> : null}
      {rows.isPending ? <Loading label="Loading rows…" /> : <DataGrid table={grid} label={`${schema}.${table}`} onNearEnd={loadMore} />}
      <footer className="flex items-center gap-3 border-t border-slate-200 bg-white px-3 py-1 text-xs text-slate-700" aria-live="polite">
        <span>{formatCount(data.length)} rows loaded</span>
        {lastPage && (
          <span>
            {lastPage.paging} paging · last page in {formatMs(lastPage.elapsed_ms)}
          </span>
        )}
        {rows.hasNextPage && (
          <Button variant="ghost" onClick={loadMore} disabled={rows.isFetchingNextPage}>
            {rows.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </Button>
        )}
      </footer>
        </div>
      )}
      <DdlReview ddl={switchDdl} onClose={() => setSwitchDdl(null)} />
      <Dialog open={importing} title={`Import a CSV into ${table}`} onClose={() => setImporting(false)}>
        {importing && (
          <Suspense fallback={<Loading />}>
            <ImportCsv relation={rel} onCancel={() => setImporting(false)} onDone={(n) => (setImporting(false), setImported(n))} />
          </Suspense>
        )}
      </Dialog>
      <Dialog open={!!editing} title={editing ? `Edit ${editing.column.name}` : ''} onClose={() => (setEditing(null), writes.update.reset())}>
        {editing && editing.column.udt === 'bytea' ? (
          <BytesEditor
            key={`${keyText(editing.row)}-${editing.column.name}`}
            schema={schema}
            table={table}
            rowKey={keyOf(editing.row, pk)}
            column={editing.column}
            value={editing.row[editing.column.name]}
            busy={writes.update.isPending}
            error={writes.update.error instanceof ApiError ? writes.update.error.message : writes.update.error ? 'The change was not saved.' : null}
            onDone={() => setEditing(null)}
            onSetNull={() => saveEdit(null)}
            onCancel={() => (setEditing(null), writes.update.reset())}
          />
        ) : editing && fks.has(editing.column.name) ? (
          <FkPicker
            schema={schema}
            table={table}
            column={editing.column.name}
            value={editing.row[editing.column.name]}
            nullable={editing.column.nullable}
            busy={writes.update.isPending}
            error={writes.update.error instanceof ApiError ? writes.update.error.message : writes.update.error ? 'The change was not saved.' : null}
            onPick={saveEdit}
            onCancel={() => (setEditing(null), writes.update.reset())}
          />
        ) : editing && (
          <CellEditor
            key={`${keyText(editing.row)}-${editing.column.name}`}
            column={editing.column}
            value={editing.row[editing.column.name]}
            busy={writes.update.isPending}
            error={writes.update.error instanceof ApiError ? writes.update.error.message : writes.update.error ? 'The change was not saved.' : null}
            onSave={saveEdit}
            onCancel={() => (setEditing(null), writes.update.reset())}
          />
        )}
      </Dialog>
      <Dialog open={!!inserting} title={inserting?.initial ? `Duplicate a row of ${table}` : `Insert a row into ${table}`} onClose={() => setInserting(null)}>
        {inserting && (
          <InsertRowForm
            relation={rel}
            initial={inserting.initial}
            pending={writes.insert.isPending}
            error={writes.insert.error}
            onCancel={() => setInserting(null)}
            onSubmit={(values) => writes.insert.mutate(values, { onSuccess: () => setInserting(null) })}
          />
        )}
      </Dialog>
      <Dialog open={confirmDelete} title="Delete rows" onClose={() => setConfirmDelete(false)}>
        <p className="text-sm">
          Delete {selected.size} row{selected.size > 1 ? 's' : ''} from {schema}.{table}? This cannot be undone.
        </p>
        {writes.remove.error ? <ErrorNote error={writes.remove.error} /> : null}
        <div className="mt-3 flex justify-end gap-2">
          <Button variant="ghost" onClick={() => setConfirmDelete(false)}>
            Cancel
          </Button>
          <Button variant="danger" onClick={deleteSelected} disabled={writes.remove.isPending}>
            Delete
          </Button>
        </div>
      </Dialog>
    </section>
  );
}
