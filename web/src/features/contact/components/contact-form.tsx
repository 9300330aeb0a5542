import { useState, type FormEvent } from 'react';
import { notify } from '@/lib/notify';
import { Alert, SelectField, TextAreaField, TextField } from '@/components/ui/field';
import { Button } from '@/components/ui/button';
import { fieldErrors } from '@/lib/validation';
import { CONTACT_SUBJECTS, contactSchema, subjectLabels, type ContactValues } from '../schemas/contact-schema';
import { useSendContactMessage } from '../api/contact';

type Errors = Partial<Record<keyof ContactValues, string>>;
const empty = { name: '', email: '', phone: '', subject: '', message: '' };

/** Stores the message in the database; says it is sent only once it is stored. */
export function ContactForm({ source, defaultSubject = '' }: { source: 'contact' | 'support'; defaultSubject?: string }) {
  const [values, setValues] = useState({ ...empty, subject: defaultSubject });
  const [errors, setErrors] = useState<Errors>({});
  const [touched, setTouched] = useState<Partial<Record<keyof ContactValues, boolean>>>({});
  const send = useSendContactMessage();
  const validate = (v: typeof values): Errors => {
    const r = contactSchema.safeParse(v);
    return r.success ? {} : fieldErrors<keyof ContactValues>(r.error);
  };

  /** Errors show once a field is left, then follow what is typed. */
  const set = (k: keyof typeof values, v: string) => {
    const next = { ...values, [k]: v };
    setValues(next);
    if (touched[k]) setErrors(validate(next));
  };
  const blur = (k: keyof ContactValues) => {
    setTouched((t) => ({ ...t, [k]: true }));
    setErrors(validate(values));
  };
  const shown = (k: keyof ContactValues) => (touched[k] ? errors[k] : undefined);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = contactSchema.safeParse(values);
    if (!r.success) {
      setErrors(fieldErrors<keyof ContactValues>(r.error));
      setTouched({ name: true, email: true, subject: true, message: true });
      return;
    }
    setErrors({});
    send.mutate(
      { ...r.data, source },
      {
        onSuccess: () => {
          notify.success('Message envoyé');
          setValues({ ...empty, subject: defaultSubject });
          setTouched({});
        },
        onError: () => notify.error('Une erreur est survenue. Veuillez réessayer plus tard.'),
      },
    );
  };

  return (
    <form noValidate onSubmit={submit} className="space-y-4" aria-label={source === 'support' ? "Demande d'assistance" : 'Formulaire de contact'}>
      {send.isSuccess && (
        <Alert tone="success">Votre message a bien été enregistré. Notre équipe vous répondra par email ou par téléphone dans les meilleurs délais.</Alert>
      )}
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label="Nom" autoComplete="name" value={values.name} onChange={(e) => set('name', e.target.value)} onBlur={() => blur('name')} error={shown('name')} required />
        <TextField label="Email" type="email" autoComplete="email" value={values.email} onChange={(e) => set('email', e.target.value)} onBlur={() => blur('email')} error={shown('email')} required />
        <TextField label="Téléphone (facultatif)" type="tel" autoComplete="tel" value={values.phone} onChange={(e) => set('phone', e.target.value)} />
        <SelectField label="Sujet" value={values.subject} onChange={(e) => set('subject', e.target.value)} onBlur={() => blur('subject')} error={shown('subject')} required>
          <option value="">Choisir un sujet</option>
          {CONTACT_SUBJECTS.map((s) => (
            <option key={s} value={s}>
              {subjectLabels[s]}
            </option>
          ))}
        </SelectField>
      </div>
      <TextAreaField label="Message" value={values.message} onChange={(e) => set('message', e.target.value)} onBlur={() => blur('message')} error={shown('message')} rows={5} required />
      {send.isError && <Alert>Une erreur est survenue. Veuillez réessayer plus tard.</Alert>}
      <Button type="submit" disabled={send.isPending}>
        {send.isPending ? 'Envoi…' : 'Envoyer le message'}
      </Button>
    </form>
  );
}
