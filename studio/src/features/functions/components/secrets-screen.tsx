import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { Link } from 'react-router';
import { useSecrets, useSetSecret, useUnsetSecret } from '../api/functions';
import { secretNameSchema } from '../lib/functions';
import { Button } from '@/components/ui/button';
import { Field, Input } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';
import { paths } from '@/lib/paths';

const secretSchema = z.object({ name: secretNameSchema, value: z.string().min(1, 'Give a value') });
type SecretForm = z.infer<typeof secretSchema>;

/** Functions › Secrets: names listed, values write-only (set again to change one). */
export function SecretsScreen() {
  const secrets = useSecrets();
  const set = useSetSecret();
  const unset = useUnsetSecret();
  const form = useForm<SecretForm>({ resolver: zodResolver(secretSchema), defaultValues: { name: '', value: '' } });
  const errors = form.formState.errors;
  return (
    <div className="flex h-full flex-col">
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2">
        <h1 className="text-base font-semibold">
          <Link to={paths.function()} className="font-normal text-slate-600 underline">
            Functions
          </Link>
          <span className="font-normal text-slate-600"> › </span>Secrets
        </h1>
        <p className="text-xs text-slate-600">Every function reads them with Deno.env.get; a changed value reaches new workers.</p>
      </header>
      <form
        aria-label="Set a secret"
        noValidate
        className="flex flex-wrap items-end gap-2 border-b border-slate-200 bg-white px-3 py-2"
        onSubmit={form.handleSubmit((v) => set.mutate({ name: v.name.trim(), value: v.value }, { onSuccess: () => form.reset() }))}
      >
        <div className="w-56">
          <Field label="Name" error={errors.name?.message}>
            {(id, d) => <Input id={id} aria-describedby={d} autoComplete="off" placeholder="STRIPE_KEY" {...form.register('name')} />}
          </Field>
        </div>
        <div className="w-72">
          <Field label="Value" error={errors.value?.message}>
            {(id, d) => <Input id={id} aria-describedby={d} type="password" autoComplete="new-password" {...form.register('value')} />}
          </Field>
        </div>
        <Button type="submit" variant="primary" disabled={set.isPending}>
          {set.isPending ? 'Saving…' : 'Set secret'}
        </Button>
      </form>
      {set.error && <ErrorNote error={set.error} />}
      {unset.error && <ErrorNote error={unset.error} />}
      {secrets.isPending && <Loading />}
      {secrets.error && <ErrorNote error={secrets.error} />}
      {secrets.data && (
        <table className="m-3 w-[min(40rem,calc(100%-1.5rem))] text-sm" aria-label="Secrets">
          <thead>
            <tr className="border-b border-slate-300 text-left">
              <th scope="col" className="py-1 font-semibold">
                Name
              </th>
              <th scope="col" className="py-1 font-semibold">
                Updated
              </th>
              <th scope="col" className="py-1">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {!secrets.data.length && (
              <tr>
                <td colSpan={3} className="py-2 text-slate-600">
                  No secret set.
                </td>
              </tr>
            )}
            {secrets.data.map((s) => (
              <tr key={s.name} className="border-b border-slate-100">
                <td className="py-1 font-mono">{s.name}</td>
                <td className="py-1 text-slate-700">{new Date(s.updated_at).toLocaleString()}</td>
                <td className="py-1 text-right">
                  <Button variant="ghost" aria-label={`Remove ${s.name}`} disabled={unset.isPending} onClick={() => unset.mutate(s.name)}>
                    Remove
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
