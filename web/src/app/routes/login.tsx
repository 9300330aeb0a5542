import { useState } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { notify } from '@/lib/notify';
import { usePageTitle } from '@/components/ui/page';
import { Alert } from '@/components/ui/field';
import { CheckboxField, Field, Form, useZodForm } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/states';
import { paths } from '@/config/paths';
import { useSession } from '@/lib/session';
import { REMEMBER_ME_KEY } from '@/lib/supabase';
import { PENDING_EMAIL_KEY, useSignIn } from '@/features/auth/api/auth';
import { signInSchema, type SignInValues } from '@/features/auth/schemas/auth-schemas';
import { AuthCard, safeRedirect } from '@/features/auth/components/auth-card';
import { ResendVerification } from '@/features/auth/components/resend-verification';
import { SmsSignIn } from '@/features/auth/components/sms-sign-in';

export default function LoginPage() {
  usePageTitle('Connexion');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { user, loading, isAdmin, profileLoading } = useSession();
  const pending = window.localStorage.getItem(PENDING_EMAIL_KEY) ?? '';
  // errors show on submit only, as they always have on this page
  const form = useZodForm(signInSchema, {
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    defaultValues: { email: params.get('email') ?? pending, password: '', remember: window.localStorage.getItem(REMEMBER_ME_KEY) !== 'false' },
  });
  const [email = '', remember = true] = form.watch(['email', 'remember']);
  const [needsVerification, setNeedsVerification] = useState(params.get('registered') === '1');
  const signIn = useSignIn();
  const redirect = safeRedirect(params.get('redirect'));

  if (loading) return <Spinner />;
  if (user && !signIn.isPending && !signIn.isSuccess) {
    if (profileLoading) return <Spinner />;
    return <Navigate to={isAdmin ? paths.adminDashboard : (redirect ?? paths.profile)} replace />;
  }

  const submit = (values: SignInValues) => {
    signIn.mutate(values, {
      onSuccess: (profile) => {
        notify.success('Connexion réussie');
        navigate(profile.role === 'admin' ? paths.adminDashboard : (redirect ?? paths.profile), { replace: true });
      },
      onError: (err) => {
        if ('code' in err && err.code === 'email_not_confirmed') setNeedsVerification(true);
        notify.error(err.message);
      },
    });
  };

  return (
    <AuthCard title="Connexion" subtitle="Accédez à vos réservations et réservez nos services.">
      {params.get('verified') === '1' && <div className="mb-4"><Alert tone="success">Votre adresse email est confirmée. Vous pouvez vous connecter.</Alert></div>}
      {params.get('reset') === '1' && <div className="mb-4"><Alert tone="success">Votre mot de passe a été modifié. Connectez-vous avec le nouveau mot de passe.</Alert></div>}
      {needsVerification && (
        <div className="mb-4">
          <Alert tone="info">
            <p>Veuillez confirmer votre email avant de vous connecter : ouvrez le lien reçu par email{email ? ` à ${email}` : ''}.</p>
            <p className="mt-2">
              <ResendVerification email={email.trim().toLowerCase()} />
            </p>
          </Alert>
        </div>
      )}
      <Form form={form} onValid={submit} className="space-y-4">
        <Field name="email" label="Email" type="email" autoComplete="email" required />
        <Field name="password" label="Mot de passe" type="password" autoComplete="current-password" required />
        <div className="flex items-center justify-between gap-2 text-sm">
          <CheckboxField name="remember" label="Se souvenir de moi" />
          <Link to={paths.forgotPassword} className="font-semibold text-blue-900 hover:underline">
            Mot de passe oublié ?
          </Link>
        </div>
        {signIn.isError && <Alert>{signIn.error.message}</Alert>}
        <Button type="submit" className="w-full" disabled={signIn.isPending}>
          {signIn.isPending ? 'Connexion…' : 'Se connecter'}
        </Button>
      </Form>
      <SmsSignIn
        remember={remember}
        onSignedIn={(profile) => {
          notify.success('Connexion réussie');
          navigate(profile.role === 'admin' ? paths.adminDashboard : (redirect ?? paths.profile), { replace: true });
        }}
      />
      <p className="mt-6 text-center text-sm text-slate-700">
        Pas encore de compte ?{' '}
        <Link to={redirect ? `${paths.register}?redirect=${encodeURIComponent(redirect)}` : paths.register} className="font-semibold text-blue-900 hover:underline">
          S'inscrire
        </Link>
      </p>
    </AuthCard>
  );
}
