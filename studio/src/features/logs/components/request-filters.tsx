import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { filtersSchema, NO_FILTERS, RANGES, STATUSES, SURFACES, type RequestFilters } from '../lib/filters';
import { Button } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/field';

const RANGE_LABELS: Record<(typeof RANGES)[number], string> = {
  '15m': 'Last 15 minutes',
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  all: 'Everything kept',
  custom: 'Custom range',
};

/** The request log's filter bar: applied on Enter or "Apply", checked first. */
export function RequestFiltersBar({ value, onApply }: { value: RequestFilters; onApply: (f: RequestFilters) => void }) {
  const form = useForm<RequestFilters>({ resolver: zodResolver(filtersSchema), values: value });
  const errors = form.formState.errors;
  const range = form.watch('range');
  const firstError = errors.user?.message ?? errors.requestId?.message ?? errors.status?.message ?? errors.from?.message ?? errors.to?.message;
  return (
    <form role="search" aria-label="Filter requests" noValidate className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2" onSubmit={form.handleSubmit(onApply)}>
      <Select aria-label="Surface" className="w-32" {...form.register('surface')}>
        <option value="">Any surface</option>
        {SURFACES.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </Select>
      <Input aria-label="Path contains" placeholder="Path contains" className="w-48" {...form.register('path')} />
      <Select aria-label="Status" className="w-28" {...form.register('status')}>
        <option value="">Any status</option>
        {STATUSES.map((s) => (
          <option key={s} value={s}>
            {s === 'error' ? '4xx + 5xx' : s}
          </option>
        ))}
      </Select>
      <Input aria-label="User id" aria-invalid={!!errors.user} placeholder="User id (UUID)" className="w-72 font-mono" {...form.register('user')} />
      <Input aria-label="Request id" aria-invalid={!!errors.requestId} placeholder="Request id" className="w-64 font-mono" {...form.register('requestId')} />
      <Select aria-label="Time range" className="w-40" {...form.register('range')}>
        {RANGES.map((r) => (
          <option key={r} value={r}>
            {RANGE_LABELS[r]}
          </option>
        ))}
      </Select>
      {range === 'custom' && (
        <>
          <Input type="datetime-local" aria-label="From" aria-invalid={!!errors.from} className="w-52" {...form.register('from')} />
          <Input type="datetime-local" aria-label="To" aria-invalid={!!errors.to} className="w-52" {...form.register('to')} />
        </>
      )}
      <Button type="submit" variant="primary">
        Apply
      </Button>
      <Button
        variant="ghost"
        onClick={() => {
          form.reset(NO_FILTERS);
          onApply(NO_FILTERS);
        }}
      >
        Clear
      </Button>
      {firstError && (
        <p role="alert" className="w-full text-xs text-red-700">
          {firstError}
        </p>
      )}
    </form>
  );
}
