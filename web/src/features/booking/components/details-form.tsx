import { ArrowLeft, ShieldCheck } from 'lucide-react';
import { Alert } from '@/components/ui/field';
import { Field, Form, TextAreaFormField, useZodForm } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { formatDate, formatDays, formatPercent, formatPrice, frenchTypography } from '@/lib/format';
import type { AvailableVehicle } from '@/types/database';
import { detailsSchema, type DetailsValues } from '../schemas/booking-schemas';

export function DetailsForm({
  vehicle,
  startDate,
  endDate,
  pickupLocation,
  dropoffLocation,
  defaults,
  busy,
  error,
  onBack,
  onSubmit,
}: {
  vehicle: AvailableVehicle;
  startDate: string;
  endDate: string;
  pickupLocation: string;
  dropoffLocation: string;
  defaults: { fullName: string; email: string; phone: string };
  busy: boolean;
  error: string | null;
  onBack: () => void;
  onSubmit: (v: DetailsValues) => void;
}) {
  // errors show once a field is left, then follow what is typed
  const form = useZodForm(detailsSchema, { defaultValues: { ...defaults, licenseNumber: '', specialRequests: '' } });
  const discount = Number(vehicle.discount_percent);

  return (
    <div className="grid gap-6 lg:grid-cols-5">
      <Form form={form} onValid={onSubmit} className="space-y-4 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm lg:col-span-3">
        <h2 className="text-xl font-bold text-blue-950">Finaliser votre réservation</h2>
        <p className="text-sm text-slate-600">Les champs marqués d'un astérisque (*) sont obligatoires.</p>
        <Field name="fullName" label="Nom complet" autoComplete="name" required />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field name="email" label="Email" type="email" autoComplete="email" required />
          <Field name="phone" label="Téléphone" type="tel" autoComplete="tel" placeholder="+243 81 234 5678" required />
        </div>
        <Field name="licenseNumber" label="Numéro de permis de conduire" autoComplete="off" required />
        <TextAreaFormField name="specialRequests" label="Demandes particulières" rows={3} placeholder="Siège enfant, livraison à l'hôtel…" />
        {error && <Alert>{error}</Alert>}
        <div className="flex flex-wrap items-center justify-between gap-3 pt-2">
          <button type="button" onClick={onBack} className="inline-flex items-center gap-1 text-sm font-semibold text-blue-900 hover:underline">
            <ArrowLeft className="h-4 w-4" aria-hidden="true" /> Retour à la recherche
          </button>
          <Button type="submit" disabled={busy}>
            {busy ? 'Réservation en cours…' : 'Confirmer la réservation'}
          </Button>
        </div>
      </Form>
      <aside className="h-fit rounded-2xl border border-slate-200 bg-white p-5 shadow-sm lg:col-span-2" aria-labelledby="summary-title">
        <h2 id="summary-title" className="text-lg font-bold text-blue-950">
          Récapitulatif
        </h2>
        <dl className="mt-4 grid grid-cols-2 gap-y-2 text-sm">
          <dt className="text-slate-600">Véhicule</dt>
          <dd className="font-semibold">{vehicle.name}</dd>
          <dt className="text-slate-600">Du</dt>
          <dd>{formatDate(startDate)}</dd>
          <dt className="text-slate-600">Au</dt>
          <dd>{formatDate(endDate)}</dd>
          <dt className="text-slate-600">Durée</dt>
          <dd>{formatDays(vehicle.days)}</dd>
          <dt className="text-slate-600">Prise en charge</dt>
          <dd>{pickupLocation || 'À convenir'}</dd>
          <dt className="text-slate-600">Retour</dt>
          <dd>{dropoffLocation || pickupLocation || 'À convenir'}</dd>
          <dt className="text-slate-600">Tarif de base</dt>
          <dd>
            {formatPrice(vehicle.base_total)} ({formatPrice(vehicle.daily_rate)} × {formatDays(vehicle.days)})
          </dd>
          <dt className="text-slate-600">Remise</dt>
          <dd>{discount > 0 ? `${formatPercent(-discount)} (-${formatPrice(Number(vehicle.base_total) - Number(vehicle.total))})` : 'Aucune'}</dd>
          <dt className="border-t border-slate-200 pt-2 font-bold text-blue-950">Total</dt>
          <dd className="border-t border-slate-200 pt-2 text-lg font-extrabold text-blue-950" data-testid="summary-total">
            {formatPrice(vehicle.total)}
          </dd>
        </dl>
        <p className="mt-4 flex items-start gap-2 rounded-lg bg-green-50 p-3 text-sm text-green-800">
          <ShieldCheck className="h-5 w-5 shrink-0" aria-hidden="true" /> {frenchTypography('Protection incluse : Assurance tous risques et assistance 24/7')}
        </p>
      </aside>
    </div>
  );
}
