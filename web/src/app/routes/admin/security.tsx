import { useState } from 'react';
import { Fingerprint, ShieldCheck, Trash2, Smartphone } from 'lucide-react';
import type { Factor } from '@supabase/supabase-js';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/field';
import { Field, Form, useZodForm } from '@/components/ui/form';
import { ErrorState, Spinner } from '@/components/ui/states';
import { formatDate } from '@/lib/format';
import { notify } from '@/lib/notify';
import { AdminHeader, ConfirmDialog, Panel } from '@/features/admin/components/admin-ui';
import {
  browserHasPasskeys,
  useEnrollTotp,
  useFactors,
  useRegisterPasskey,
  useUnenrollFactor,
  useVerifyTotp,
  type Enrolment,
} from '@/features/admin/api/mfa';
import { factorNameFormSchema } from '@/features/admin/schemas/mfa-schema';
import { MfaCodeField, useMfaCodeForm } from '@/features/admin/components/mfa-code-field';

/** How a factor is described in the list. */
const factorKind = (f: Factor) => (f.factor_type === 'webauthn' ? "Clé d'accès (passkey)" : "Application d'authentification (TOTP)");

/**
 * Two-factor authentication of the administrator: enrol an authenticator app (TOTP) or a passkey
 * / security key (WebAuthn), list and remove factors. Once a factor is verified, every sign-in must pass the code (the guard's
 * challenge) before the database grants administrator rights (V45).
 */
export default function AdminSecurityPage() {
  usePageTitle('Sécurité du compte');
  const factors = useFactors();
  const enroll = useEnrollTotp();
  const verify = useVerifyTotp();
  const unenroll = useUnenrollFactor();
  // errors show on submit only, as they always have on this page
  const nameForm = useZodForm(factorNameFormSchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: { name: "Application d'authentification" } });
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const codeForm = useMfaCodeForm();
  const [removing, setRemoving] = useState<Factor | null>(null);
  const passkey = useRegisterPasskey();
  const passkeyForm = useZodForm(factorNameFormSchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: { name: "Clé d'accès" } });
  const addPasskey = ({ name }: { name: string }) => {
    passkey.mutate(name, { onSuccess: () => notify.success("Clé d'accès enregistrée") });
  };

  const verified = (factors.data ?? []).filter((f) => f.status === 'verified');

  const start = ({ name }: { name: string }) => {
    verify.reset();
    enroll.mutate(name, { onSuccess: (data) => setEnrolment(data) });
  };

  const confirm = ({ code }: { code: string }) => {
    if (!enrolment) return;
    verify.mutate(
      { factorId: enrolment.factorId, code },
      {
        onSuccess: () => {
          setEnrolment(null);
          codeForm.reset();
          notify.success('Vérification en deux étapes activée');
        },
      },
    );
  };

  const remove = () => {
    if (!removing) return;
    unenroll.mutate(removing.id, {
      onSuccess: () => {
        setRemoving(null);
        notify.success('Méthode de vérification supprimée');
      },
    });
  };

  return (
    <div className="space-y-6">
      <AdminHeader title="Sécurité" subtitle="Vérification en deux étapes de votre compte administrateur" />

      <Panel title="Méthodes de vérification">
        {factors.isPending ? (
          <Spinner />
        ) : factors.isError ? (
          <ErrorState message={factors.error.message} onRetry={() => void factors.refetch()} />
        ) : verified.length === 0 ? (
          <Alert tone="info">
            Aucune méthode active : votre mot de passe suffit pour accéder à l'administration. Ajoutez une application d'authentification pour
            exiger un code à chaque connexion.
          </Alert>
        ) : (
          <>
            <p className="mb-3 text-sm text-slate-700">
              Une de ces méthodes (code de votre application ou clé d'accès) est demandée à chaque connexion à l'administration.
            </p>
            <ul className="divide-y divide-slate-200" aria-label="Méthodes actives">
              {verified.map((f) => (
                <li key={f.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
                  <div className="flex items-center gap-3">
                    {f.factor_type === 'webauthn' ? (
                      <Fingerprint className="h-5 w-5 text-blue-900" aria-hidden="true" />
                    ) : (
                      <Smartphone className="h-5 w-5 text-blue-900" aria-hidden="true" />
                    )}
                    <div>
                      <p className="font-medium text-slate-900">{f.friendly_name || factorKind(f)}</p>
                      <p className="text-xs text-slate-600">
                        {factorKind(f)} · ajoutée le {formatDate(f.created_at)}
                      </p>
                    </div>
                  </div>
                  <Button
                    variant="outline"
                    onClick={() => {
                      unenroll.reset();
                      setRemoving(f);
                    }}
                  >
                    <Trash2 className="h-4 w-4" aria-hidden="true" /> Supprimer
                  </Button>
                </li>
              ))}
            </ul>
          </>
        )}
      </Panel>

      <Panel title="Ajouter une application d'authentification">
        {!enrolment ? (
          <Form form={nameForm} onValid={start} className="max-w-md space-y-4">
            <p className="text-sm text-slate-700">
              Utilisez une application comme Google Authenticator, Microsoft Authenticator ou FreeOTP sur votre téléphone.
            </p>
            <Field name="name" label="Nom de l'appareil" required maxLength={40} />
            {enroll.isError && <Alert>{enroll.error.message}</Alert>}
            <Button type="submit" disabled={enroll.isPending}>
              <ShieldCheck className="h-4 w-4" aria-hidden="true" /> {enroll.isPending ? 'Préparation…' : 'Commencer'}
            </Button>
          </Form>
        ) : (
          <Form form={codeForm} onValid={confirm} className="space-y-4">
            <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-700">
              <li>Scannez ce QR code avec votre application (ou saisissez la clé ci-dessous).</li>
              <li>Saisissez le code à 6 chiffres qu'elle affiche.</li>
            </ol>
            <div className="flex flex-wrap items-start gap-6">
              <img src={enrolment.qrCode} alt="QR code à scanner avec votre application d'authentification" width={180} height={180} className="rounded border border-slate-200 bg-white p-2" />
              <div className="min-w-0 max-w-md space-y-4">
                <div>
                  <p className="text-sm font-medium text-slate-800">Clé de configuration manuelle</p>
                  <code data-testid="totp-secret" className="mt-1 block break-all rounded bg-slate-100 px-3 py-2 font-mono text-sm text-slate-900">
                    {enrolment.secret}
                  </code>
                </div>
                <MfaCodeField />
                {verify.isError && <Alert>{verify.error.message}</Alert>}
                <div className="flex flex-wrap gap-2">
                  <Button type="submit" disabled={verify.isPending}>
                    {verify.isPending ? 'Vérification…' : 'Activer'}
                  </Button>
                  <Button
                    variant="secondary"
                    onClick={() => {
                      setEnrolment(null);
                      codeForm.reset();
                      verify.reset();
                    }}
                  >
                    Annuler
                  </Button>
                </div>
              </div>
            </div>
          </Form>
        )}
      </Panel>

      {browserHasPasskeys() && (
        <Panel title="Ajouter une clé d'accès">
          <Form form={passkeyForm} onValid={addPasskey} className="max-w-md space-y-4">
            <p className="text-sm text-slate-700">
              Une clé d'accès (passkey) utilise l'empreinte, le visage ou le code de votre appareil, ou une clé de sécurité USB, à la place du
              code à 6 chiffres.
            </p>
            <Field name="name" label="Nom de la clé" required maxLength={40} />
            {passkey.isError && <Alert>{passkey.error.message}</Alert>}
            <Button type="submit" disabled={passkey.isPending}>
              <Fingerprint className="h-4 w-4" aria-hidden="true" /> {passkey.isPending ? 'Suivez les instructions de votre appareil…' : "Ajouter une clé d'accès"}
            </Button>
          </Form>
        </Panel>
      )}

      <ConfirmDialog
        open={!!removing}
        title="Supprimer la méthode de vérification"
        message={`Supprimer « ${removing?.friendly_name ?? ''} » ? Votre mot de passe suffira de nouveau pour accéder à l'administration.`}
        busy={unenroll.isPending}
        error={unenroll.isError ? unenroll.error.message : null}
        onConfirm={remove}
        onClose={() => setRemoving(null)}
      />
    </div>
  );
}
