import { notify } from '@/lib/notify';
import { Dialog } from '@/components/ui/dialog';
import { FormActions } from '@/components/ui/button';
import { Alert } from '@/components/ui/field';
import { Field, Form, SelectFormField, TextAreaFormField, useZodForm } from '@/components/ui/form';
import { formatDays, formatPrice, todayIso } from '@/lib/format';
import type { PremiumBooking, PremiumService } from '@/types/database';
import { PREMIUM_DURATIONS, premiumSchema, type PremiumValues } from '../schemas/premium-schema';
import { useCreatePremiumBooking } from '../api/premium';

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
  // errors show once a field is left, then follow what is typed
  const form = useZodForm(premiumSchema(todayIso()), {
    defaultValues: { serviceType: service.code, name: defaults.name, email: defaults.email, phone: defaults.phone, startDate: '', duration: '1', requirements: '' },
  });
  const create = useCreatePremiumBooking();
  const days = Number(form.watch('duration'));

  const submit = (values: PremiumValues) => {
    create.mutate(
      { userId, values },
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
      <Form form={form} onValid={submit} className="space-y-4">
        <Field name="name" label="Nom complet" autoComplete="name" required />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field name="email" label="Email" type="email" autoComplete="email" required />
          <Field name="phone" label="Téléphone" type="tel" autoComplete="tel" placeholder="+243 81 234 5678" required />
          <Field name="startDate" label="Date de début" type="date" min={todayIso()} required />
          <SelectFormField name="duration" label="Durée" required>
            {PREMIUM_DURATIONS.map((d) => (
              <option key={d} value={d}>
                {formatDays(d)}
              </option>
            ))}
          </SelectFormField>
        </div>
        <TextAreaFormField name="requirements" label="Exigences particulières" rows={3} />
        <p className="rounded-lg bg-blue-50 px-4 py-3 text-sm text-blue-950">
          Total estimé : <strong>{formatPrice(Number(service.price_per_day) * days)}</strong> ({formatPrice(service.price_per_day)} × {formatDays(days)})
        </p>
        {create.isError && <Alert>{create.error.message}</Alert>}
        <FormActions onCancel={onClose} submitLabel="Envoyer la demande" busy={create.isPending} />
      </Form>
    </Dialog>
  );
}
