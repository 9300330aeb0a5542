import { useEffect, useState } from 'react';
import { Search, SlidersHorizontal } from 'lucide-react';
import type { z } from 'zod';
import { Button } from '@/components/ui/button';
import { Field, Form, SelectFormField, useZodForm } from '@/components/ui/form';
import { addDaysIso, todayIso } from '@/lib/format';
import { categoryLabels } from '@/lib/labels';
import { CATEGORIES, FUEL_TYPES, SEAT_OPTIONS, searchSchema, TRANSMISSIONS, type SearchValues } from '../schemas/booking-schemas';

export interface SearchFormState {
  startDate: string;
  endDate: string;
  pickupLocation: string;
  dropoffLocation: string;
  category: string;
  maxPrice: string;
  minSeats: string;
  transmission: string;
  fuelType: string;
}

export function initialSearch(start?: string | null, end?: string | null): SearchFormState {
  const today = todayIso();
  const s = start && start >= today ? start : today;
  const e = end && end >= s ? end : addDaysIso(s, 1);
  return { startDate: s, endDate: e, pickupLocation: '', dropoffLocation: '', category: '', maxPrice: '1000', minSeats: '0', transmission: '', fuelType: '' };
}

/**
 * The search's form. The booking page holds it (`useSearchForm`), so that the values outlive the
 * form when the page goes on to the details; errors show on submit, as they always have.
 */
export function useSearchForm(initial: SearchFormState) {
  const schema = searchSchema(todayIso());
  // the selects hold strings; the schema says which ones it accepts
  return useZodForm(schema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: initial as z.input<typeof schema> });
}

export function SearchForm({ form, onSearch, busy }: { form: ReturnType<typeof useSearchForm>; onSearch: (v: SearchValues) => void; busy: boolean }) {
  const [advanced, setAdvanced] = useState(false);
  const [startDate = '', maxPrice = 1000] = form.watch(['startDate', 'maxPrice']);
  // the end date never precedes the start date
  useEffect(() => {
    const sub = form.watch((v, { name }) => {
      if (name === 'startDate' && v.startDate && v.endDate !== undefined && v.endDate < v.startDate) form.setValue('endDate', v.startDate);
    });
    return () => sub.unsubscribe();
  }, [form]);
  return (
    <Form form={form} onValid={onSearch} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm" aria-label="Recherche de véhicules">
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <Field name="startDate" label="Date de début" type="date" min={todayIso()} required />
        <Field name="endDate" label="Date de fin" type="date" min={startDate} required />
        <Field name="pickupLocation" label="Lieu de prise en charge" placeholder="Gombe, aéroport de N'djili…" />
        <Field name="dropoffLocation" label="Lieu de retour" placeholder="Même lieu" />
      </div>
      <button
        type="button"
        className="mt-4 inline-flex items-center gap-2 text-sm font-semibold text-blue-900 hover:underline"
        aria-expanded={advanced}
        aria-controls="advanced-filters"
        onClick={() => setAdvanced((a) => !a)}
      >
        <SlidersHorizontal className="h-4 w-4" aria-hidden="true" /> Filtres avancés
      </button>
      {advanced && (
        <div id="advanced-filters" className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
          <SelectFormField name="category" label="Catégorie">
            <option value="">Toutes</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {categoryLabels[c]}
              </option>
            ))}
          </SelectFormField>
          <Field
            name="maxPrice"
            label={`Prix maximum par jour : ${Number(maxPrice) >= 1000 ? 'illimité' : `$${String(maxPrice)}`}`}
            type="range"
            min={0}
            max={1000}
            step={10}
            className="border-0 px-0 shadow-none accent-blue-900"
          />
          <SelectFormField name="minSeats" label="Places minimum">
            {SEAT_OPTIONS.map((s) => (
              <option key={s} value={s}>
                {s === 0 ? 'Toutes' : `${s}+`}
              </option>
            ))}
          </SelectFormField>
          <SelectFormField name="transmission" label="Transmission">
            <option value="">Toutes</option>
            {TRANSMISSIONS.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectFormField>
          <SelectFormField name="fuelType" label="Carburant">
            <option value="">Tous</option>
            {FUEL_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectFormField>
        </div>
      )}
      <div className="mt-5 flex justify-end">
        <Button type="submit" disabled={busy}>
          <Search className="h-4 w-4" aria-hidden="true" /> {busy ? 'Recherche…' : 'Rechercher'}
        </Button>
      </div>
    </Form>
  );
}
