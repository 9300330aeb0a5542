import { useState, type FormEvent } from 'react';
import { Search, SlidersHorizontal } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { SelectField, TextField } from '@/components/ui/field';
import { addDaysIso, todayIso } from '@/lib/format';
import { fieldErrors } from '@/lib/validation';
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

export function SearchForm({ value, onChange, onSearch, busy }: { value: SearchFormState; onChange: (v: SearchFormState) => void; onSearch: (v: SearchValues) => void; busy: boolean }) {
  const [advanced, setAdvanced] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<keyof SearchValues, string>>>({});
  const set = <K extends keyof SearchFormState>(k: K, v: SearchFormState[K]) => {
    const next = { ...value, [k]: v };
    // the end date never precedes the start date
    if (k === 'startDate' && next.endDate < next.startDate) next.endDate = next.startDate;
    onChange(next);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = searchSchema(todayIso()).safeParse(value);
    if (!r.success) {
      setErrors(fieldErrors<keyof SearchValues>(r.error));
      return;
    }
    setErrors({});
    onSearch(r.data);
  };
  return (
    <form noValidate onSubmit={submit} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm" aria-label="Recherche de véhicules">
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <TextField label="Date de début" type="date" min={todayIso()} value={value.startDate} onChange={(e) => set('startDate', e.target.value)} error={errors.startDate} required />
        <TextField label="Date de fin" type="date" min={value.startDate} value={value.endDate} onChange={(e) => set('endDate', e.target.value)} error={errors.endDate} required />
        <TextField label="Lieu de prise en charge" value={value.pickupLocation} onChange={(e) => set('pickupLocation', e.target.value)} placeholder="Gombe, aéroport de N'djili…" />
        <TextField label="Lieu de retour" value={value.dropoffLocation} onChange={(e) => set('dropoffLocation', e.target.value)} placeholder="Même lieu" />
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
          <SelectField label="Catégorie" value={value.category} onChange={(e) => set('category', e.target.value)}>
            <option value="">Toutes</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {categoryLabels[c]}
              </option>
            ))}
          </SelectField>
          <TextField
            label={`Prix maximum par jour : ${Number(value.maxPrice) >= 1000 ? 'illimité' : `$${value.maxPrice}`}`}
            type="range"
            min={0}
            max={1000}
            step={10}
            value={value.maxPrice}
            onChange={(e) => set('maxPrice', e.target.value)}
            error={errors.maxPrice}
            className="border-0 px-0 shadow-none accent-blue-900"
          />
          <SelectField label="Places minimum" value={value.minSeats} onChange={(e) => set('minSeats', e.target.value)}>
            {SEAT_OPTIONS.map((s) => (
              <option key={s} value={s}>
                {s === 0 ? 'Toutes' : `${s}+`}
              </option>
            ))}
          </SelectField>
          <SelectField label="Transmission" value={value.transmission} onChange={(e) => set('transmission', e.target.value)}>
            <option value="">Toutes</option>
            {TRANSMISSIONS.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectField>
          <SelectField label="Carburant" value={value.fuelType} onChange={(e) => set('fuelType', e.target.value)}>
            <option value="">Tous</option>
            {FUEL_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectField>
        </div>
      )}
      <div className="mt-5 flex justify-end">
        <Button type="submit" disabled={busy}>
          <Search className="h-4 w-4" aria-hidden="true" /> {busy ? 'Recherche…' : 'Rechercher'}
        </Button>
      </div>
    </form>
  );
}
