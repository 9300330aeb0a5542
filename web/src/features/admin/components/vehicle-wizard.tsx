/** The six-step vehicle wizard (back-office.md section 2): create or edit a vehicle, photos in the public `vehicles` bucket. */
import { useEffect, useState, type ReactNode } from 'react';
import { AlertTriangle, ChevronLeft, ChevronRight, ImagePlus, Loader2, Plus, Star, Trash2, X } from 'lucide-react';
import { Dialog } from '@/components/ui/dialog';
import { Button } from '@/components/ui/button';
import { Alert, SelectField, TextAreaField, TextField } from '@/components/ui/field';
import { formatPrice, thumbnailUrl } from '@/lib/format';
import { useSession } from '@/lib/session';
import type { AdminVehicle, SeasonalRate } from '../types';
import { useSaveVehicle, useUploadVehicleImages, type SavedVehicle } from '../api/vehicles';
import { categoryLabel, rentalStatuses, rentalStatusLabels } from '../lib/labels';
import { pricePreview } from '../lib/stats';
import {
  addImages, emptySeasonalRate, emptyVehicleForm, ENGINE_TYPES, FUEL_TYPES, imageProblem, PHOTO_REQUIRED_MESSAGE, removeImage, setPrimary, stepValid, stepErrors, STEP_FIELDS,
  toVehiclePayload, TRANSMISSIONS, vehicleSchema, vehicleToForm, WIZARD_STEPS, type VehicleForm,
} from '../schemas/vehicle-schema';
import { fieldErrors } from '@/lib/validation';

const numberValue = (e: { target: { value: string } }) => (e.target.value === '' ? Number.NaN : Number(e.target.value));
const shown = (n: number) => (Number.isFinite(n) ? String(n) : '');
const SAFETY = ['ABS', 'Airbags frontaux', 'Airbags latéraux', 'Contrôle de stabilité', 'Caméra de recul', 'Radar de recul'];
const COMFORT = ['Climatisation', 'Bluetooth', 'GPS', 'Sièges chauffants', 'Toit ouvrant', 'Apple CarPlay'];

function Checklist({ legend, options, value, onChange }: { legend: string; options: string[]; value: string[]; onChange: (v: string[]) => void }) {
  return (
    <fieldset className="space-y-2">
      <legend className="text-sm font-medium text-slate-800">{legend}</legend>
      <div className="grid grid-cols-2 gap-2">
        {options.map((o) => (
          <label key={o} className="inline-flex items-center gap-2 text-sm">
            <input type="checkbox" className="h-4 w-4 accent-blue-900" checked={value.includes(o)} onChange={(e) => onChange(e.target.checked ? [...value, o] : value.filter((x) => x !== o))} />
            {o}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function ReviewBlock({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="rounded-lg border border-slate-200 p-3">
      <h3 className="mb-2 font-semibold text-blue-950">{title}</h3>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">{children}</dl>
    </div>
  );
}
const R = ({ k, v }: { k: string; v: ReactNode }) => (
  <>
    <dt className="text-slate-600">{k}</dt>
    <dd className="font-medium">{v}</dd>
  </>
);
const orNone = (v: string) => v.trim() || 'Non spécifiée';

export function VehicleWizard({ open, vehicle, onClose, onSaved }: { open: boolean; vehicle: AdminVehicle | null; onClose: () => void; onSaved: (v: SavedVehicle) => void }) {
  const { user } = useSession();
  const [step, setStep] = useState(0);
  const [form, setForm] = useState<VehicleForm>(emptyVehicleForm);
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [feature, setFeature] = useState('');
  const [days, setDays] = useState(7);
  const save = useSaveVehicle();
  const upload = useUploadVehicleImages();

  useEffect(() => {
    if (!open) return;
    setStep(0);
    setForm(vehicle ? vehicleToForm(vehicle) : emptyVehicleForm());
    setErrors({});
    setProblem(null);
    save.reset();
  }, [open, vehicle]);

  const set = <K extends keyof VehicleForm>(k: K, v: VehicleForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const setRate = (i: number, patch: Partial<SeasonalRate>) => setForm((f) => ({ ...f, seasonal_rates: f.seasonal_rates.map((x, j) => (j === i ? { ...x, ...patch } : x)) }));
  const valid = stepValid(step, form);
  const last = step === WIZARD_STEPS.length - 1;

  const onFiles = (files: FileList | null) => {
    setProblem(null);
    const list = Array.from(files ?? []);
    if (!list.length) return;
    const bad = list.map(imageProblem).find(Boolean);
    if (bad) {
      setProblem(bad);
      return;
    }
    upload.mutate(list, {
      onSuccess: (added) => setForm((f) => ({ ...f, images: addImages(f.images, added) })),
      onError: (e) => setProblem(e.message || 'Erreur de téléversement'),
    });
  };

  const submit = () => {
    setProblem(null);
    if (!user) {
      setProblem('Vous devez être connecté pour enregistrer un véhicule');
      return;
    }
    if (form.images.length === 0) {
      setProblem(PHOTO_REQUIRED_MESSAGE);
      return;
    }
    const r = vehicleSchema().safeParse(form);
    if (!r.success) {
      const errs = fieldErrors<string>(r.error);
      setErrors(errs);
      setProblem(Object.values(errs)[0] ?? 'Formulaire invalide');
      return;
    }
    save.mutate(
      { payload: toVehiclePayload(form), ...(vehicle ? { id: vehicle.id } : {}) },
      {
        onSuccess: (saved) => onSaved(saved),
        onError: (e) => setProblem(e.message || 'Erreur lors de la sauvegarde du véhicule'),
      },
    );
  };

  const preview = pricePreview(form.daily_rate, days, form.weekly_discount, form.monthly_discount);
  const num = (k: 'year' | 'seats' | 'doors' | 'mileage' | 'daily_rate' | 'weekly_discount' | 'monthly_discount' | 'security_deposit', label: string, extra: Record<string, number | string> = {}, required = false) => (
    <TextField label={label} type="number" value={shown(form[k])} onChange={(e) => set(k, numberValue(e))} error={errors[k]} required={required} {...extra} />
  );
  const text = (k: 'name' | 'make' | 'model' | 'color' | 'license_plate' | 'vin' | 'current_location' | 'home_location' | 'insurance_policy', label: string, required = false, extra: Record<string, number | string> = {}) => (
    <TextField label={label} value={form[k]} onChange={(e) => set(k, e.target.value)} error={errors[k]} required={required} {...extra} />
  );
  const date = (k: 'registration_expiry' | 'last_service_date' | 'next_service_due', label: string) => <TextField label={label} type="date" value={form[k]} onChange={(e) => set(k, e.target.value)} />;

  return (
    <Dialog open={open} onClose={onClose} title={vehicle ? 'Modifier le véhicule' : 'Enregistrer un nouveau véhicule'} size="4xl">
      <div className="mb-4 flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm font-semibold text-blue-900" aria-live="polite">
          Étape {step + 1} sur {WIZARD_STEPS.length} — {WIZARD_STEPS[step]}
        </p>
        {!valid && (
          <p className="inline-flex items-center gap-1 text-sm text-red-700">
            <AlertTriangle className="h-4 w-4" aria-hidden="true" /> Complétez les champs requis de cette étape
          </p>
        )}
      </div>
      <ol className="mb-4 grid grid-cols-6 gap-1" aria-label="Étapes">
        {WIZARD_STEPS.map((s, i) => (
          <li key={s} className={`h-1.5 rounded-full ${i <= step ? 'bg-blue-900' : 'bg-slate-200'}`} title={s} aria-current={i === step ? 'step' : undefined}>
            <span className="sr-only">{s}</span>
          </li>
        ))}
      </ol>

      <div className="max-h-96 overflow-y-auto pr-1">
        {step === 0 && (
          <div className="grid gap-4 sm:grid-cols-2">
            {text('name', 'Nom du véhicule', true)}
            <SelectField label="Catégorie" value={form.category} onChange={(e) => set('category', e.target.value as VehicleForm['category'])} required>
              {(['economic', 'luxury', 'suv', 'utility'] as const).map((c) => (
                <option key={c} value={c}>
                  {categoryLabel(c)}
                </option>
              ))}
            </SelectField>
            {text('make', 'Marque', true)}
            {text('model', 'Modèle', true)}
            {num('year', 'Année', { min: 1990, max: new Date().getFullYear() + 1 })}
            {text('color', 'Couleur')}
            {text('license_plate', 'Immatriculation')}
            {text('vin', 'Numéro VIN', false, { maxLength: 17 })}
            {num('daily_rate', 'Tarif journalier ($)', { min: 0, step: 0.01 }, true)}
          </div>
        )}
        {step === 1 && (
          <div className="grid gap-4 sm:grid-cols-2">
            <SelectField label="Moteur" value={form.engine_type} onChange={(e) => set('engine_type', e.target.value)}>
              {ENGINE_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t || 'Non précisé'}
                </option>
              ))}
            </SelectField>
            <SelectField label="Carburant" value={form.fuel_type} onChange={(e) => set('fuel_type', e.target.value as VehicleForm['fuel_type'])} required>
              {FUEL_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </SelectField>
            <SelectField label="Transmission" value={form.transmission} onChange={(e) => set('transmission', e.target.value as VehicleForm['transmission'])} required>
              {TRANSMISSIONS.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </SelectField>
            {num('seats', 'Places', { min: 1, max: 50 }, true)}
            {num('doors', 'Portes', { min: 2, max: 10 })}
            {num('mileage', 'Kilométrage', { min: 0 })}
            <Checklist legend="Sécurité" options={SAFETY} value={form.safety_features} onChange={(v) => set('safety_features', v)} />
            <Checklist legend="Confort" options={COMFORT} value={form.comfort_features} onChange={(v) => set('comfort_features', v)} />
          </div>
        )}
        {step === 2 && (
          <div className="space-y-4">
            <div className="grid gap-4 sm:grid-cols-2">
              {num('daily_rate', 'Tarif journalier ($)', { min: 0, step: 0.01 }, true)}
              {num('security_deposit', 'Caution ($)', { min: 0, step: 0.01, placeholder: '500.00' })}
              {num('weekly_discount', 'Remise 7 jours et plus (%)', { min: 0, max: 50, step: 0.1 })}
              {num('monthly_discount', 'Remise 30 jours et plus (%)', { min: 0, max: 50, step: 0.1 })}
            </div>
            <div className="rounded-lg bg-slate-50 p-3 text-sm" data-testid="price-preview">
              <label className="flex items-center gap-2 font-medium">
                Aperçu pour
                <input type="number" min={1} value={days} onChange={(e) => setDays(Math.max(1, Number(e.target.value) || 1))} className="w-20 rounded border border-slate-300 px-2 py-1" aria-label="Nombre de jours de l'aperçu" />
                jour(s)
              </label>
              <p className="mt-2">
                Total : {formatPrice(preview.total)}
                {preview.percent > 0 && (
                  <>
                    {' '}
                    → <strong>{formatPrice(preview.discounted)}</strong> (−{preview.percent} %)
                  </>
                )}
              </p>
            </div>
            <fieldset className="space-y-2">
              <legend className="text-sm font-medium text-slate-800">Tarifs saisonniers</legend>
              {form.seasonal_rates.map((r, i) => (
                <div key={r.id} className="grid gap-2 rounded-lg border border-slate-200 p-2 sm:grid-cols-5" data-testid="seasonal-rate">
                  <TextField label="Nom" value={r.name} onChange={(e) => setRate(i, { name: e.target.value })} />
                  <TextField label="Début" type="date" value={r.start_date} onChange={(e) => setRate(i, { start_date: e.target.value })} />
                  <TextField label="Fin" type="date" value={r.end_date} onChange={(e) => setRate(i, { end_date: e.target.value })} />
                  <TextField label="Multiplicateur" type="number" min={0.1} max={5} step={0.1} value={shown(r.rate_multiplier)} onChange={(e) => setRate(i, { rate_multiplier: numberValue(e) })} />
                  <div className="sm:col-span-4">
                    <TextField label="Description" value={r.description} onChange={(e) => setRate(i, { description: e.target.value })} placeholder="Haute saison, fêtes de fin d'année…" />
                  </div>
                  <div className="flex items-end">
                    <Button variant="ghost" onClick={() => set('seasonal_rates', form.seasonal_rates.filter((_, j) => j !== i))} aria-label={`Retirer le tarif saisonnier ${i + 1}`}>
                      <X className="h-4 w-4" aria-hidden="true" />
                    </Button>
                  </div>
                </div>
              ))}
              <Button variant="secondary" onClick={() => set('seasonal_rates', [...form.seasonal_rates, emptySeasonalRate()])}>
                <Plus className="h-4 w-4" aria-hidden="true" /> Ajouter un tarif saisonnier
              </Button>
            </fieldset>
          </div>
        )}
        {step === 3 && (
          <div className="space-y-4">
            <div className="flex gap-2">
              <div className="flex-1">
                <TextField label="Nouvelle caractéristique" value={feature} onChange={(e) => setFeature(e.target.value)} onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    if (feature.trim()) set('features', [...form.features, feature.trim()]);
                    setFeature('');
                  }
                }} />
              </div>
              <div className="flex items-end">
                <Button variant="secondary" onClick={() => {
                  if (feature.trim()) set('features', [...form.features, feature.trim()]);
                  setFeature('');
                }}>
                  <Plus className="h-4 w-4" aria-hidden="true" /> Ajouter
                </Button>
              </div>
            </div>
            {form.features.length > 0 && (
              <ul className="flex flex-wrap gap-2">
                {form.features.map((f, i) => (
                  <li key={`${f}-${i}`} className="inline-flex items-center gap-1 rounded-full bg-blue-50 px-3 py-1 text-sm text-blue-950">
                    {f}
                    <button type="button" onClick={() => set('features', form.features.filter((_, j) => j !== i))} aria-label={`Retirer ${f}`} className="rounded-full p-0.5 hover:bg-blue-100">
                      <X className="h-3 w-3" aria-hidden="true" />
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <div className="grid gap-4 sm:grid-cols-2">
              <SelectField label="Statut" value={form.rental_status} onChange={(e) => set('rental_status', e.target.value as VehicleForm['rental_status'])}>
                {rentalStatuses.map((s) => (
                  <option key={s} value={s}>
                    {rentalStatusLabels[s]}
                  </option>
                ))}
              </SelectField>
              {text('current_location', 'Emplacement actuel')}
              {text('home_location', "Agence d'attache")}
              {text('insurance_policy', "Police d'assurance")}
              {date('registration_expiry', "Expiration de l'immatriculation")}
              {date('last_service_date', 'Dernier entretien')}
              {date('next_service_due', 'Prochain entretien')}
            </div>
            <TextAreaField label="Description" value={form.description} onChange={(e) => set('description', e.target.value)} />
          </div>
        )}
        {step === 4 && (
          <div className="space-y-4">
            <label className="flex cursor-pointer flex-col items-center justify-center gap-2 rounded-xl border-2 border-dashed border-slate-300 p-6 text-center hover:border-blue-800 focus-within:ring-3 focus-within:ring-amber-400/60">
              <ImagePlus className="h-8 w-8 text-blue-900" aria-hidden="true" />
              <span className="font-medium">Ajouter des photos</span>
              <span className="text-xs text-slate-600">Images uniquement, 10 Mo maximum par fichier</span>
              <input type="file" accept="image/*" multiple className="sr-only" onChange={(e) => {
                onFiles(e.target.files);
                e.target.value = '';
              }} />
            </label>
            {form.images.length === 0 ? (
              <p className="text-sm text-slate-600">{PHOTO_REQUIRED_MESSAGE}.</p>
            ) : (
              <ul className="grid gap-3 sm:grid-cols-3" aria-label="Photos du véhicule">
                {form.images.map((img) => (
                  <li key={img.id} className="overflow-hidden rounded-lg border border-slate-200">
                    <img src={thumbnailUrl(img.url, 320, 224) ?? img.url} alt={img.title} className="h-28 w-full object-cover" />
                    <div className="flex items-center justify-between gap-1 p-2 text-xs">
                      <span className="truncate" title={img.title}>{img.title}</span>
                      <div className="flex shrink-0 gap-1">
                        <button type="button" onClick={() => set('images', setPrimary(form.images, img.id))} aria-pressed={img.is_primary} aria-label={`Photo principale : ${img.title}`} className={`rounded p-1 ${img.is_primary ? 'text-amber-600' : 'text-slate-500 hover:bg-slate-100'}`}>
                          <Star className="h-4 w-4" fill={img.is_primary ? 'currentColor' : 'none'} aria-hidden="true" />
                        </button>
                        <button type="button" onClick={() => set('images', removeImage(form.images, img.id))} aria-label={`Retirer ${img.title}`} className="rounded p-1 text-red-700 hover:bg-red-50">
                          <Trash2 className="h-4 w-4" aria-hidden="true" />
                        </button>
                      </div>
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        {step === 5 && (
          <div className="grid gap-3 sm:grid-cols-2" data-testid="wizard-review">
            <ReviewBlock title="Informations de base">
              <R k="Nom" v={form.name} />
              <R k="Véhicule" v={`${form.make} ${form.model} ${shown(form.year)}`} />
              <R k="Catégorie" v={categoryLabel(form.category)} />
              <R k="Couleur" v={orNone(form.color)} />
              <R k="Immatriculation" v={orNone(form.license_plate.toUpperCase())} />
            </ReviewBlock>
            <ReviewBlock title="Spécifications">
              <R k="Carburant" v={form.fuel_type} />
              <R k="Transmission" v={form.transmission} />
              <R k="Places / portes" v={`${shown(form.seats)} / ${shown(form.doors)}`} />
              <R k="Kilométrage" v={`${shown(form.mileage)} km`} />
            </ReviewBlock>
            <ReviewBlock title="Tarification">
              <R k="Tarif journalier" v={formatPrice(form.daily_rate)} />
              <R k="Remise 7 jours" v={`${shown(form.weekly_discount)} %`} />
              <R k="Remise 30 jours" v={`${shown(form.monthly_discount)} %`} />
              <R k="Caution" v={formatPrice(form.security_deposit)} />
            </ReviewBlock>
            <ReviewBlock title="Statut et photos">
              <R k="Statut" v={rentalStatusLabels[form.rental_status]} />
              <R k="Emplacement" v={orNone(form.current_location)} />
              <R k="Photos" v={`${form.images.length} photo(s)`} />
              <R k="Caractéristiques" v={form.features.length ? `${form.features.slice(0, 5).join(', ')}${form.features.length > 5 ? ` +${form.features.length - 5} autres` : ''}` : '—'} />
            </ReviewBlock>
            <div className="rounded-lg border border-slate-200 p-3 text-sm sm:col-span-2">
              <h3 className="mb-1 font-semibold text-blue-950">Description</h3>
              <p>{form.description.trim() || '—'}</p>
            </div>
          </div>
        )}
      </div>

      {problem && (
        <div className="mt-4">
          <Alert>{problem}</Alert>
        </div>
      )}
      <div className="mt-6 flex flex-wrap justify-between gap-2">
        <Button variant="secondary" onClick={() => setStep((s) => Math.max(0, s - 1))} disabled={step === 0}>
          <ChevronLeft className="h-4 w-4" aria-hidden="true" /> Précédent
        </Button>
        {last ? (
          <Button onClick={submit} disabled={save.isPending || !valid}>
            {save.isPending ? 'Enregistrement…' : vehicle ? 'Mettre à jour' : 'Enregistrer le véhicule'}
          </Button>
        ) : (
          <Button
            onClick={() => {
              // the step's own ranges first: an out-of-range value is shown where it was typed
              const stepErrs = stepErrors(step, form);
              setErrors((e) => ({ ...e, ...Object.fromEntries((STEP_FIELDS[step] ?? []).map((k) => [k, undefined])), ...stepErrs }));
              if (Object.keys(stepErrs).length === 0) setStep((s) => s + 1);
            }}
            disabled={!valid}
          >
            Suivant <ChevronRight className="h-4 w-4" aria-hidden="true" />
          </Button>
        )}
      </div>
      {upload.isPending && (
        <div className="fixed inset-0 z-50 flex items-center justify-center bg-slate-950/60" role="status">
          <div className="flex items-center gap-3 rounded-xl bg-white px-6 py-4 font-semibold">
            <Loader2 className="h-5 w-5 animate-spin" aria-hidden="true" /> Téléversement des images…
          </div>
        </div>
      )}
    </Dialog>
  );
}
