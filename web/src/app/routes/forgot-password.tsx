import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { usePageTitle } from '@/components/ui/page';
import { Alert, TextField } from '@/components/ui/field';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { fieldErrors } from '@/lib/validation';
import { useRequestPasswordReset } from '@/features/auth/api/auth';
import { forgotPasswordSchema } from '@/features/auth/schemas/auth-schemas';
import { AuthCard } from '@/features/auth/components/auth-card';

export default function ForgotPasswordPage() {
  usePageTitle('Mot de passe oublié');
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | undefined>();
  const reset = useRequestPasswordReset();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = forgotPasswordSchema.safeParse({ email });
    if (!r.success) {
      setError(fieldErrors<'email'>(r.error).email);
      return;
    }
    setError(undefined);
    reset.mutate(r.data.email);
  };
  return (
    <AuthCard title="Mot de passe oublié" subtitle="Saisissez votre email : nous vous enverrons un lien pour choisir un nouveau mot de passe.">
      {reset.isSuccess ? (
        <Alert tone="success">Un email de réinitialisation vous a été envoyé. Ouvrez le lien qu'il contient pour choisir un nouveau mot de passe.</Alert>
      ) : (
        <form noValidate onSubmit={submit} className="space-y-4">
          <TextField label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={error} required />
          {reset.isError && <Alert>{reset.error.message}</Alert>}
          <Button type="submit" className="w-full" disabled={reset.isPending}>
            {reset.isPending ? 'Envoi…' : 'Envoyer le lien'}
          </Button>
        </form>
      )}
      <p className="mt-6 text-center text-sm">
        <Link to={paths.login} className="font-semibold text-blue-900 hover:underline">
          ← Retour à la connexion
        </Link>
      </p>
    </AuthCard>
  );
}
