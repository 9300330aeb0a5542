import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notify } from '@/lib/notify';
import { TextField } from '@/components/ui/field';
import { Button } from '@/components/ui/button';
import { profileKeys, updateOwnProfile } from '@/lib/profile-api';
import { isValidPhone } from '@/lib/validation';
import type { Profile } from '@/types/database';

export function ProfileForm({ profile }: { profile: Profile }) {
  const [fullName, setFullName] = useState(profile.full_name ?? '');
  const [phone, setPhone] = useState(profile.phone ?? '');
  const [errors, setErrors] = useState<{ fullName?: string; phone?: string }>({});
  const qc = useQueryClient();
  const update = useMutation({
    mutationFn: () => updateOwnProfile(profile.user_id, { full_name: fullName, phone }),
    onSuccess: (p) => {
      qc.setQueryData(profileKeys.own(profile.user_id), p);
      notify.success('Profil mis à jour');
    },
    onError: (e) => {
      notify.error(e.message);
      // the profile row may be saved even if the account was not: show what the database holds.
      void qc.invalidateQueries({ queryKey: profileKeys.own(profile.user_id) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next: typeof errors = {};
    if (fullName.trim().length < 2) next.fullName = 'Le nom doit contenir au moins 2 caractères';
    if (phone.trim() && !isValidPhone(phone)) next.phone = 'Numéro de téléphone invalide';
    setErrors(next);
    if (Object.keys(next).length === 0) update.mutate();
  };
  return (
    <form noValidate onSubmit={submit} className="max-w-lg space-y-4">
      <TextField label="Email" type="email" value={profile.email ?? ''} readOnly disabled hint="L'email ne peut pas être modifié ici." />
      <TextField label="Nom complet" autoComplete="name" value={fullName} onChange={(e) => setFullName(e.target.value)} error={errors.fullName} required />
      <TextField label="Téléphone" type="tel" autoComplete="tel" value={phone} onChange={(e) => setPhone(e.target.value)} error={errors.phone} placeholder="+243 81 234 5678" />
      <p className="text-sm text-slate-700">
        Rôle : <strong>{profile.role === 'admin' ? 'Administrateur' : 'Utilisateur'}</strong>
      </p>
      <Button type="submit" disabled={update.isPending}>
        {update.isPending ? 'Enregistrement…' : 'Enregistrer'}
      </Button>
    </form>
  );
}
