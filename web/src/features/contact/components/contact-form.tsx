import { notify } from '@/lib/notify';
import { Alert } from '@/components/ui/field';
import { Field, Form, SelectFormField, TextAreaFormField, useZodForm } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { CONTACT_SUBJECTS, contactSchema, subjectLabels, type ContactValues } from '../schemas/contact-schema';
import { useSendContactMessage } from '../api/contact';

// the subject starts unchosen: the schema's enum refuses it with its message
const empty = (subject: string) => ({ name: '', email: '', phone: '', subject: subject as ContactValues['subject'], message: '' });

/** Stores the message in the database; says it is sent only once it is stored. */
export function ContactForm({ source, defaultSubject = '' }: { source: 'contact' | 'support'; defaultSubject?: string }) {
  // errors show once a field is left, then follow what is typed
  const form = useZodForm(contactSchema, { defaultValues: empty(defaultSubject) });
  const send = useSendContactMessage();

  const submit = (values: ContactValues) => {
    send.mutate(
      { ...values, source },
      {
        onSuccess: () => {
          notify.success('Message envoyé');
          form.reset(empty(defaultSubject));
        },
        onError: () => notify.error('Une erreur est survenue. Veuillez réessayer plus tard.'),
      },
    );
  };

  return (
    <Form form={form} onValid={submit} className="space-y-4" aria-label={source === 'support' ? "Demande d'assistance" : 'Formulaire de contact'}>
      {send.isSuccess && (
        <Alert tone="success">Votre message a bien été enregistré. Notre équipe vous répondra par email ou par téléphone dans les meilleurs délais.</Alert>
      )}
      <div className="grid gap-4 sm:grid-cols-2">
        <Field name="name" label="Nom" autoComplete="name" required />
        <Field name="email" label="Email" type="email" autoComplete="email" required />
        <Field name="phone" label="Téléphone (facultatif)" type="tel" autoComplete="tel" />
        <SelectFormField name="subject" label="Sujet" required>
          <option value="">Choisir un sujet</option>
          {CONTACT_SUBJECTS.map((s) => (
            <option key={s} value={s}>
              {subjectLabels[s]}
            </option>
          ))}
        </SelectFormField>
      </div>
      <TextAreaFormField name="message" label="Message" rows={5} required />
      {send.isError && <Alert>Une erreur est survenue. Veuillez réessayer plus tard.</Alert>}
      <Button type="submit" disabled={send.isPending}>
        {send.isPending ? 'Envoi…' : 'Envoyer le message'}
      </Button>
    </Form>
  );
}
