import { Link, useNavigate } from 'react-router';
import { notify } from '@/lib/notify';
import { usePageTitle } from '@/components/ui/page';
import { Alert } from '@/components/ui/field';
import { Field, Form, useZodForm } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/states';
import { paths } from '@/config/paths';
import { initialUrl } from '@/lib/supabase';
import { useSession } from '@/lib/session';
import { forgetLocalSession, readLinkOutcome, useUpdatePassword } from '@/features/auth/api/auth';
import { resetPasswordSchema } from '@/features/auth/schemas/auth-schemas';
import { AuthCard } from '@/features/auth/components/auth-card';

export default function ResetPasswordPage() {
  usePageTitle('Nouveau mot de passe');
  const navigate = useNavigate();
  const { loading, user } = useSession();
  // errors show on submit only, as they always have on this page
  const form = useZodForm(resetPasswordSchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: { password: '', confirmPassword: '' } });
  const update = useUpdatePassword();
  const outcome = readLinkOutcome(initialUrl.path === paths.resetPassword ? initialUrl.hash : '', '');

  if (loading) return <Spinner />;
  if (outcome.kind === 'error' || !user) {
    return (
      <AuthCard title="Nouveau mot de passe">
        <Alert>
          {outcome.kind === 'error'
            ? 'Ce lien de réinitialisation a expiré ou a déjà été utilisé.'
            : "Ce lien de réinitialisation n'est pas valide. Ouvrez le lien reçu par email, ou demandez-en un nouveau."}
        </Alert>
        <p className="mt-6 text-center text-sm">
          <Link to={paths.forgotPassword} className="font-semibold text-blue-900 hover:underline">
            Demander un nouveau lien
          </Link>
        </p>
      </AuthCard>
    );
  }

  const submit = ({ password }: { password: string }) => {
    update.mutate(password, {
      onSuccess: async () => {
        notify.success('Mot de passe modifié');
        const email = user.email ?? '';
        await forgetLocalSession();
        navigate(`${paths.login}?reset=1&email=${encodeURIComponent(email)}`, { replace: true });
      },
      onError: (err) => notify.error(err.message),
    });
  };

  return (
    <AuthCard title="Nouveau mot de passe" subtitle={`Choisissez un nouveau mot de passe pour ${user.email ?? 'votre compte'}.`}>
      <Form form={form} onValid={submit} className="space-y-4">
        <Field
          name="password"
          label="Nouveau mot de passe"
          type="password"
          autoComplete="new-password"
          hint="Au moins 8 caractères, dont une majuscule, une minuscule et un chiffre."
          required
        />
        <Field name="confirmPassword" label="Confirmer le mot de passe" type="password" autoComplete="new-password" required />
        {update.isError && <Alert>{update.error.message}</Alert>}
        <Button type="submit" className="w-full" disabled={update.isPending}>
          {update.isPending ? 'Enregistrement…' : 'Enregistrer le mot de passe'}
        </Button>
      </Form>
    </AuthCard>
  );
}
