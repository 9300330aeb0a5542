import { useState, type FormEvent } from 'react';
import { notify } from '@/lib/notify';
import { Dialog } from '@/components/ui/dialog';
import { FormActions } from '@/components/ui/button';
import { Alert, SelectField, TextAreaField, TextField } from '@/components/ui/field';
import { fieldErrors } from '@/lib/validation';
import { formatPrice, todayIso } from '@/lib/format';
import type { DiagnosticBooking, DiagnosticService } from '@/types/database';
import { canSubmitDiagnostic, DIAGNOSTIC_TIMES, diagnosticSchema, type DiagnosticValues } from '../schemas/diagnostic-schema';
import { useCreateDiagnosticBooking } from '../api/diagnostics';

type Errors = Partial<Record<keyof DiagnosticValues, string>>;

export function DiagnosticBookingDialog({
  open,
  onClose,
  service,
  userId,
  defaultEmail,
  defaultPhone,
  onBooked,
}: {
  open: boolean;
  onClose: () => void;
  service: DiagnosticService;
  userId: string;
  defaultEmail: string;
  defaultPhone: string;
  onBooked: (b: DiagnosticBooking) => void;
}) {
  const [vehicleType, setVehicleType] = useState('');
  const [email, setEmail] = useState(defaultEmail);
  const [phone, setPhone] = useState(defaultPhone);
  const [date, setDate] = useState('');
  const [time, setTime] = useState('');
  const [notes, setNotes] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const create = useCreateDiagnosticBooking();
  const schema = diagnosticSchema(todayIso());
  const values = { serviceType: service.code, vehicleType, email, phone, date, time, notes };

  /** Errors show after a field is left. */
  const blur = (field: keyof DiagnosticValues) => {
    setTouched((t) => ({ ...t, [field]: true }));
    const r = schema.safeParse(values);
    setErrors(r.success ? {} : fieldErrors<keyof DiagnosticValues>(r.error));
  };
  const shown = (f: keyof DiagnosticValues) => (touched[f] ? errors[f] : undefined);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = schema.safeParse(values);
    if (!parsed.success) {
      setErrors(fieldErrors<keyof DiagnosticValues>(parsed.error));
      setTouched({ vehicleType: true, email: true, phone: true, date: true, time: true });
      return;
    }
    create.mutate(
      { userId, values: parsed.data },
      {
        onSuccess: (b) => {
          notify.success('Rendez-vous confirmé!');
          onBooked(b);
        },
        onError: (err) => notify.error(err.message || 'Erreur lors de la réservation. Veuillez réessayer.'),
      },
    );
  };

  return (
    <Dialog open={open} onClose={onClose} title={`Rendez-vous : ${service.name}`}>
      <p className="mb-4 text-sm text-slate-700">
        Prix : <strong>{formatPrice(service.price)}</strong>
      </p>
      <form noValidate onSubmit={submit} className="space-y-4">
        <TextField
          label="Type de véhicule (marque et modèle)"
          value={vehicleType}
          onChange={(e) => setVehicleType(e.target.value)}
          onBlur={() => blur('vehicleType')}
          error={shown('vehicleType')}
          placeholder="Toyota Corolla 2020"
          required
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} onBlur={() => blur('email')} error={shown('email')} required />
          <TextField label="Téléphone" type="tel" autoComplete="tel" value={phone} onChange={(e) => setPhone(e.target.value)} onBlur={() => blur('phone')} error={shown('phone')} placeholder="+243 81 234 5678" required />
          <TextField label="Date" type="date" min={todayIso()} value={date} onChange={(e) => setDate(e.target.value)} onBlur={() => blur('date')} error={shown('date')} required />
          <SelectField label="Heure" value={time} onChange={(e) => setTime(e.target.value)} onBlur={() => blur('time')} error={shown('time')} required>
            <option value="">Choisir une heure</option>
            {DIAGNOSTIC_TIMES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectField>
        </div>
        <TextAreaField label="Remarques" value={notes} onChange={(e) => setNotes(e.target.value)} rows={3} />
        {create.isError && <Alert>{create.error.message}</Alert>}
        <FormActions onCancel={onClose} submitLabel="Confirmer le rendez-vous" busy={create.isPending} disabled={!canSubmitDiagnostic(email, phone)} />
      </form>
    </Dialog>
  );
}
