import { useMemo, useState } from 'react';
import { notify } from '@/lib/notify';
import { Pencil, Plus, Trash2 } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { formatDate, formatPrice } from '@/lib/format';
import { useSession } from '@/lib/session';
import { cn } from '@/lib/cn';
import { useDeleteUsers, useUsers } from '@/features/admin/api/users';
import { AdminHeader, AdminTable, EmailText, ConfirmDialog, FilterInput, FilterSelect, RefreshButton, RowAction, SelectBox } from '@/features/admin/components/admin-ui';
import { UserDialog } from '@/features/admin/components/user-dialog';
import { filterUsers, type UserSort } from '@/features/admin/lib/filters';
import { useSelection } from '@/features/admin/lib/selection';
import { roleLabels } from '@/features/admin/lib/labels';
import type { AdminUser } from '@/features/admin/types';

export default function AdminUsersPage() {
  usePageTitle('Gestion des utilisateurs');
  const { user: me } = useSession();
  const q = useUsers();
  const del = useDeleteUsers();
  const [search, setSearch] = useState('');
  const [role, setRole] = useState<'all' | 'user' | 'admin'>('all');
  const [sort, setSort] = useState<UserSort>('created_at');
  const { selected, toggle, allOf, toggleAll, clear } = useSelection();
  const [dialog, setDialog] = useState<{ open: boolean; user: AdminUser | null }>({ open: false, user: null });
  const [deleting, setDeleting] = useState<string[] | null>(null);
  const list = useMemo(() => filterUsers(q.data ?? [], search, role, sort), [q.data, search, role, sort]);
  // one's own account cannot be deleted (the database refuses it too): not selectable.
  const selectable = list.filter((u) => u.user_id !== me?.id).map((u) => u.user_id);

  const confirmDelete = () => {
    if (!deleting) return;
    const bulk = deleting.length > 1;
    del.mutate(deleting, {
      onSuccess: (n) => {
        notify.success(`${n} utilisateur(s) supprimé(s)`);
        clear();
        setDeleting(null);
      },
      onError: (e) => notify.error(`${bulk ? "Erreur lors de l'action groupée" : 'Erreur lors de la suppression'} : ${e.message}`),
    });
  };

  return (
    <>
      <AdminHeader title="Gestion des utilisateurs" subtitle="Comptes clients et administrateurs">
        <RefreshButton query={q} />
        {selected.size > 0 && (
          <Button variant="danger" onClick={() => setDeleting([...selected])}>
            <Trash2 className="h-4 w-4" aria-hidden="true" /> Supprimer ({selected.size})
          </Button>
        )}
        <Button onClick={() => setDialog({ open: true, user: null })}>
          <Plus className="h-4 w-4" aria-hidden="true" /> Ajouter un utilisateur
        </Button>
      </AdminHeader>

      <section aria-label="Filtres" className="mb-4 grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-3">
        <FilterInput label="Rechercher" type="search" placeholder="Nom, email, téléphone" value={search} onChange={(e) => setSearch(e.target.value)} />
        <FilterSelect label="Rôle" value={role} onChange={(v) => setRole(v as typeof role)}>
          <option value="all">Tous les rôles</option>
          <option value="user">Utilisateurs</option>
          <option value="admin">Administrateurs</option>
        </FilterSelect>
        <FilterSelect label="Trier par" value={sort} onChange={(v) => setSort(v as UserSort)}>
          <option value="created_at">Date d'inscription</option>
          <option value="name">Nom</option>
          <option value="email">Email</option>
          <option value="booking_count">Nombre de réservations</option>
        </FilterSelect>
      </section>

      {q.isPending ? (
        <Spinner label="Chargement des utilisateurs…" />
      ) : q.isError ? (
        <ErrorState message="Erreur lors du chargement des utilisateurs" onRetry={() => q.refetch()} />
      ) : list.length === 0 ? (
        <EmptyState title="Aucun utilisateur trouvé">Aucun utilisateur ne correspond à votre recherche.</EmptyState>
      ) : (
        <>
          <p className="mb-3 text-sm text-slate-700" role="status">
            {list.length} utilisateur(s) trouvé(s)
          </p>
          <AdminTable
            sticky={2}
            columns={[
              { label: <SelectBox label="Tout sélectionner" checked={allOf(selectable)} onChange={() => toggleAll(selectable)} /> },
              { label: 'Utilisateur' },
              { label: 'Rôle' },
              { label: 'Réservations' },
              { label: 'Total dépensé', right: true },
              { label: 'Inscription' },
              { label: 'Actions', right: true },
            ]}
          >
            {list.map((u) => {
              const self = u.user_id === me?.id;
              const name = u.full_name || 'Nom non renseigné';
              return (
                <tr key={u.id} data-testid="user-row">
                  <td className="px-4 py-3">
                    <SelectBox label={`Sélectionner ${name}`} disabled={self} checked={selected.has(u.user_id)} onChange={() => toggle(u.user_id)} />
                  </td>
                  <td className="max-w-[15rem] px-4 py-3">
                    <p className="font-medium">
                      {name} {self && <span className="text-xs text-slate-600">(vous)</span>}
                    </p>
                    <EmailText email={u.email} />
                    {u.phone && <p className="text-xs text-slate-600">{u.phone}</p>}
                  </td>
                  <td className="px-4 py-3">
                    <span className={cn('rounded-full px-2.5 py-0.5 text-xs font-semibold', u.role === 'admin' ? 'bg-purple-100 text-purple-900' : 'bg-slate-100 text-slate-800')}>{roleLabels[u.role]}</span>
                  </td>
                  <td className="px-4 py-3">
                    {u.booking_count}
                    <span className={cn('ml-2 text-xs', u.is_active ? 'text-green-800' : 'text-slate-600')}>{u.is_active ? 'Actif' : 'Inactif'}</span>
                  </td>
                  <td className="px-4 py-3 text-right">{formatPrice(u.total_spent)}</td>
                  <td className="px-4 py-3">{formatDate(u.created_at)}</td>
                  <td className="whitespace-nowrap px-4 py-3 text-right">
                    <RowAction label={`Modifier ${name}`} icon={Pencil} onClick={() => setDialog({ open: true, user: u })} />
                    <RowAction label={`Supprimer ${name}`} icon={Trash2} danger disabled={self} onClick={() => setDeleting([u.user_id])} />
                  </td>
                </tr>
              );
            })}
          </AdminTable>
        </>
      )}

      <UserDialog
        open={dialog.open}
        user={dialog.user}
        isSelf={dialog.user?.user_id === me?.id}
        onClose={() => setDialog({ open: false, user: null })}
        onSaved={() => {
          notify.success('Utilisateur mis à jour');
          setDialog({ open: false, user: null });
        }}
      />
      <ConfirmDialog
        open={!!deleting}
        title="Confirmer la suppression"
        message={
          deleting && deleting.length > 1
            ? `Êtes-vous sûr de vouloir supprimer ces ${deleting.length} utilisateurs ? Cette action est irréversible.`
            : 'Êtes-vous sûr de vouloir supprimer cet utilisateur ? Cette action est irréversible.'
        }
        busy={del.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={confirmDelete}
      />
    </>
  );
}
