import { useMutation, useQueryClient } from '@tanstack/react-query';
import { notify } from '@/lib/notify';
import { TextField } from '@/components/ui/field';
import { Field, Form, useZodForm } from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { profileKeys, updateOwnProfile } from '@/lib/profile-api';
import { profileSchema, type ProfileValues } from '../schemas/profile-schema';
import type { Profile } from '@/types/database';

export function ProfileForm({ profile }: { profile: Profile }) {
  // errors show on submit only, as they always have in this tab
  const form = useZodForm(profileSchema, {
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    defaultValues: { fullName: profile.full_name ?? '', phone: profile.phone ?? '' },
  });
  const qc = useQueryClient();
  const update = useMutation({
    mutationFn: ({ fullName, phone }: ProfileValues) => updateOwnProfile(profile.user_id, { full_name: fullName, phone }),
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
  return (
    <Form form={form} onValid={(v) => update.mutate(v)} className="max-w-lg space-y-4">
      <TextField label="Email" type="email" value={profile.email ?? ''} readOnly disabled hint="L'email ne peut pas être modifié ici." />
      <Field name="fullName" label="Nom complet" autoComplete="name" required />
      <Field name="phone" label="Téléphone" type="tel" autoComplete="tel" placeholder="+243 81 234 5678" />
      <p className="text-sm text-slate-700">
        Rôle : <strong>{profile.role === 'admin' ? 'Administrateur' : 'Utilisateur'}</strong>
      </p>
      <Button type="submit" disabled={update.isPending}>
        {update.isPending ? 'Enregistrement…' : 'Enregistrer'}
      </Button>
    </Form>
  );
}
