import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { signInSchema, useSignIn, type SignInInput } from '../api/session';
import { Button } from '@/components/ui/button';
import { Field, Input } from '@/components/ui/field';
import { ApiError } from '@/lib/api';

export function SignInForm() {
  const signIn = useSignIn();
  const form = useForm<SignInInput>({ resolver: zodResolver(signInSchema), defaultValues: { email: '', password: '', code: '' } });
  const { errors } = form.formState;
  // The server asks for a TOTP code after a right password when the operator has it on.
  const askCode = signIn.error instanceof ApiError && (signIn.error.code === 'totp_required' || signIn.error.code === 'invalid_totp');
  const failure =
    signIn.error instanceof ApiError
      ? signIn.error.code === 'totp_required'
        ? 'Enter the code of your authenticator app.'
        : signIn.error.code === 'too_many_attempts'
        ? 'Too many attempts. Wait a few minutes and try again.'
        : signIn.error.message
      : signIn.error
        ? 'The server could not be reached.'
        : null;
  return (
    <main className="flex min-h-full items-center justify-center p-4">
      <form
        noValidate
        onSubmit={form.handleSubmit((values) => signIn.mutate({ ...values, code: values.code || undefined }))}
        className="flex w-full max-w-sm flex-col gap-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm"
      >
        <div>
          <h1 className="text-lg font-semibold">Sign in to Studio</h1>
          <p className="text-sm text-slate-600">The operator's dashboard of this server.</p>
        </div>
        <Field label="E-mail" error={errors.email?.message}>
          {(id, describedBy) => <Input id={id} type="email" autoComplete="username" aria-describedby={describedBy} aria-invalid={!!errors.email} {...form.register('email')} />}
        </Field>
        <Field label="Password" error={errors.password?.message}>
          {(id, describedBy) => (
            <Input id={id} type="password" autoComplete="current-password" aria-describedby={describedBy} aria-invalid={!!errors.password} {...form.register('password')} />
          )}
        </Field>
        {askCode && (
          <Field label="Authentication code">
            {(id) => <Input id={id} inputMode="numeric" autoComplete="one-time-code" autoFocus {...form.register('code')} />}
          </Field>
        )}
        {failure && (
          <p role="alert" className="rounded-md bg-red-50 p-2 text-sm text-red-800">
            {failure}
          </p>
        )}
        <Button type="submit" variant="primary" disabled={signIn.isPending} className="justify-center">
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
    </main>
  );
}
