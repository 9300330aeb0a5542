import { useState } from 'react';
import type { Column, Filter, FilterOp } from '../api/tables';
import { Button } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/field';

const OPS: { op: FilterOp; label: string }[] = [
  { op: 'eq', label: '=' },
  { op: 'neq', label: '≠' },
  { op: 'lt', label: '<' },
  { op: 'lte', label: '≤' },
  { op: 'gt', label: '>' },
  { op: 'gte', label: '≥' },
  { op: 'like', label: 'like' },
  { op: 'ilike', label: 'ilike' },
  { op: 'is_null', label: 'is null' },
  { op: 'not_null', label: 'is not null' },
];

export const opLabel = (op: FilterOp) => OPS.find((o) => o.op === op)?.label ?? op;

/** Add filters (column, operator, value) and remove them; the server applies them. */
export function FilterBar({ columns, filters, onChange }: { columns: Column[]; filters: Filter[]; onChange: (f: Filter[]) => void }) {
  const [column, setColumn] = useState(columns[0]?.name ?? '');
  const [op, setOp] = useState<FilterOp>('eq');
  const [value, setValue] = useState('');
  const needsValue = op !== 'is_null' && op !== 'not_null';
  const add = () => {
    if (!column) return;
    onChange([...filters, needsValue ? { column, op, value } : { column, op }]);
    setValue('');
  };
  return (
    <div className="flex flex-wrap items-center gap-2">
      <form
        className="flex flex-wrap items-center gap-1"
        onSubmit={(e) => {
          e.preventDefault();
          add();
        }}
        aria-label="Add a filter"
      >
        <Select aria-label="Filter column" value={column} onChange={(e) => setColumn(e.target.value)} className="w-40">
          {columns.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </Select>
        <Select aria-label="Filter operator" value={op} onChange={(e) => setOp(e.target.value as FilterOp)} className="w-28">
          {OPS.map((o) => (
            <option key={o.op} value={o.op}>
              {o.label}
            </option>
          ))}
        </Select>
        {needsValue && <Input aria-label="Filter value" value={value} onChange={(e) => setValue(e.target.value)} className="w-44" placeholder="value" />}
        <Button type="submit">Add filter</Button>
      </form>
      {filters.map((f, i) => (
        <span key={i} className="inline-flex items-center gap-1 rounded-full bg-emerald-100 py-0.5 pr-1 pl-2 text-xs text-emerald-900">
          <span>
            {f.column} {opLabel(f.op)} {f.value !== undefined ? JSON.stringify(f.value) : ''}
          </span>
          <button
            type="button"
            className="rounded-full px-1 hover:bg-emerald-200"
            aria-label={`Remove filter on ${f.column}`}
            onClick={() => onChange(filters.filter((_, j) => j !== i))}
          >
            ×
          </button>
        </span>
      ))}
    </div>
  );
}
