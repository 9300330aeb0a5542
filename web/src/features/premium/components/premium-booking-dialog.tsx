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
  const [name, setName] = useState(defaults.name);
  const [email, setEmail] = useState(defaults.email);
  const [phone, setPhone] = useState(defaults.phone);
  const [startDate, setStartDate] = useState('');
  const [duration, setDuration] = useState('1');
  const [requirements, setRequirements] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const create = useCreatePremiumBooking();
  const days = Number(duration);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = premiumSchema(todayIso()).safeParse({ serviceType: service.code, name, email, phone, startDate, duration, requirements });
    if (!parsed.success) {
      setErrors(fieldErrors<keyof PremiumValues>(parsed.error));
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
        <TextField label="Nom complet" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} error={errors.name} required />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={errors.email} required />
          <TextField label="Téléphone" type="tel" autoComplete="tel" value={phone} onChange={(e) => setPhone(e.target.value)} error={errors.phone} required />
          <TextField label="Date de début" type="date" min={todayIso()} value={startDate} onChange={(e) => setStartDate(e.target.value)} error={errors.startDate} required />
          <SelectField label="Durée" value={duration} onChange={(e) => setDuration(e.target.value)} error={errors.duration} required>
            {PREMIUM_DURATIONS.map((d) => (
              <option key={d} value={d}>
                {formatDays(d)}
              </option>
            ))}
          </SelectField>
        </div>
        <TextAreaField label="Exigences particulières" value={requirements} onChange={(e) => setRequirements(e.target.value)} rows={3} />
        <p className="rounded-lg bg-blue-50 px-4 py-3 text-sm text-blue-950">
          Total estimé : <strong>{formatPrice(Number(service.price_per_day) * days)}</strong> ({formatPrice(service.price_per_day)} × {formatDays(days)})
        </p>
        {create.isError && <Alert>{create.error.message}</Alert>}
        <FormActions onCancel={onClose} submitLabel="Envoyer la demande" busy={create.isPending} />
      </form>
    </Dialog>
  );
}
