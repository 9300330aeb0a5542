import { useEffect, useState } from 'react';
import { Dialog } from '@/components/ui/dialog';
import { FormActions } from '@/components/ui/button';
import { Alert, SelectField, TextField } from '@/components/ui/field';
import { Form, useZodForm } from '@/components/ui/form';
import type { AdminUser } from '../types';
import { USER_REQUIRED_MESSAGE, userSchema, type UserValues } from '../schemas/user-schema';
import { useUpdateUser } from '../api/users';

export const CREATE_UNSUPPORTED = "La création d'utilisateurs nécessite une implémentation d'authentification avancée";

/** Add (not supported: accounts are created by sign-up) or edit a user: name, phone, role. */
export function UserDialog({ open, user, isSelf, onClose, onSaved }: { open: boolean; user: AdminUser | null; isSelf: boolean; onClose: () => void; onSaved: () => void }) {
  // one message for the dialog, beside the buttons, rather than one per field
  const form = useZodForm(userSchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: { full_name: '', email: '', phone: '', role: 'user' } });
  const [error, setError] = useState<string | null>(null);
  const update = useUpdateUser();
  const { reset } = form;
  useEffect(() => {
    if (!open) return;
    reset({ full_name: user?.full_name ?? '', email: user?.email ?? '', phone: user?.phone ?? '', role: user?.role ?? 'user' });
    setError(null);
  }, [open, user, reset]);

  const submit = (values: UserValues) => {
    if (!user) {
      setError(CREATE_UNSUPPORTED);
      return;
    }
    setError(null);
    update.mutate(
      { id: user.id, values: { full_name: values.full_name, phone: values.phone, role: values.role } },
      { onSuccess: onSaved, onError: (err) => setError(err.message || 'Erreur lors de la sauvegarde') },
    );
  };

  return (
    <Dialog open={open} onClose={onClose} title={user ? "Modifier l'utilisateur" : 'Ajouter un utilisateur'}>
      <Form form={form} onValid={submit} onInvalid={() => setError(USER_REQUIRED_MESSAGE)} className="space-y-4">
        <TextField label="Nom complet" {...form.register('full_name')} required />
        <TextField
          label="Email"
          type="email"
          {...form.register('email')}
          disabled={!!user}
          hint={user ? "L'email ne peut pas être modifié" : undefined}
          required
        />
        <TextField label="Téléphone" type="tel" {...form.register('phone')} />
        <SelectField
          label="Rôle"
          {...form.register('role')}
          disabled={isSelf}
          hint={isSelf ? 'Vous ne pouvez pas modifier votre propre rôle' : undefined}
        >
          <option value="user">Utilisateur</option>
          <option value="admin">Administrateur</option>
        </SelectField>
        {error && <Alert>{error}</Alert>}
        <FormActions onCancel={onClose} submitLabel="Sauvegarder" busy={update.isPending} busyLabel="Sauvegarde…" cancelVariant="secondary" />
      </Form>
    </Dialog>
  );
}
