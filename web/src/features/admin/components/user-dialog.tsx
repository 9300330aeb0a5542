import { useEffect, useState, type FormEvent } from 'react';
import { Dialog } from '@/components/ui/dialog';
import { FormActions } from '@/components/ui/button';
import { Alert, SelectField, TextField } from '@/components/ui/field';
import type { AdminUser } from '../types';
import { USER_REQUIRED_MESSAGE, userSchema } from '../schemas/user-schema';
import { useUpdateUser } from '../api/users';

export const CREATE_UNSUPPORTED = "La création d'utilisateurs nécessite une implémentation d'authentification avancée";

/** Add (not supported: accounts are created by sign-up) or edit a user: name, phone, role. */
export function UserDialog({ open, user, isSelf, onClose, onSaved }: { open: boolean; user: AdminUser | null; isSelf: boolean; onClose: () => void; onSaved: () => void }) {
  const [values, setValues] = useState({ full_name: '', email: '', phone: '', role: 'user' as 'user' | 'admin' });
  const [error, setError] = useState<string | null>(null);
  const update = useUpdateUser();
  useEffect(() => {
    if (!open) return;
    setValues({ full_name: user?.full_name ?? '', email: user?.email ?? '', phone: user?.phone ?? '', role: user?.role ?? 'user' });
    setError(null);
  }, [open, user]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const r = userSchema.safeParse(values);
    if (!r.success) {
      setError(USER_REQUIRED_MESSAGE);
      return;
    }
    if (!user) {
      setError(CREATE_UNSUPPORTED);
      return;
    }
    setError(null);
    update.mutate(
      { id: user.id, values: { full_name: r.data.full_name, phone: r.data.phone, role: r.data.role } },
      { onSuccess: onSaved, onError: (err) => setError(err.message || 'Erreur lors de la sauvegarde') },
    );
  };

  return (
    <Dialog open={open} onClose={onClose} title={user ? "Modifier l'utilisateur" : 'Ajouter un utilisateur'}>
      <form noValidate onSubmit={submit} className="space-y-4">
        <TextField label="Nom complet" value={values.full_name} onChange={(e) => setValues((v) => ({ ...v, full_name: e.target.value }))} required />
        <TextField
          label="Email"
          type="email"
          value={values.email}
          onChange={(e) => setValues((v) => ({ ...v, email: e.target.value }))}
          disabled={!!user}
          hint={user ? "L'email ne peut pas être modifié" : undefined}
          required
        />
        <TextField label="Téléphone" type="tel" value={values.phone} onChange={(e) => setValues((v) => ({ ...v, phone: e.target.value }))} />
        <SelectField
          label="Rôle"
          value={values.role}
          onChange={(e) => setValues((v) => ({ ...v, role: e.target.value as 'user' | 'admin' }))}
          disabled={isSelf}
          hint={isSelf ? 'Vous ne pouvez pas modifier votre propre rôle' : undefined}
        >
          <option value="user">Utilisateur</option>
          <option value="admin">Administrateur</option>
        </SelectField>
        {error && <Alert>{error}</Alert>}
        <FormActions onCancel={onClose} submitLabel="Sauvegarder" busy={update.isPending} busyLabel="Sauvegarde…" cancelVariant="secondary" />
      </form>
    </Dialog>
  );
}
