import { useState, type FormEvent } from 'react';
import { useSiteSettings } from '@/lib/site-settings';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { notify } from '@/lib/notify';
import { usePageTitle } from '@/components/ui/page';
import { Alert, TextField } from '@/components/ui/field';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { fieldErrors } from '@/lib/validation';
import { useSignUp } from '@/features/auth/api/auth';
import { registerSchema, type RegisterValues } from '@/features/auth/schemas/auth-schemas';
import { AuthCard, safeRedirect } from '@/features/auth/components/auth-card';

type Errors = Partial<Record<keyof RegisterValues | '_', string>>;
const emailCodes = new Set(['user_already_exists', 'email_exists', 'email_address_invalid']);
const passwordCodes = new Set(['weak_password']);

export default function RegisterPage() {
  usePageTitle('Inscription');
  const settings = useSiteSettings();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [values, setValues] = useState({ fullName: '', email: '', password: '', confirmPassword: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const signUp = useSignUp();
  const redirect = safeRedirect(params.get('redirect'));
  // sign-ups closed (the settings say so, or the auth server just refused one): the form is
  // disabled and one message says so, with the company's phone
  const [refused, setRefused] = useState(false);
  const closed = !settings.allowRegistrations || refused;

  const validate = (v: typeof values): Errors => {
    const r = registerSchema.safeParse(v);
    return r.success ? {} : fieldErrors(r.error);
  };
  const set = (k: keyof typeof values, v: string) => {
    const next = { ...values, [k]: v };
    setValues(next);
    if (touched[k]) setErrors(validate(next));
  };
  const blur = (k: keyof typeof values) => {
    setTouched((t) => ({ ...t, [k]: true }));
    setErrors(validate(values));
  };
  const shown = (k: keyof RegisterValues) => (touched[k] ? errors[k] : undefined);
  const incomplete = !values.email || !values.password || !values.confirmPassword;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (closed) return;
    const r = registerSchema.safeParse(values);
    if (!r.success) {
      setErrors(fieldErrors(r.error));
      setTouched({ email: true, password: true, confirmPassword: true });
      return;
    }
    signUp.mutate(
      { email: r.data.email, password: r.data.password, fullName: r.data.fullName ?? '' },
      {
        onSuccess: () => {
          notify.success('Inscription réussie ! Consultez vos emails pour confirmer votre compte.');
          const q = new URLSearchParams({ registered: '1', email: r.data.email });
          if (redirect) q.set('redirect', redirect);
          navigate(`${paths.login}?${q.toString()}`);
        },
        onError: (err) => {
          const code = 'code' in err ? String(err.code) : '';
          if (code === 'signup_disabled') {
            setRefused(true);
            setErrors({});
            return;
          }
          if (emailCodes.has(code)) setErrors({ email: err.message });
          else if (passwordCodes.has(code)) setErrors({ password: err.message });
          else setErrors({ _: err.message });
          // said once, beside the form (a toast repeated it)
          setTouched({ email: true, password: true, confirmPassword: true });
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
      <form noValidate onSubmit={submit} className="space-y-4" aria-disabled={closed || undefined}>
        <fieldset disabled={closed} className="space-y-4 disabled:opacity-60">
        <TextField label="Nom complet (facultatif)" autoComplete="name" value={values.fullName} onChange={(e) => set('fullName', e.target.value)} />
        <TextField label="Email" type="email" autoComplete="email" value={values.email} onChange={(e) => set('email', e.target.value)} onBlur={() => blur('email')} error={shown('email')} required />
        <TextField
          label="Mot de passe"
          type="password"
          autoComplete="new-password"
          value={values.password}
          onChange={(e) => set('password', e.target.value)}
          onBlur={() => blur('password')}
          error={shown('password')}
          hint="Au moins 8 caractères, dont une majuscule, une minuscule et un chiffre."
          required
        />
        <TextField
          label="Confirmer le mot de passe"
          type="password"
          autoComplete="new-password"
          value={values.confirmPassword}
          onChange={(e) => set('confirmPassword', e.target.value)}
          onBlur={() => blur('confirmPassword')}
          error={shown('confirmPassword')}
          required
        />
        {errors._ && <Alert>{errors._}</Alert>}
        <Button type="submit" className="w-full" disabled={closed || incomplete || signUp.isPending}>
          {signUp.isPending ? 'Inscription…' : "S'inscrire"}
        </Button>
        </fieldset>
      </form>
      <p className="mt-6 text-center text-sm text-slate-700">
        Déjà inscrit ?{' '}
        <Link to={paths.login} className="font-semibold text-blue-900 hover:underline">
          Se connecter
        </Link>
      </p>
    </AuthCard>
  );
}
