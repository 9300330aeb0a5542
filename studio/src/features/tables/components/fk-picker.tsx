import { useEffect, useRef, useState } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { fetchFkPage, structureKeys } from '../api/structure';
import { Button } from '@/components/ui/button';
import { NullOrCancel } from './null-or-cancel';
import { Input } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';
import { cellText } from '@/lib/format';

/**
 * The value of a foreign-key column chosen among the referenced table's rows: searched on the
 * server as you type, a few columns shown, more rows a page at a time. Arrow keys move, Enter
 * picks, Escape cancels.
 */
export function FkPicker({ schema, table, column, value, nullable, busy, error, onPick, onCancel }: {
  schema: string;
  table: string;
  column: string;
  value: unknown;
  nullable: boolean;
  busy?: boolean;
  error?: string | null;
  onPick: (value: unknown) => void;
  onCancel: () => void;
}) {
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  useEffect(() => {
    const t = setTimeout(() => setQ(typed.trim()), 200);
    return () => clearTimeout(t);
  }, [typed]);
  const pages = useInfiniteQuery({
    queryKey: structureKeys.fk(schema, table, column, q),
    queryFn: ({ pageParam, signal }) => fetchFkPage(schema, table, column, q, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next,
  });
  const first = pages.data?.pages[0];
  const rows = pages.data?.pages.flatMap((p) => p.rows) ?? [];
  const key = first?.column ?? '';
  const pick = (i: number) => rows[i] && onPick(rows[i]![key]);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'ArrowDown') (e.preventDefault(), setActive((a) => Math.min(a + 1, rows.length - 1)));
    else if (e.key === 'ArrowUp') (e.preventDefault(), setActive((a) => Math.max(a - 1, 0)));
    else if (e.key === 'Enter') (e.preventDefault(), pick(active));
    else if (e.key === 'Escape') (e.preventDefault(), onCancel());
  };
  const listId = `fk-${column}-options`;
  return (
    <div className="flex flex-col gap-2">
      <p className="text-xs text-slate-700">
        Now: <span className="font-mono">{cellText(value) ?? 'NULL'}</span>
        {first && (
          <>
            {' '}
            · references <span className="font-mono">{`${first.schema}.${first.table}.${first.column}`}</span>
          </>
        )}
      </p>
      <Input
        ref={input}
        type="search"
        role="combobox"
        aria-expanded="true"
        aria-controls={listId}
        aria-activedescendant={rows.length ? `${listId}-${active}` : undefined}
        aria-label={`Search ${first ? first.table : 'the referenced table'}`}
        placeholder="Search"
        value={typed}
        onChange={(e) => (setTyped(e.target.value), setActive(0))}
        onKeyDown={onKeyDown}
      />
      {pages.isPending && <Loading label="Searching…" />}
      {pages.error && <ErrorNote error={pages.error} />}
      {first && (
        <div className="max-h-72 overflow-auto rounded-md border border-slate-200 text-[13px]">
          <div aria-hidden="true" className="sticky top-0 grid gap-2 bg-slate-100 px-2 py-1 font-semibold" style={{ gridTemplateColumns: `repeat(${first.columns.length}, minmax(0, 1fr))` }}>
            {first.columns.map((c) => (
              <span key={c} className="truncate">
                {c}
              </span>
            ))}
          </div>
          <ul id={listId} role="listbox" aria-label="Referenced rows">
            {rows.map((r, i) => (
              <li
                key={String(r[key])}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                onClick={() => pick(i)}
                onMouseEnter={() => setActive(i)}
                className={`grid cursor-pointer gap-2 border-t border-slate-200 px-2 py-1 font-mono ${i === active ? 'bg-emerald-100' : 'hover:bg-emerald-50'}`}
                style={{ gridTemplateColumns: `repeat(${first.columns.length}, minmax(0, 1fr))` }}
              >
                {first.columns.map((c) => (
                  <span key={c} className="truncate">
                    {cellText(r[c]) ?? 'NULL'}
                  </span>
                ))}
              </li>
            ))}
          </ul>
          {rows.length === 0 && <p className="p-2 text-sm text-slate-600">No row matches.</p>}
        </div>
      )}
      {error && (
        <p role="alert" className="text-xs text-red-700">
          {error}
        </p>
      )}
      <div className="flex gap-2">
        {pages.hasNextPage && (
          <Button onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
            More rows
          </Button>
        )}
        <NullOrCancel nullable={nullable} onNull={() => onPick(null)} busy={busy} onCancel={onCancel} />
      </div>
    </div>
  );
}
