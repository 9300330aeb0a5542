import { useState } from 'react';
import { useSiteSettings } from '@/lib/site-settings';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { notify } from '@/lib/notify';
import { usePageTitle } from '@/components/ui/page';
import { Alert } from '@/components/ui/field';
import { Field, Form, useZodForm } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { useSignUp } from '@/features/auth/api/auth';
import { registerSchema, type RegisterValues } from '@/features/auth/schemas/auth-schemas';
import { AuthCard, safeRedirect } from '@/features/auth/components/auth-card';

const emailCodes = new Set(['user_already_exists', 'email_exists', 'email_address_invalid']);
const passwordCodes = new Set(['weak_password']);

export default function RegisterPage() {
  usePageTitle('Inscription');
  const settings = useSiteSettings();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const form = useZodForm(registerSchema, { defaultValues: { fullName: '', email: '', password: '', confirmPassword: '' } });
  const signUp = useSignUp();
  const redirect = safeRedirect(params.get('redirect'));
  // sign-ups closed (the settings say so, or the auth server just refused one): the form is
  // disabled and one message says so, with the company's phone
  const [refused, setRefused] = useState(false);
  const closed = !settings.allowRegistrations || refused;

  const [email, password, confirmPassword] = form.watch(['email', 'password', 'confirmPassword']);
  const incomplete = !email || !password || !confirmPassword;
  const rootError = form.formState.errors.root?.message;

  const submit = (values: RegisterValues) => {
    if (closed) return;
    signUp.mutate(
      { email: values.email, password: values.password, fullName: values.fullName ?? '' },
      {
        onSuccess: () => {
          notify.success('Inscription réussie ! Consultez vos emails pour confirmer votre compte.');
          const q = new URLSearchParams({ registered: '1', email: values.email });
          if (redirect) q.set('redirect', redirect);
          navigate(`${paths.login}?${q.toString()}`);
        },
        onError: (err) => {
          const code = 'code' in err ? String(err.code) : '';
          if (code === 'signup_disabled') {
            setRefused(true);
            form.clearErrors();
            return;
          }
          // said once, beside the form (a toast repeated it)
          if (emailCodes.has(code)) form.setError('email', { type: 'server', message: err.message });
          else if (passwordCodes.has(code)) form.setError('password', { type: 'server', message: err.message });
          else form.setError('root', { type: 'server', message: err.message });
        },
      },
    );
  };

  return (
    <AuthCard title="Créer un compte" subtitle="Réservez nos services aéroportuaires, premium et de diagnostic, et suivez vos réservations.">
      {closed && (
        <div className="mb-4" data-testid="registrations-closed">
          <Alert tone="info">
            Les inscriptions sont fermées pour le moment. Pour réserver, appelez-nous au <span className="whitespace-nowrap">{settings.companyPhone}</span>.
          </Alert>
        </div>
      )}
      <Form form={form} onValid={submit} className="space-y-4" aria-disabled={closed || undefined}>
        <fieldset disabled={closed} className="space-y-4 disabled:opacity-60">
        <Field name="fullName" label="Nom complet (facultatif)" autoComplete="name" />
        <Field name="email" label="Email" type="email" autoComplete="email" required />
        <Field
          name="password"
          deps="confirmPassword"
          label="Mot de passe"
          type="password"
          autoComplete="new-password"
          hint="Au moins 8 caractères, dont une majuscule, une minuscule et un chiffre."
          required
        />
        <Field name="confirmPassword" label="Confirmer le mot de passe" type="password" autoComplete="new-password" required />
        {rootError && <Alert>{rootError}</Alert>}
        <Button type="submit" className="w-full" disabled={closed || incomplete || signUp.isPending}>
          {signUp.isPending ? 'Inscription…' : "S'inscrire"}
        </Button>
        </fieldset>
      </Form>
      <p className="mt-6 text-center text-sm text-slate-700">
        Déjà inscrit ?{' '}
        <Link to={paths.login} className="font-semibold text-blue-900 hover:underline">
          Se connecter
        </Link>
      </p>
    </AuthCard>
  );
}
