/**
 * The six-step vehicle wizard (back-office.md section 2): create or edit a vehicle, photos in the
 * public `vehicles` bucket. One form of `vehicleSchema` holds the vehicle across the steps;
 * « Suivant » checks the step's own fields (`STEP_FIELDS`) and shows their errors where they were
 * typed, saving checks them all. Errors show then only, and stay until the next check.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { useFieldArray, type FieldErrors, type PathValue } from 'react-hook-form';
import type { z } from 'zod';
import { AlertTriangle, ChevronLeft, ChevronRight, ImagePlus, Loader2, Plus, Star, Trash2, X } from 'lucide-react';
import { Dialog } from '@/components/ui/dialog';
import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/field';
import { Field, firstError, Form, NumberFormField, SelectFormField, TextAreaFormField, useZodForm } from '@/components/ui/form';
import { formatPrice, thumbnailUrl } from '@/lib/format';
import { useSession } from '@/lib/session';
import type { AdminVehicle } from '../types';
import { useSaveVehicle, useUploadVehicleImages, type SavedVehicle } from '../api/vehicles';
import { categoryLabel, rentalStatuses, rentalStatusLabels } from '../lib/labels';
import { pricePreview } from '../lib/stats';
import {
  addImages, emptySeasonalRate, emptyVehicleForm, ENGINE_TYPES, FUEL_TYPES, imageProblem, PHOTO_REQUIRED_MESSAGE, removeImage, setPrimary, stepValid, STEP_FIELDS,
  toVehiclePayload, TRANSMISSIONS, vehicleSchema, vehicleToForm, WIZARD_STEPS, type VehicleForm,
} from '../schemas/vehicle-schema';

/** The options of a select whose values are their own labels. */
const choices = (values: readonly string[]) =>
  values.map((v) => (
    <option key={v} value={v}>
      {v}
    </option>
  ));
const shown = (n: number) => (Number.isFinite(n) ? String(n) : '');
const SAFETY = ['ABS', 'Airbags frontaux', 'Airbags latéraux', 'Contrôle de stabilité', 'Caméra de recul', 'Radar de recul'];
const COMFORT = ['Climatisation', 'Bluetooth', 'GPS', 'Sièges chauffants', 'Toit ouvrant', 'Apple CarPlay'];

/** Check boxes over a list of the form (set whole: a saved list may hold entries not offered here, and keeps them). */
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

/** The wizard's form: the vehicle, and the draft of the next entry of its features (not saved). */
type WizardValues = VehicleForm & { newFeature: string };
const wizardValues = (v: VehicleForm): WizardValues => ({ ...v, newFeature: '' });
// The schema checks the fields it has rules for and lets the others through (`loose`): the form holds all of them.
const wizardSchema = () => vehicleSchema() as unknown as z.ZodType<WizardValues, WizardValues>;

export function VehicleWizard({ open, vehicle, onClose, onSaved }: { open: boolean; vehicle: AdminVehicle | null; onClose: () => void; onSaved: (v: SavedVehicle) => void }) {
  const { user } = useSession();
  const [step, setStep] = useState(0);
  const form = useZodForm(wizardSchema(), { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: wizardValues(emptyVehicleForm()) });
  const rates = useFieldArray({ control: form.control, name: 'seasonal_rates' });
  /** What the wizard says about its photos and its save (a refused file, the server's refusal, the first invalid field). */
  const [problem, setProblem] = useState<string | null>(null);
  /** How many days the price preview is for: a setting of the preview, not of the vehicle. */
  const [days, setDays] = useState(7);
  const save = useSaveVehicle();
  const upload = useUploadVehicleImages();

  useEffect(() => {
    if (!open) return;
    setStep(0);
    form.reset(wizardValues(vehicle ? vehicleToForm(vehicle) : emptyVehicleForm()));
    setProblem(null);
    save.reset();
  }, [open, vehicle]);

  const values = form.watch();
  const set = <K extends 'features' | 'images' | 'safety_features' | 'comfort_features'>(k: K, v: PathValue<WizardValues, K>) => form.setValue(k, v);
  const addFeature = () => {
    const feature = form.getValues('newFeature').trim();
    if (feature) set('features', [...form.getValues('features'), feature]);
    form.setValue('newFeature', '');
  };
  const valid = stepValid(step, values);
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
      onSuccess: (added) => set('images', addImages(form.getValues('images'), added)),
      onError: (e) => setProblem(e.message || 'Erreur de téléversement'),
    });
  };

  /** Saves once every field is valid (the form's values as typed: the payload trims and upper-cases them itself). */
  const submit = () => {
    setProblem(null);
    if (!user) {
      setProblem('Vous devez être connecté pour enregistrer un véhicule');
      return;
    }
    save.mutate(
      { payload: toVehiclePayload(form.getValues()), ...(vehicle ? { id: vehicle.id } : {}) },
      {
        onSuccess: (saved) => onSaved(saved),
        onError: (e) => setProblem(e.message || 'Erreur lors de la sauvegarde du véhicule'),
      },
    );
  };
  const refused = (errors: FieldErrors<WizardValues>) => setProblem(firstError(errors)?.message ?? 'Formulaire invalide');

  /** « Suivant »: the step's own ranges first, so an out-of-range value is shown where it was typed. */
  const next = async () => {
    if (await form.trigger([...(STEP_FIELDS[step] ?? [])])) setStep((s) => s + 1);
  };

  const preview = pricePreview(values.daily_rate, days, values.weekly_discount, values.monthly_discount);
  const num = (k: 'year' | 'seats' | 'doors' | 'mileage' | 'daily_rate' | 'weekly_discount' | 'monthly_discount' | 'security_deposit', label: string, extra: Record<string, number | string> = {}, required = false) => (
    <NumberFormField name={k} label={label} required={required} {...extra} />
  );
  const text = (k: 'name' | 'make' | 'model' | 'color' | 'license_plate' | 'vin' | 'current_location' | 'home_location' | 'insurance_policy', label: string, required = false, extra: Record<string, number | string> = {}) => (
    <Field name={k} label={label} required={required} {...extra} />
  );
  const date = (k: 'registration_expiry' | 'last_service_date' | 'next_service_due', label: string) => <Field name={k} label={label} type="date" />;

  return (
    <Dialog open={open} onClose={onClose} title={vehicle ? 'Modifier le véhicule' : 'Enregistrer un nouveau véhicule'} size="4xl">
      <Form form={form} onValid={submit} onInvalid={refused}>
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
              <SelectFormField name="category" label="Catégorie" required>
                {(['economic', 'luxury', 'suv', 'utility'] as const).map((c) => (
                  <option key={c} value={c}>
                    {categoryLabel(c)}
                  </option>
                ))}
              </SelectFormField>
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
              <SelectFormField name="engine_type" label="Moteur">
                {ENGINE_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {t || 'Non précisé'}
                  </option>
                ))}
              </SelectFormField>
              <SelectFormField name="fuel_type" label="Carburant" required>
                {choices(FUEL_TYPES)}
              </SelectFormField>
              <SelectFormField name="transmission" label="Transmission" required>
                {choices(TRANSMISSIONS)}
              </SelectFormField>
              {num('seats', 'Places', { min: 1, max: 50 }, true)}
              {num('doors', 'Portes', { min: 2, max: 10 })}
              {num('mileage', 'Kilométrage', { min: 0 })}
              <Checklist legend="Sécurité" options={SAFETY} value={values.safety_features} onChange={(v) => set('safety_features', v)} />
              <Checklist legend="Confort" options={COMFORT} value={values.comfort_features} onChange={(v) => set('comfort_features', v)} />
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
                {rates.fields.map((r, i) => (
                  <div key={r.id} className="grid gap-2 rounded-lg border border-slate-200 p-2 sm:grid-cols-5" data-testid="seasonal-rate">
                    <Field name={`seasonal_rates.${i}.name`} label="Nom" />
                    <Field name={`seasonal_rates.${i}.start_date`} label="Début" type="date" />
                    <Field name={`seasonal_rates.${i}.end_date`} label="Fin" type="date" />
                    <NumberFormField name={`seasonal_rates.${i}.rate_multiplier`} label="Multiplicateur" min={0.1} max={5} step={0.1} />
                    <div className="sm:col-span-4">
                      <Field name={`seasonal_rates.${i}.description`} label="Description" placeholder="Haute saison, fêtes de fin d'année…" />
                    </div>
                    <div className="flex items-end">
                      <Button variant="ghost" onClick={() => rates.remove(i)} aria-label={`Retirer le tarif saisonnier ${i + 1}`}>
                        <X className="h-4 w-4" aria-hidden="true" />
                      </Button>
                    </div>
                  </div>
                ))}
                <Button variant="secondary" onClick={() => rates.append(emptySeasonalRate())}>
                  <Plus className="h-4 w-4" aria-hidden="true" /> Ajouter un tarif saisonnier
                </Button>
              </fieldset>
            </div>
          )}
          {step === 3 && (
            <div className="space-y-4">
              <div className="flex gap-2">
                <div className="flex-1">
                  <Field
                    name="newFeature"
                    label="Nouvelle caractéristique"
                    onKeyDown={(e) => {
                      if (e.key === 'Enter') {
                        e.preventDefault();
                        addFeature();
                      }
                    }}
                  />
                </div>
                <div className="flex items-end">
                  <Button variant="secondary" onClick={addFeature}>
                    <Plus className="h-4 w-4" aria-hidden="true" /> Ajouter
                  </Button>
                </div>
              </div>
              {values.features.length > 0 && (
                <ul className="flex flex-wrap gap-2">
                  {values.features.map((f, i) => (
                    <li key={`${f}-${i}`} className="inline-flex items-center gap-1 rounded-full bg-blue-50 px-3 py-1 text-sm text-blue-950">
                      {f}
                      <button type="button" onClick={() => set('features', values.features.filter((_, j) => j !== i))} aria-label={`Retirer ${f}`} className="rounded-full p-0.5 hover:bg-blue-100">
                        <X className="h-3 w-3" aria-hidden="true" />
                      </button>
                    </li>
                  ))}
                </ul>
              )}
              <div className="grid gap-4 sm:grid-cols-2">
                <SelectFormField name="rental_status" label="Statut">
                  {rentalStatuses.map((s) => (
                    <option key={s} value={s}>
                      {rentalStatusLabels[s]}
                    </option>
                  ))}
                </SelectFormField>
                {text('current_location', 'Emplacement actuel')}
                {text('home_location', "Agence d'attache")}
                {text('insurance_policy', "Police d'assurance")}
                {date('registration_expiry', "Expiration de l'immatriculation")}
                {date('last_service_date', 'Dernier entretien')}
                {date('next_service_due', 'Prochain entretien')}
              </div>
              <TextAreaFormField name="description" label="Description" />
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
              {values.images.length === 0 ? (
                <p className="text-sm text-slate-600">{PHOTO_REQUIRED_MESSAGE}.</p>
              ) : (
                <ul className="grid gap-3 sm:grid-cols-3" aria-label="Photos du véhicule">
                  {values.images.map((img) => (
                    <li key={img.id} className="overflow-hidden rounded-lg border border-slate-200">
                      <img src={thumbnailUrl(img.url, 320, 224) ?? img.url} alt={img.title} className="h-28 w-full object-cover" />
                      <div className="flex items-center justify-between gap-1 p-2 text-xs">
                        <span className="truncate" title={img.title}>{img.title}</span>
                        <div className="flex shrink-0 gap-1">
                          <button type="button" onClick={() => set('images', setPrimary(values.images, img.id))} aria-pressed={img.is_primary} aria-label={`Photo principale : ${img.title}`} className={`rounded p-1 ${img.is_primary ? 'text-amber-600' : 'text-slate-500 hover:bg-slate-100'}`}>
                            <Star className="h-4 w-4" fill={img.is_primary ? 'currentColor' : 'none'} aria-hidden="true" />
                          </button>
                          <button type="button" onClick={() => set('images', removeImage(values.images, img.id))} aria-label={`Retirer ${img.title}`} className="rounded p-1 text-red-700 hover:bg-red-50">
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
                <R k="Nom" v={values.name} />
                <R k="Véhicule" v={`${values.make} ${values.model} ${shown(values.year)}`} />
                <R k="Catégorie" v={categoryLabel(values.category)} />
                <R k="Couleur" v={orNone(values.color)} />
                <R k="Immatriculation" v={orNone(values.license_plate.toUpperCase())} />
              </ReviewBlock>
              <ReviewBlock title="Spécifications">
                <R k="Carburant" v={values.fuel_type} />
                <R k="Transmission" v={values.transmission} />
                <R k="Places / portes" v={`${shown(values.seats)} / ${shown(values.doors)}`} />
                <R k="Kilométrage" v={`${shown(values.mileage)} km`} />
              </ReviewBlock>
              <ReviewBlock title="Tarification">
                <R k="Tarif journalier" v={formatPrice(values.daily_rate)} />
                <R k="Remise 7 jours" v={`${shown(values.weekly_discount)} %`} />
                <R k="Remise 30 jours" v={`${shown(values.monthly_discount)} %`} />
                <R k="Caution" v={formatPrice(values.security_deposit)} />
              </ReviewBlock>
              <ReviewBlock title="Statut et photos">
                <R k="Statut" v={rentalStatusLabels[values.rental_status]} />
                <R k="Emplacement" v={orNone(values.current_location)} />
                <R k="Photos" v={`${values.images.length} photo(s)`} />
                <R k="Caractéristiques" v={values.features.length ? `${values.features.slice(0, 5).join(', ')}${values.features.length > 5 ? ` +${values.features.length - 5} autres` : ''}` : '—'} />
              </ReviewBlock>
              <div className="rounded-lg border border-slate-200 p-3 text-sm sm:col-span-2">
                <h3 className="mb-1 font-semibold text-blue-950">Description</h3>
                <p>{values.description.trim() || '—'}</p>
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
            // keyed apart: the click on « Suivant » that opens the last step must not land on a submit button in its place
            <Button key="save" type="submit" disabled={save.isPending || !valid}>
              {save.isPending ? 'Enregistrement…' : vehicle ? 'Mettre à jour' : 'Enregistrer le véhicule'}
            </Button>
          ) : (
            <Button key="next" onClick={() => void next()} disabled={!valid}>
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
      </Form>
    </Dialog>
  );
}
