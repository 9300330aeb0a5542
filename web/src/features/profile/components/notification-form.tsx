import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notify } from '@/lib/notify';
import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/field';
import { Form, useZodForm } from '@/components/ui/form';
import { notificationSchema, type NotificationValues } from '../schemas/profile-schema';
import { profileKeys, updateNotificationChoices } from '@/lib/profile-api';
import type { Profile } from '@/types/database';

/**
 * The notifications tab: how the customer hears of their bookings (received, confirmed,
 * cancelled, changed, the day-before reminder). The database's outbox reads these choices.
 */
export function NotificationForm({ profile }: { profile: Profile }) {
  const form = useZodForm(notificationSchema, { defaultValues: { byEmail: profile.notify_email, bySms: profile.notify_sms } });
  const [byEmail, bySms] = form.watch(['byEmail', 'bySms']);
  const qc = useQueryClient();
  const save = useMutation({
    mutationFn: (v: NotificationValues) => updateNotificationChoices(profile.user_id, { notify_email: v.byEmail, notify_sms: v.bySms }),
    onSuccess: (p) => {
      qc.setQueryData(profileKeys.own(profile.user_id), p);
      notify.success('Préférences de notification enregistrées');
    },
    onError: (e) => notify.error(e.message),
  });
  return (
    <Form form={form} onValid={(v) => save.mutate(v)} className="max-w-lg space-y-4">
      <p className="text-slate-700">
        Choisissez comment être prévenu de vos réservations : demande reçue, confirmation, annulation, modification et rappel la veille.
      </p>
      <label className="flex items-start gap-3">
        <input type="checkbox" className="mt-1 h-4 w-4" {...form.register('byEmail')} />
        <span>
          <span className="font-semibold text-blue-950">Par e-mail</span>
          <span className="block text-sm text-slate-600">À {profile.email ?? 'votre adresse'}</span>
        </span>
      </label>
      <label className="flex items-start gap-3">
        <input type="checkbox" className="mt-1 h-4 w-4" {...form.register('bySms')} />
        <span>
          <span className="font-semibold text-blue-950">Par SMS</span>
          <span className="block text-sm text-slate-600">{profile.phone ? `Au ${profile.phone}` : 'Ajoutez un numéro de téléphone dans l’onglet Profil.'}</span>
        </span>
      </label>
      {bySms && !profile.phone && <Alert tone="error">Sans numéro de téléphone, aucun SMS ne peut vous être envoyé.</Alert>}
      {!byEmail && !bySms && <Alert tone="info">Vous ne recevrez aucun message sur vos réservations ; notre équipe pourra toujours vous appeler.</Alert>}
      <Button type="submit" disabled={save.isPending}>
        {save.isPending ? 'Enregistrement…' : 'Enregistrer'}
      </Button>
    </Form>
  );
}
