import { useEffect, useState } from 'react';
import { Alert } from '@/components/ui/field';
import { Field, Form, useZodForm } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import type { Profile } from '@/types/database';
import { phoneSignInOffered, useSendSmsCode, useVerifySmsCode } from '@/features/auth/api/auth';
import { phoneSchema, smsCodeSchema } from '@/features/auth/schemas/auth-schemas';

/**
 * Sign-in by SMS code, below the e-mail form of /login, when the server offers it: the number
 * (a DRC number written nationally is read as +243), then the six-digit code it received. The
 * first sign-in of a number makes the account; its profile keeps the number.
 */
export function SmsSignIn({ remember, onSignedIn }: { remember: boolean; onSignedIn: (profile: Profile) => void }) {
  const [offered, setOffered] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);
  // errors show on submit only, as on the e-mail form above
  const phoneForm = useZodForm(phoneSchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: { phone: '' } });
  const codeForm = useZodForm(smsCodeSchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: { code: '' } });
  const send = useSendSmsCode();
  const verify = useVerifySmsCode();

  useEffect(() => {
    let live = true;
    void phoneSignInOffered().then((yes) => live && setOffered(yes));
    return () => {
      live = false;
    };
  }, []);

  if (!offered) return null;

  const requestCode = ({ phone }: { phone: string }) => {
    send.mutate(phone, { onSuccess: () => setSentTo(phone) });
  };

  const checkCode = ({ code }: { code: string }) => {
    if (!sentTo) return;
    verify.mutate({ phone: sentTo, code, remember }, { onSuccess: onSignedIn });
  };

  return (
    <section aria-labelledby="sms-sign-in" className="mt-8 border-t border-slate-200 pt-6">
      <h2 id="sms-sign-in" className="text-base font-semibold text-slate-900">
        Ou connectez-vous par SMS
      </h2>
      <p className="mt-1 text-sm text-slate-600">Recevez un code à 6 chiffres sur votre téléphone, sans mot de passe.</p>
      {sentTo === null ? (
        <Form form={phoneForm} onValid={requestCode} className="mt-4 space-y-4">
          <Field
            name="phone"
            label="Numéro de téléphone"
            type="tel"
            autoComplete="tel"
            placeholder="081 234 5678"
            required
          />
          {send.isError && <Alert>{send.error.message}</Alert>}
          <Button type="submit" variant="secondary" className="w-full" disabled={send.isPending}>
            {send.isPending ? 'Envoi…' : 'Recevoir un code par SMS'}
          </Button>
        </Form>
      ) : (
        <Form form={codeForm} onValid={checkCode} className="mt-4 space-y-4">
          <Alert tone="info">Un code a été envoyé au {sentTo}. Il est valable quelques minutes.</Alert>
          <Field
            name="code"
            label="Code reçu par SMS"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            required
          />
          {verify.isError && <Alert>{verify.error.message}</Alert>}
          <Button type="submit" className="w-full" disabled={verify.isPending}>
            {verify.isPending ? 'Vérification…' : 'Valider le code'}
          </Button>
          <button
            type="button"
            className="w-full text-sm font-semibold text-blue-900 hover:underline"
            onClick={() => {
              setSentTo(null);
              codeForm.reset();
              verify.reset();
            }}
          >
            Changer de numéro
          </button>
        </Form>
      )}
    </section>
  );
}
