import { notify } from '@/lib/notify';
import { Dialog } from '@/components/ui/dialog';
import { FormActions } from '@/components/ui/button';
import { Alert } from '@/components/ui/field';
import { Field, Form, SelectFormField, TextAreaFormField, useZodForm } from '@/components/ui/form';
import { formatPrice, todayIso } from '@/lib/format';
import type { DiagnosticBooking, DiagnosticService } from '@/types/database';
import { canSubmitDiagnostic, DIAGNOSTIC_TIMES, diagnosticSchema, type DiagnosticValues } from '../schemas/diagnostic-schema';
import { useCreateDiagnosticBooking } from '../api/diagnostics';

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
  // errors show once a field is left, then follow what is typed
  const form = useZodForm(diagnosticSchema(todayIso()), {
    defaultValues: { serviceType: service.code, vehicleType: '', email: defaultEmail, phone: defaultPhone, date: '', time: '' as DiagnosticValues['time'], notes: '' },
  });
  const create = useCreateDiagnosticBooking();
  const [email = '', phone = ''] = form.watch(['email', 'phone']);

  const submit = (values: DiagnosticValues) => {
    create.mutate(
      { userId, values },
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
      <Form form={form} onValid={submit} className="space-y-4">
        <Field name="vehicleType" label="Type de véhicule (marque et modèle)" placeholder="Toyota Corolla 2020" required />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field name="email" label="Email" type="email" autoComplete="email" required />
          <Field name="phone" label="Téléphone" type="tel" autoComplete="tel" placeholder="+243 81 234 5678" required />
          <Field name="date" label="Date" type="date" min={todayIso()} required />
          <SelectFormField name="time" label="Heure" required>
            <option value="">Choisir une heure</option>
            {DIAGNOSTIC_TIMES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectFormField>
        </div>
        <TextAreaFormField name="notes" label="Remarques" rows={3} />
        {create.isError && <Alert>{create.error.message}</Alert>}
        <FormActions onCancel={onClose} submitLabel="Confirmer le rendez-vous" busy={create.isPending} disabled={!canSubmitDiagnostic(email, phone)} />
      </Form>
    </Dialog>
  );
}
