import { Link } from 'react-router';
import { usePageTitle } from '@/components/ui/page';
import { Alert } from '@/components/ui/field';
import { Field, Form, useZodForm } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { useRequestPasswordReset } from '@/features/auth/api/auth';
import { forgotPasswordSchema } from '@/features/auth/schemas/auth-schemas';
import { AuthCard } from '@/features/auth/components/auth-card';

export default function ForgotPasswordPage() {
  usePageTitle('Mot de passe oublié');
  // errors show on submit only, as they always have on this page
  const form = useZodForm(forgotPasswordSchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: { email: '' } });
  const reset = useRequestPasswordReset();
  return (
    <AuthCard title="Mot de passe oublié" subtitle="Saisissez votre email : nous vous enverrons un lien pour choisir un nouveau mot de passe.">
      {reset.isSuccess ? (
        <Alert tone="success">Un email de réinitialisation vous a été envoyé. Ouvrez le lien qu'il contient pour choisir un nouveau mot de passe.</Alert>
      ) : (
        <Form form={form} onValid={(v) => reset.mutate(v.email)} className="space-y-4">
          <Field name="email" label="Email" type="email" autoComplete="email" required />
          {reset.isError && <Alert>{reset.error.message}</Alert>}
          <Button type="submit" className="w-full" disabled={reset.isPending}>
            {reset.isPending ? 'Envoi…' : 'Envoyer le lien'}
          </Button>
        </Form>
      )}
      <p className="mt-6 text-center text-sm">
        <Link to={paths.login} className="font-semibold text-blue-900 hover:underline">
          ← Retour à la connexion
        </Link>
      </p>
    </AuthCard>
  );
}
