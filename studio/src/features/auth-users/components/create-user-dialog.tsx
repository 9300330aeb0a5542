import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { useCreateUser, useInviteUser } from '../api/users';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Field, Input } from '@/components/ui/field';
import { ErrorNote } from '@/components/ui/states';
import { paths } from '@/lib/paths';

const createSchema = z.object({
  email: z.email('Enter an e-mail address'),
  password: z.string().min(6, 'At least 6 characters'),
  auto_confirm: z.boolean(),
});
const inviteSchema = z.object({ email: z.email('Enter an e-mail address') });
type CreateValues = z.infer<typeof createSchema>;

function CreateForm({ onDone }: { onDone: (id: string) => void }) {
  const create = useCreateUser();
  const form = useForm<CreateValues>({ resolver: zodResolver(createSchema), defaultValues: { email: '', password: '', auto_confirm: true } });
  const errors = form.formState.errors;
  return (
    <form noValidate className="flex flex-col gap-3" onSubmit={form.handleSubmit((v) => create.mutate(v, { onSuccess: (u) => onDone(u.id) }))}>
      <Field label="E-mail" error={errors.email?.message}>
        {(id, d) => <Input id={id} type="email" autoComplete="off" aria-describedby={d} {...form.register('email')} />}
      </Field>
      <Field label="Password" error={errors.password?.message}>
        {(id, d) => <Input id={id} type="password" autoComplete="new-password" aria-describedby={d} {...form.register('password')} />}
      </Field>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" {...form.register('auto_confirm')} /> Confirm the address now (no confirmation mail)
      </label>
      {create.error && <ErrorNote error={create.error} />}
      <div className="flex justify-end gap-2">
        <Button type="submit" variant="primary" disabled={create.isPending}>
          Create user
        </Button>
      </div>
    </form>
  );
}

function InviteForm({ onDone }: { onDone: (id: string) => void }) {
  const invite = useInviteUser();
  const form = useForm<{ email: string }>({ resolver: zodResolver(inviteSchema), defaultValues: { email: '' } });
  return (
    <form noValidate className="flex flex-col gap-3" onSubmit={form.handleSubmit((v) => invite.mutate(v, { onSuccess: (u) => onDone(u.id) }))}>
      <p className="text-sm text-slate-700">The invite mail is sent by the auth server's mailer (the development inbox when SMTP is not set).</p>
      <Field label="E-mail" error={form.formState.errors.email?.message}>
        {(id, d) => <Input id={id} type="email" autoComplete="off" aria-describedby={d} {...form.register('email')} />}
      </Field>
      {invite.error && <ErrorNote error={invite.error} />}
      <div className="flex justify-end gap-2">
        <Button type="submit" variant="primary" disabled={invite.isPending}>
          Send invite
        </Button>
      </div>
    </form>
  );
}

/** Create a user with a password, or invite one by mail. */
export function CreateUserDialog({ mode, onClose }: { mode: 'create' | 'invite' | null; onClose: () => void }) {
  const navigate = useNavigate();
  const done = (id: string) => {
    onClose();
    navigate(paths.authUser(id));
  };
  return (
    <Dialog open={mode !== null} title={mode === 'invite' ? 'Invite a user' : 'Create a user'} onClose={onClose}>
      {mode === 'invite' ? <InviteForm onDone={done} /> : mode === 'create' ? <CreateForm onDone={done} /> : null}
      <div className="mt-2 flex justify-end">
        <Button variant="ghost" onClick={onClose}>
          Cancel
        </Button>
      </div>
    </Dialog>
  );
}
