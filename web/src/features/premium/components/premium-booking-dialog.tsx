import { useState, type FormEvent } from 'react';
import { notify } from '@/lib/notify';
import { Dialog } from '@/components/ui/dialog';
import { FormActions } from '@/components/ui/button';
import { Alert, SelectField, TextAreaField, TextField } from '@/components/ui/field';
import { fieldErrors } from '@/lib/validation';
import { formatDays, formatPrice, todayIso } from '@/lib/format';
import type { PremiumBooking, PremiumService } from '@/types/database';
import { PREMIUM_DURATIONS, premiumSchema, type PremiumValues } from '../schemas/premium-schema';
import { useCreatePremiumBooking } from '../api/premium';

type Errors = Partial<Record<keyof PremiumValues, string>>;

export function PremiumBookingDialog({
  open,
  onClose,
  service,
  userId,
  defaults,
  onBooked,
}: {
  open: boolean;
  onClose: () => void;
  service: PremiumService;
  userId: string;
  defaults: { name: string; email: string; phone: string };
  onBooked: (b: PremiumBooking) => void;
}) {
  const [values, setValues] = useState({ name: defaults.name, email: defaults.email, phone: defaults.phone, startDate: '', duration: '1', requirements: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [touched, setTouched] = useState<Partial<Record<keyof PremiumValues, boolean>>>({});
  const create = useCreatePremiumBooking();
  const days = Number(values.duration);
  const parse = (v: typeof values) => premiumSchema(todayIso()).safeParse({ serviceType: service.code, ...v });
  const validate = (v: typeof values): Errors => {
    const r = parse(v);
    return r.success ? {} : fieldErrors<keyof PremiumValues>(r.error);
  };

  /** Errors show once a field is left, then follow what is typed. */
  const set = (k: keyof typeof values, v: string) => {
    const next = { ...values, [k]: v };
    setValues(next);
    if (touched[k]) setErrors(validate(next));
  };
  const blur = (k: keyof PremiumValues) => {
    setTouched((t) => ({ ...t, [k]: true }));
    setErrors(validate(values));
  };
  const shown = (k: keyof PremiumValues) => (touched[k] ? errors[k] : undefined);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parse(values);
    if (!parsed.success) {
      setErrors(fieldErrors<keyof PremiumValues>(parsed.error));
      setTouched({ name: true, email: true, phone: true, startDate: true, duration: true });
      return;
    }
    setErrors({});
    create.mutate(
      { userId, values: parsed.data },
      {
        onSuccess: (b) => {
          notify.success('Demande de service premium envoyée!');
          onBooked(b);
        },
        onError: (err) => notify.error(err.message || 'Erreur lors de la demande. Veuillez réessayer.'),
      },
    );
  };

  return (
    <Dialog open={open} onClose={onClose} title={`Demande : ${service.name}`}>
      <form noValidate onSubmit={submit} className="space-y-4">
        <TextField label="Nom complet" autoComplete="name" value={values.name} onChange={(e) => set('name', e.target.value)} onBlur={() => blur('name')} error={shown('name')} required />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Email" type="email" autoComplete="email" value={values.email} onChange={(e) => set('email', e.target.value)} onBlur={() => blur('email')} error={shown('email')} required />
          <TextField label="Téléphone" type="tel" autoComplete="tel" value={values.phone} onChange={(e) => set('phone', e.target.value)} onBlur={() => blur('phone')} error={shown('phone')} placeholder="+243 81 234 5678" required />
          <TextField label="Date de début" type="date" min={todayIso()} value={values.startDate} onChange={(e) => set('startDate', e.target.value)} onBlur={() => blur('startDate')} error={shown('startDate')} required />
          <SelectField label="Durée" value={values.duration} onChange={(e) => set('duration', e.target.value)} onBlur={() => blur('duration')} error={shown('duration')} required>
            {PREMIUM_DURATIONS.map((d) => (
              <option key={d} value={d}>
                {formatDays(d)}
              </option>
            ))}
          </SelectField>
        </div>
        <TextAreaField label="Exigences particulières" value={values.requirements} onChange={(e) => set('requirements', e.target.value)} rows={3} />
        <p className="rounded-lg bg-blue-50 px-4 py-3 text-sm text-blue-950">
          Total estimé : <strong>{formatPrice(Number(service.price_per_day) * days)}</strong> ({formatPrice(service.price_per_day)} × {formatDays(days)})
        </p>
        {create.isError && <Alert>{create.error.message}</Alert>}
        <FormActions onCancel={onClose} submitLabel="Envoyer la demande" busy={create.isPending} />
      </form>
    </Dialog>
  );
}
