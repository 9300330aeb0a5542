import { useRef, type ReactNode } from 'react';
import { flexRender, type Table } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';

export const ROW_HEIGHT = 30;

/**
 * A dense grid over a TanStack table whose rows are virtualised: only the rows in view are in
 * the DOM, so a page of a thousand rows scrolls as smoothly as ten. `onNearEnd` asks for the
 * next page when the last rows come into view.
 */
export function DataGrid<T>({
  table,
  label,
  onNearEnd,
  footer,
  rowClassName,
}: {
  table: Table<T>;
  label: string;
  onNearEnd?: () => void;
  footer?: ReactNode;
  rowClassName?: (row: T) => string;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = table.getRowModel().rows;
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const last = items[items.length - 1];
  if (onNearEnd && last && last.index >= rows.length - 20) queueMicrotask(onNearEnd);
  const width = table.getTotalSize();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (last?.end ?? 0);
  return (
    <div ref={scroller} className="relative min-h-0 flex-1 overflow-auto bg-white" tabIndex={0} aria-label={`${label} (scrollable)`} role="region">
      <table role="grid" aria-label={label} aria-rowcount={rows.length + 1} className="border-separate border-spacing-0 text-[13px]" style={{ width, tableLayout: 'fixed' }}>
        <thead className="sticky top-0 z-10 bg-slate-100">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th
                  key={header.id}
                  scope="col"
                  style={{ width: header.getSize() }}
                  className="h-8 border-r border-b border-slate-300 px-2 text-left font-semibold text-slate-800"
                >
                  {header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {padTop > 0 && (
            <tr aria-hidden="true">
              <td style={{ height: padTop }} />
            </tr>
          )}
          {items.map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            return (
              <tr key={row.id} aria-rowindex={item.index + 2} className={`hover:bg-emerald-50/60 ${rowClassName?.(row.original) ?? ''}`} style={{ height: ROW_HEIGHT }}>
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} style={{ width: cell.column.getSize(), maxWidth: cell.column.getSize() }} className="cell border-r border-b border-slate-200 px-2">
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                ))}
              </tr>
            );
          })}
          {padBottom > 0 && (
            <tr aria-hidden="true">
              <td style={{ height: padBottom }} />
            </tr>
          )}
        </tbody>
      </table>
      {footer}
    </div>
  );
}
