import { useEffect, useState, type FormEvent } from 'react';
import { Dialog } from '@/components/ui/dialog';
import { notify } from '@/lib/notify';
import { FormActions } from '@/components/ui/button';
import { Alert, SelectField, TextAreaField, TextField } from '@/components/ui/field';
import { bookingReference, formatPrice } from '@/lib/format';
import { fieldErrors } from '@/lib/validation';
import { errorCode } from '@/lib/errors';
import type { AdminBooking } from '../types';
import { bookingEditSchemas, PREMIUM_DURATIONS } from '../schemas/booking-edit-schema';
import { airportLabels, bookingStatusChoices, bookingStatusLabels, diagnosticLabels, premiumLabels } from '../lib/labels';
import { useUpdateBooking, type BookingUpdate } from '../api/bookings';

type Values = Record<string, string>;

const fieldsByKind = {
  vehicle: ['booking_status', 'start_date', 'end_date', 'pickup_location', 'dropoff_location', 'special_requests'],
  airport: ['booking_status', 'service_type', 'flight_type', 'flight_date', 'flight_time', 'flight_number', 'passengers', 'special_requests'],
  diagnostic: ['booking_status', 'service_type', 'appointment_date', 'appointment_time', 'vehicle_type', 'customer_email', 'customer_phone', 'notes'],
  premium: ['booking_status', 'service_type', 'start_date', 'duration_days', 'customer_name', 'customer_email', 'customer_phone', 'special_requirements'],
} as const;

function initial(b: AdminBooking): Values {
  const out: Values = {};
  for (const k of fieldsByKind[b.kind]) {
    const v = b.raw[k];
    out[k] = v == null ? '' : k.endsWith('_time') ? String(v).slice(0, 5) : String(v);
  }
  return out;
}

const options = (labels: Record<string, string>) =>
  Object.entries(labels).map(([value, label]) => (
    <option key={value} value={value}>
      {label}
    </option>
  ));

export function BookingEditDialog({ booking, onClose }: { booking: AdminBooking | null; onClose: () => void }) {
  const [values, setValues] = useState<Values>({});
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const update = useUpdateBooking();
  useEffect(() => {
    if (booking) {
      setValues(initial(booking));
      setErrors({});
      update.reset();
    }
  }, [booking]);

  if (!booking) return <Dialog open={false} onClose={onClose} title="">{null}</Dialog>;
  const schema = bookingEditSchemas[booking.kind];
  const set = (k: string) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [k]: e.target.value }));
  const text = (k: string, label: string, type = 'text', required = false) => (
    <TextField label={label} type={type} value={values[k] ?? ''} onChange={set(k)} error={errors[k]} required={required} />
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = schema.safeParse(values);
    if (!r.success) {
      setErrors(fieldErrors(r.error));
      return;
    }
    setErrors({});
    // conditional on the booking as shown: a booking changed meanwhile is not overwritten
    update.mutate(
      { booking, values: r.data as BookingUpdate },
      {
        onSuccess: () => {
          notify.success(`Réservation #${bookingReference(booking.id)} mise à jour`);
          onClose();
        },
      },
    );
  };

  return (
    <Dialog open onClose={onClose} title={`Modifier la réservation #${bookingReference(booking.id)}`} size="xl">
      <form noValidate onSubmit={submit} className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField label="Statut" value={values.booking_status ?? 'pending'} onChange={set('booking_status')}>
            {bookingStatusChoices(booking.booking_status in bookingStatusLabels ? booking.booking_status : 'pending').map((s) => (
              <option key={s} value={s}>
                {bookingStatusLabels[s]}
              </option>
            ))}
          </SelectField>
          {booking.kind === 'vehicle' && (
            <>
              {text('start_date', 'Date de début', 'date', true)}
              {text('end_date', 'Date de fin', 'date', true)}
              {text('pickup_location', 'Lieu de prise en charge')}
              {text('dropoff_location', 'Lieu de restitution')}
            </>
          )}
          {booking.kind === 'airport' && (
            <>
              <SelectField label="Service" value={values.service_type ?? ''} onChange={set('service_type')}>
                {options(airportLabels)}
              </SelectField>
              <SelectField label="Type de vol" value={values.flight_type ?? ''} onChange={set('flight_type')}>
                <option value="arrival">Arrivée</option>
                <option value="departure">Départ</option>
              </SelectField>
              {text('flight_date', 'Date du vol', 'date', true)}
              {text('flight_time', 'Heure du vol', 'time', true)}
              {text('flight_number', 'Numéro de vol', 'text', true)}
              <TextField label="Passagers" type="number" min={1} step={1} value={values.passengers ?? '1'} onChange={set('passengers')} error={errors.passengers} />
            </>
          )}
          {booking.kind === 'diagnostic' && (
            <>
              <SelectField label="Service" value={values.service_type ?? ''} onChange={set('service_type')}>
                {options(diagnosticLabels)}
              </SelectField>
              {text('appointment_date', 'Date du rendez-vous', 'date', true)}
              <SelectField label="Heure" value={values.appointment_time ?? ''} onChange={set('appointment_time')} error={errors.appointment_time}>
                {['09:00', '10:00', '11:00', '14:00', '15:00', '16:00'].map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </SelectField>
              {text('vehicle_type', 'Véhicule (marque et modèle)', 'text', true)}
              {text('customer_email', 'Email', 'email', true)}
              {text('customer_phone', 'Téléphone', 'tel', true)}
            </>
          )}
          {booking.kind === 'premium' && (
            <>
              <SelectField label="Service" value={values.service_type ?? ''} onChange={set('service_type')}>
                {options(premiumLabels)}
              </SelectField>
              {text('start_date', 'Date de début', 'date', true)}
              <SelectField label="Durée (jours)" value={values.duration_days ?? '1'} onChange={set('duration_days')} error={errors.duration_days}>
                {PREMIUM_DURATIONS.map((d) => (
                  <option key={d} value={d}>
                    {d}
                  </option>
                ))}
              </SelectField>
              {text('customer_name', 'Nom du client', 'text', true)}
              {text('customer_email', 'Email', 'email', true)}
              {text('customer_phone', 'Téléphone', 'tel', true)}
            </>
          )}
        </div>
        {booking.kind === 'vehicle' && <TextAreaField label="Demandes spéciales" value={values.special_requests ?? ''} onChange={set('special_requests')} />}
        {booking.kind === 'airport' && <TextAreaField label="Demandes spéciales" value={values.special_requests ?? ''} onChange={set('special_requests')} />}
        {booking.kind === 'diagnostic' && <TextAreaField label="Notes" value={values.notes ?? ''} onChange={set('notes')} />}
        {booking.kind === 'premium' && <TextAreaField label="Exigences particulières" value={values.special_requirements ?? ''} onChange={set('special_requirements')} />}
        <p className="rounded-lg bg-slate-50 px-3 py-2 text-sm text-slate-700">
          Montant actuel : <strong>{formatPrice(booking.total_amount)}</strong> — recalculé par le serveur selon le tarif quand les dates, le service, la durée ou le nombre de passagers changent.
        </p>
        {update.isError && (
          <Alert>{errorCode(update.error) === 'booking_changed' ? update.error.message : `Erreur lors de la modification : ${update.error.message}`}</Alert>
        )}
        <FormActions onCancel={onClose} submitLabel="Sauvegarder" busy={update.isPending} busyLabel="Sauvegarde…" cancelVariant="secondary" />
      </form>
    </Dialog>
  );
}
