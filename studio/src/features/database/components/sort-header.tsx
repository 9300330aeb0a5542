import type { SortDir } from '../lib/format';

/** A column header that sorts its table: a button, with `aria-sort` on the header cell. */
export function SortHeader<K extends string>({
  label,
  column,
  sort,
  onSort,
  numeric = false,
}: {
  label: string;
  column: K;
  sort: { key: K; dir: SortDir };
  onSort: (s: { key: K; dir: SortDir }) => void;
  numeric?: boolean;
}) {
  const active = sort.key === column;
  const next: SortDir = active ? (sort.dir === 'asc' ? 'desc' : 'asc') : numeric ? 'desc' : 'asc';
  return (
    <th scope="col" aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'} className={`px-2 py-1 font-medium text-slate-800 ${numeric ? 'text-right' : ''}`}>
      <button type="button" className="inline-flex items-center gap-1 rounded hover:underline focus-visible:outline-2 focus-visible:outline-emerald-600" onClick={() => onSort({ key: column, dir: next })}>
        {label}
        <span aria-hidden="true" className="text-xs">{active ? (sort.dir === 'asc' ? '▲' : '▼') : '↕'}</span>
      </button>
    </th>
  );
}
