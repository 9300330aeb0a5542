import { useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { ShieldCheck } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { Alert } from '@/components/ui/field';
import { Field, Form, useZodForm } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/states';
import { adminPaths } from '@/config/admin-paths';
import { useCompany } from '@/lib/site-settings';
import { useSession } from '@/lib/session';
import { useSignIn } from '@/features/auth/api/auth';
import { signInSchema, type SignInValues } from '@/features/auth/schemas/auth-schemas';

const DENIED = "Accès refusé - Vous n'avez pas les permissions nécessaires.";

/** Where to land after sign-in: a back-office path from ?redirect, else the dashboard. */
function landing(redirect: string | null): string {
  return redirect && redirect.startsWith('/admin/') && !redirect.startsWith(adminPaths.login) ? redirect : adminPaths.dashboard;
}

export default function AdminLoginPage() {
  const company = useCompany();
  usePageTitle('Administration - Connexion');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { user, loading, isAdmin, profileLoading } = useSession();
  // errors show on submit only, as on the site's login page
  const form = useZodForm(signInSchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: { email: '', password: '', remember: true } });
  const [denied, setDenied] = useState(false);
  const signIn = useSignIn();
  const target = landing(params.get('redirect'));

  if (loading) return <Spinner />;
  if (user && isAdmin && !signIn.isPending) return <Navigate to={target} replace />;
  if (user && profileLoading && !signIn.isPending) return <Spinner />;

  const submit = (values: SignInValues) => {
    setDenied(false);
    signIn.mutate(values, {
      onSuccess: (profile) => {
        if (profile.role === 'admin') navigate(target, { replace: true });
        else setDenied(true);
      },
    });
  };

  return (
    <main className="flex min-h-screen items-center justify-center bg-gradient-to-br from-blue-950 via-blue-900 to-slate-900 px-4 py-10">
      <div className="w-full max-w-md rounded-2xl bg-white p-6 shadow-2xl sm:p-8">
        <div className="mb-6 text-center">
          <ShieldCheck className="mx-auto mb-2 h-10 w-10 text-blue-900" aria-hidden="true" />
          <h1 className="text-2xl font-bold text-blue-950">Administration</h1>
          <p className="mt-1 text-sm text-slate-600">{company.name} — accès réservé aux administrateurs</p>
        </div>
        {(denied || (user && !isAdmin && !profileLoading)) && (
          <div className="mb-4">
            <Alert>{DENIED}</Alert>
          </div>
        )}
        <Form form={form} onValid={submit} className="space-y-4">
          <Field name="email" label="Email" type="email" autoComplete="email" required />
          <Field name="password" label="Mot de passe" type="password" autoComplete="current-password" required />
          {signIn.isError && <Alert>{signIn.error.message}</Alert>}
          <Button type="submit" className="w-full" disabled={signIn.isPending}>
            {signIn.isPending ? 'Connexion…' : 'Se connecter'}
          </Button>
        </Form>
      </div>
    </main>
  );
}
