import { useState, type FormEvent } from 'react';
import { notify } from '@/lib/notify';
import { Dialog } from '@/components/ui/dialog';
import { FormActions } from '@/components/ui/button';
import { Alert, SelectField, TextAreaField, TextField } from '@/components/ui/field';
import { fieldErrors } from '@/lib/validation';
import { formatPrice, todayIso } from '@/lib/format';
import type { AirportBooking, AirportService } from '@/types/database';
import { airportSchema, parsePassengers, type AirportValues } from '../schemas/airport-schema';
import { useCreateAirportBooking } from '../api/airport';

type Errors = Partial<Record<keyof AirportValues, string>>;

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
  const [serviceType, setServiceType] = useState(initialService);
  const [flightType, setFlightType] = useState<'arrival' | 'departure'>('arrival');
  const [date, setDate] = useState('');
  const [time, setTime] = useState('');
  const [flightNumber, setFlightNumber] = useState('');
  const [passengers, setPassengers] = useState('1');
  const [notes, setNotes] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const create = useCreateAirportBooking();
  const service = services.find((s) => s.code === serviceType);
  const count = parsePassengers(passengers);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = airportSchema(todayIso()).safeParse({ serviceType, flightType, date, time, flightNumber, passengers: count, notes });
    if (!parsed.success) {
      setErrors(fieldErrors<keyof AirportValues>(parsed.error));
      return;
    }
    setErrors({});
    create.mutate(
      { userId, values: parsed.data },
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
      <form noValidate onSubmit={submit} className="space-y-4">
        <SelectField label="Type de service" value={serviceType} onChange={(e) => setServiceType(e.target.value as AirportService['code'])} required>
          {services.map((s) => (
            <option key={s.code} value={s.code}>
              {s.name} ({formatPrice(s.price)} par passager)
            </option>
          ))}
        </SelectField>
        <fieldset>
          <legend className="mb-1 text-sm font-medium text-slate-800">Type de vol</legend>
          <div className="flex gap-4">
            {(['arrival', 'departure'] as const).map((t) => (
              <label key={t} className="inline-flex items-center gap-2 text-sm">
                <input type="radio" name="flight-type" value={t} checked={flightType === t} onChange={() => setFlightType(t)} className="h-4 w-4 accent-blue-900" />
                {t === 'arrival' ? 'Arrivée' : 'Départ'}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Date du vol" type="date" min={todayIso()} value={date} onChange={(e) => setDate(e.target.value)} error={errors.date} required />
          <TextField label="Heure du vol" type="time" value={time} onChange={(e) => setTime(e.target.value)} error={errors.time} required />
          <TextField
            label="Numéro de vol"
            value={flightNumber}
            onChange={(e) => setFlightNumber(e.target.value.toUpperCase())}
            error={errors.flightNumber}
            placeholder="ET863"
            autoComplete="off"
            required
          />
          <TextField label="Passagers" type="number" min={1} max={50} inputMode="numeric" value={passengers} onChange={(e) => setPassengers(e.target.value)} error={errors.passengers} required />
        </div>
        <TextAreaField label="Demandes particulières" value={notes} onChange={(e) => setNotes(e.target.value)} rows={3} />
        {service && Number.isInteger(count) && count >= 1 && count <= 50 && (
          <p className="rounded-lg bg-blue-50 px-4 py-3 text-sm text-blue-950">
            Total estimé : <strong>{formatPrice(Number(service.price) * count)}</strong> ({formatPrice(service.price)} × {count} passager{count > 1 ? 's' : ''})
          </p>
        )}
        {create.isError && <Alert>{create.error.message}</Alert>}
        <FormActions onCancel={onClose} submitLabel="Confirmer la réservation" busy={create.isPending} />
      </form>
    </Dialog>
  );
}
