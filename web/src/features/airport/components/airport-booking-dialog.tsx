import { notify } from '@/lib/notify';
import { Dialog } from '@/components/ui/dialog';
import { FormActions } from '@/components/ui/button';
import { Alert } from '@/components/ui/field';
import { Field, Form, SelectFormField, TextAreaFormField, useZodForm } from '@/components/ui/form';
import { formatPrice, todayIso } from '@/lib/format';
import type { AirportBooking, AirportService } from '@/types/database';
import { airportFormSchema, parsePassengers, type AirportValues } from '../schemas/airport-schema';
import { useCreateAirportBooking } from '../api/airport';

export function AirportBookingDialog({
  open,
  onClose,
  services,
  initialService,
  userId,
  onBooked,
}: {
  open: boolean;
  onClose: () => void;
  services: AirportService[];
  initialService: AirportService['code'];
  userId: string;
  onBooked: (b: AirportBooking) => void;
}) {
  // errors show on submit only, as they always have in this dialog
  const form = useZodForm(airportFormSchema(todayIso()), {
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    defaultValues: { serviceType: initialService, flightType: 'arrival', date: '', time: '', flightNumber: '', passengers: '1', notes: '' },
  });
  const create = useCreateAirportBooking();
  const [serviceType, passengers = ''] = form.watch(['serviceType', 'passengers']);
  const service = services.find((s) => s.code === serviceType);
  const count = parsePassengers(passengers);

  const submit = (values: AirportValues) => {
    create.mutate(
      { userId, values },
      {
        onSuccess: (b) => {
          notify.success('Réservation soumise avec succès!');
          onBooked(b);
        },
        onError: (err) => notify.error(err.message || 'Erreur lors de la réservation. Veuillez réessayer.'),
      },
    );
  };

  return (
    <Dialog open={open} onClose={onClose} title="Réserver un service aéroportuaire">
      <Form form={form} onValid={submit} className="space-y-4">
        <SelectFormField name="serviceType" label="Type de service" required>
          {services.map((s) => (
            <option key={s.code} value={s.code}>
              {s.name} ({formatPrice(s.price)} par passager)
            </option>
          ))}
        </SelectFormField>
        <fieldset>
          <legend className="mb-1 text-sm font-medium text-slate-800">Type de vol</legend>
          <div className="flex gap-4">
            {(['arrival', 'departure'] as const).map((t) => (
              <label key={t} className="inline-flex items-center gap-2 text-sm">
                <input type="radio" value={t} {...form.register('flightType')} className="h-4 w-4 accent-blue-900" />
                {t === 'arrival' ? 'Arrivée' : 'Départ'}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field name="date" label="Date du vol" type="date" min={todayIso()} required />
          <Field name="time" label="Heure du vol" type="time" required />
          <Field
            name="flightNumber"
            label="Numéro de vol"
            onChange={(e) => {
              e.target.value = e.target.value.toUpperCase();
            }}
            placeholder="ET863"
            autoComplete="off"
            required
          />
          <Field name="passengers" label="Passagers" type="number" min={1} max={50} inputMode="numeric" required />
        </div>
        <TextAreaFormField name="notes" label="Demandes particulières" rows={3} />
        {service && Number.isInteger(count) && count >= 1 && count <= 50 && (
          <p className="rounded-lg bg-blue-50 px-4 py-3 text-sm text-blue-950">
            Total estimé : <strong>{formatPrice(Number(service.price) * count)}</strong> ({formatPrice(service.price)} × {count} passager{count > 1 ? 's' : ''})
          </p>
        )}
        {create.isError && <Alert>{create.error.message}</Alert>}
        <FormActions onCancel={onClose} submitLabel="Confirmer la réservation" busy={create.isPending} />
      </Form>
    </Dialog>
  );
}
