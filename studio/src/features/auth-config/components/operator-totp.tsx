import { useState } from 'react';
import { useEnrolTotp, useTotpCode, useTotpStatus, type Enrolment } from '../api/auth-config';
import { Button } from '@/components/ui/button';
import { Field, Input } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';

const codeOk = (c: string) => /^\d{6}$/.test(c.trim());

function CodeForm({ label, action, onDone, danger }: { label: string; action: 'verify' | 'remove'; onDone: () => void; danger?: boolean }) {
  const submit = useTotpCode(action);
  const [code, setCode] = useState('');
  const [touched, setTouched] = useState(false);
  return (
    <form
      noValidate
      className="flex flex-wrap items-end gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        setTouched(true);
        if (codeOk(code)) submit.mutate(code.trim(), { onSuccess: onDone });
      }}
    >
      <Field label="Code from your authenticator app" error={touched && !codeOk(code) ? 'Six digits' : undefined}>
        {(id, d) => <Input id={id} inputMode="numeric" autoComplete="one-time-code" className="w-32" aria-describedby={d} value={code} onChange={(e) => setCode(e.target.value)} />}
      </Field>
      <Button type="submit" variant={danger ? 'danger' : 'primary'} disabled={submit.isPending}>
        {label}
      </Button>
      {submit.error && <ErrorNote error={submit.error} />}
    </form>
  );
}

function Enrolling({ enrolment, onDone }: { enrolment: Enrolment; onDone: () => void }) {
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-slate-700">Scan the code with an authenticator app, or type the secret. They are shown once.</p>
      <div className="flex flex-wrap items-start gap-4">
        <img src={`data:image/svg+xml;utf8,${encodeURIComponent(enrolment.qr_code)}`} alt="QR code of the TOTP secret" width={180} height={180} className="rounded border border-slate-200" />
        <dl className="text-sm">
          <dt className="text-slate-600">Secret</dt>
          <dd aria-label="TOTP secret" className="font-mono break-all">
            {enrolment.secret}
          </dd>
        </dl>
      </div>
      <CodeForm label="Verify and turn on" action="verify" onDone={onDone} />
    </div>
  );
}

/** The operator's own account: their second factor. */
export function AccountScreen() {
  const status = useTotpStatus();
  const enrol = useEnrolTotp();
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [note, setNote] = useState<string | null>(null);
  return (
    <div className="h-full overflow-auto bg-white">
      <header className="border-b border-slate-200 px-3 py-2">
        <h1 className="text-base font-semibold">Your account</h1>
      </header>
      <section aria-labelledby="totp-title" className="flex max-w-2xl flex-col gap-3 px-3 py-3">
        <h2 id="totp-title" className="text-sm font-semibold">
          Two-factor sign-in (TOTP)
        </h2>
        <p role="status" className="text-sm text-slate-700">
          {note}
        </p>
        {status.isPending ? (
          <Loading />
        ) : status.error ? (
          <ErrorNote error={status.error} />
        ) : status.data.enrolled ? (
          <>
            <p className="text-sm">
              <span className="rounded bg-emerald-100 px-1.5 text-emerald-900">On</span> Signing in asks for a code after your password.
            </p>
            <CodeForm label="Turn off" action="remove" danger onDone={() => setNote('Two-factor sign-in is off.')} />
          </>
        ) : enrolment ? (
          <Enrolling
            enrolment={enrolment}
            onDone={() => {
              setEnrolment(null);
              setNote('Two-factor sign-in is on: the next sign-in asks for a code.');
            }}
          />
        ) : (
          <>
            <p className="text-sm text-slate-700">Off. Turn it on to be asked for a code from an authenticator app after your password. An operator who loses the device is reset with <code>server studio operators reset-totp EMAIL</code>.</p>
            <div>
              <Button variant="primary" disabled={enrol.isPending} onClick={() => enrol.mutate(undefined, { onSuccess: setEnrolment })}>
                Set up TOTP
              </Button>
            </div>
            {enrol.error && <ErrorNote error={enrol.error} />}
          </>
        )}
      </section>
    </div>
  );
}
