import { useEffect, useState, type FormEvent } from 'react';
import { Alert, TextField } from '@/components/ui/field';
import { Button } from '@/components/ui/button';
import { fieldErrors } from '@/lib/validation';
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
  const [phone, setPhone] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<{ phone?: string; code?: string }>({});
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

  const requestCode = (e: FormEvent) => {
    e.preventDefault();
    const r = phoneSchema.safeParse({ phone });
    if (!r.success) {
      setErrors(fieldErrors(r.error));
      return;
    }
    setErrors({});
    send.mutate(r.data.phone, { onSuccess: () => setSentTo(r.data.phone) });
  };

  const checkCode = (e: FormEvent) => {
    e.preventDefault();
    const r = smsCodeSchema.safeParse({ code });
    if (!r.success || !sentTo) {
      setErrors(r.success ? {} : fieldErrors(r.error));
      return;
    }
    setErrors({});
    verify.mutate({ phone: sentTo, code: r.data.code, remember }, { onSuccess: onSignedIn });
  };

  return (
    <section aria-labelledby="sms-sign-in" className="mt-8 border-t border-slate-200 pt-6">
      <h2 id="sms-sign-in" className="text-base font-semibold text-slate-900">
        Ou connectez-vous par SMS
      </h2>
      <p className="mt-1 text-sm text-slate-600">Recevez un code à 6 chiffres sur votre téléphone, sans mot de passe.</p>
      {sentTo === null ? (
        <form noValidate onSubmit={requestCode} className="mt-4 space-y-4">
          <TextField
            label="Numéro de téléphone"
            type="tel"
            autoComplete="tel"
            placeholder="081 234 5678"
            value={phone}
            onChange={(e) => setPhone(e.target.value)}
            error={errors.phone}
            required
          />
          {send.isError && <Alert>{send.error.message}</Alert>}
          <Button type="submit" variant="secondary" className="w-full" disabled={send.isPending}>
            {send.isPending ? 'Envoi…' : 'Recevoir un code par SMS'}
          </Button>
        </form>
      ) : (
        <form noValidate onSubmit={checkCode} className="mt-4 space-y-4">
          <Alert tone="info">Un code a été envoyé au {sentTo}. Il est valable quelques minutes.</Alert>
          <TextField
            label="Code reçu par SMS"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            value={code}
            onChange={(e) => setCode(e.target.value)}
            error={errors.code}
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
              setCode('');
              verify.reset();
            }}
          >
            Changer de numéro
          </button>
        </form>
      )}
    </section>
  );
}
