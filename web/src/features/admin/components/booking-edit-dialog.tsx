import type { z } from 'zod';
import { Dialog } from '@/components/ui/dialog';
import { notify } from '@/lib/notify';
import { FormActions } from '@/components/ui/button';
import { Alert } from '@/components/ui/field';
import { Field, Form, SelectFormField, TextAreaFormField, useZodForm } from '@/components/ui/form';
import { bookingReference, formatPrice } from '@/lib/format';
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
  if (!booking) return <Dialog open={false} onClose={onClose} title="">{null}</Dialog>;
  // a new form per booking: its values, errors and the last save start afresh
  return <BookingEditForm key={booking.id} booking={booking} onClose={onClose} />;
}

function BookingEditForm({ booking, onClose }: { booking: AdminBooking; onClose: () => void }) {
  // the schema of the booking's kind; the form's values are the strings of its inputs
  const schema = bookingEditSchemas[booking.kind] as unknown as z.ZodType<Values, Values>;
  // errors show on submit only, as they always have in this dialog
  const form = useZodForm(schema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: initial(booking) });
  const update = useUpdateBooking();
  const text = (k: string, label: string, type = 'text', required = false) => <Field name={k} label={label} type={type} required={required} />;

  const submit = (values: Values) => {
    // conditional on the booking as shown: a booking changed meanwhile is not overwritten
    update.mutate(
      { booking, values: values as unknown as BookingUpdate },
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
      <Form form={form} onValid={submit} className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectFormField name="booking_status" label="Statut">
            {bookingStatusChoices(booking.booking_status in bookingStatusLabels ? booking.booking_status : 'pending').map((s) => (
              <option key={s} value={s}>
                {bookingStatusLabels[s]}
              </option>
            ))}
          </SelectFormField>
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
              <SelectFormField name="service_type" label="Service">
                {options(airportLabels)}
              </SelectFormField>
              <SelectFormField name="flight_type" label="Type de vol">
                <option value="arrival">Arrivée</option>
                <option value="departure">Départ</option>
              </SelectFormField>
              {text('flight_date', 'Date du vol', 'date', true)}
              {text('flight_time', 'Heure du vol', 'time', true)}
              {text('flight_number', 'Numéro de vol', 'text', true)}
              <Field name="passengers" label="Passagers" type="number" min={1} step={1} />
            </>
          )}
          {booking.kind === 'diagnostic' && (
            <>
              <SelectFormField name="service_type" label="Service">
                {options(diagnosticLabels)}
              </SelectFormField>
              {text('appointment_date', 'Date du rendez-vous', 'date', true)}
              <SelectFormField name="appointment_time" label="Heure">
                {['09:00', '10:00', '11:00', '14:00', '15:00', '16:00'].map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </SelectFormField>
              {text('vehicle_type', 'Véhicule (marque et modèle)', 'text', true)}
              {text('customer_email', 'Email', 'email', true)}
              {text('customer_phone', 'Téléphone', 'tel', true)}
            </>
          )}
          {booking.kind === 'premium' && (
            <>
              <SelectFormField name="service_type" label="Service">
                {options(premiumLabels)}
              </SelectFormField>
              {text('start_date', 'Date de début', 'date', true)}
              <SelectFormField name="duration_days" label="Durée (jours)">
                {PREMIUM_DURATIONS.map((d) => (
                  <option key={d} value={d}>
                    {d}
                  </option>
                ))}
              </SelectFormField>
              {text('customer_name', 'Nom du client', 'text', true)}
              {text('customer_email', 'Email', 'email', true)}
              {text('customer_phone', 'Téléphone', 'tel', true)}
            </>
          )}
        </div>
        {booking.kind === 'vehicle' && <TextAreaFormField name="special_requests" label="Demandes spéciales" />}
        {booking.kind === 'airport' && <TextAreaFormField name="special_requests" label="Demandes spéciales" />}
        {booking.kind === 'diagnostic' && <TextAreaFormField name="notes" label="Notes" />}
        {booking.kind === 'premium' && <TextAreaFormField name="special_requirements" label="Exigences particulières" />}
        <p className="rounded-lg bg-slate-50 px-3 py-2 text-sm text-slate-700">
          Montant actuel : <strong>{formatPrice(booking.total_amount)}</strong> — recalculé par le serveur selon le tarif quand les dates, le service, la durée ou le nombre de passagers changent.
        </p>
        {update.isError && (
          <Alert>{errorCode(update.error) === 'booking_changed' ? update.error.message : `Erreur lors de la modification : ${update.error.message}`}</Alert>
        )}
        <FormActions onCancel={onClose} submitLabel="Sauvegarder" busy={update.isPending} busyLabel="Sauvegarde…" cancelVariant="secondary" />
      </Form>
    </Dialog>
  );
}
