/**
 * The two-factor challenge of the back office: an administrator who enrolled a factor and signed
 * in with the password only (aal1) types the code of their app (TOTP) or uses their passkey
 * (WebAuthn); the session becomes aal2 and the guard shows the page asked for. The database
 * refuses them every admin call before.
 */
import { useId } from 'react';
import { useNavigate } from 'react-router';
import { Fingerprint, KeyRound } from 'lucide-react';
import { Alert } from '@/components/ui/field';
import { Form } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { Spinner, ErrorState } from '@/components/ui/states';
import { usePageTitle } from '@/components/ui/page';
import { adminPaths } from '@/config/admin-paths';
import { supabaseClient } from '@/lib/supabase';
import { notify } from '@/lib/notify';
import { browserHasPasskeys, useFactors, useVerifyPasskey, useVerifyTotp } from '../api/mfa';
import { MfaCodeField, useMfaCodeForm } from './mfa-code-field';

export const CHALLENGE_TITLE = 'Vérification en deux étapes';

export function MfaChallenge() {
  usePageTitle(`Administration - ${CHALLENGE_TITLE}`);
  const factors = useFactors();
  const verify = useVerifyTotp();
  const navigate = useNavigate();
  const form = useMfaCodeForm();
  const titleId = useId();
  const factor = factors.data?.find((f) => f.factor_type === 'totp' && f.status === 'verified');
  const passkey = factors.data?.find((f) => f.factor_type === 'webauthn' && f.status === 'verified');
  const verifyPasskey = useVerifyPasskey();
  const confirmWithPasskey = () => {
    if (!passkey) return;
    verifyPasskey.mutate(passkey.id, { onSuccess: () => notify.success('Vérification réussie') });
  };

  const submit = ({ code }: { code: string }) => {
    if (!factor) return;
    verify.mutate(
      { factorId: factor.id, code },
      {
        onSuccess: () => notify.success('Vérification réussie'),
        onError: () => form.reset({ code: '' }),
      },
    );
  };

  const signOut = async () => {
    await (await supabaseClient()).auth.signOut();
    navigate(adminPaths.login, { replace: true });
  };

  return (
    <main className="flex min-h-screen items-center justify-center bg-gradient-to-br from-blue-950 via-blue-900 to-slate-900 px-4 py-10">
      <section aria-labelledby={titleId} className="w-full max-w-md rounded-2xl bg-white p-6 shadow-2xl sm:p-8">
        <div className="mb-6 text-center">
          <KeyRound className="mx-auto mb-2 h-10 w-10 text-blue-900" aria-hidden="true" />
          <h1 id={titleId} className="text-2xl font-bold text-blue-950">
            {CHALLENGE_TITLE}
          </h1>
          <p className="mt-1 text-sm text-slate-700">
            {factor
              ? "Saisissez le code à 6 chiffres affiché par votre application d'authentification."
              : "Confirmez votre identité avec votre clé d'accès."}
          </p>
        </div>
        {factors.isPending ? (
          <Spinner />
        ) : factors.isError ? (
          <ErrorState message={factors.error.message} onRetry={() => void factors.refetch()} />
        ) : (
          <Form form={form} onValid={submit} className="space-y-4">
            {factor && (
              <>
                <MfaCodeField autoFocus />
                {verify.isError && <Alert>{verify.error.message}</Alert>}
                <Button type="submit" className="w-full" disabled={verify.isPending}>
                  {verify.isPending ? 'Vérification…' : 'Vérifier'}
                </Button>
              </>
            )}
            {passkey && browserHasPasskeys() && (
              <>
                {factor && <p className="text-center text-sm text-slate-600">ou</p>}
                {verifyPasskey.isError && <Alert>{verifyPasskey.error.message}</Alert>}
                <Button variant={factor ? 'secondary' : 'primary'} className="w-full" disabled={verifyPasskey.isPending} onClick={confirmWithPasskey}>
                  <Fingerprint className="h-4 w-4" aria-hidden="true" />{' '}
                  {verifyPasskey.isPending ? 'Suivez les instructions de votre appareil…' : "Utiliser ma clé d'accès"}
                </Button>
              </>
            )}
            <Button variant="outline" className="w-full" onClick={() => void signOut()}>
              Se déconnecter
            </Button>
          </Form>
        )}
      </section>
    </main>
  );
}
