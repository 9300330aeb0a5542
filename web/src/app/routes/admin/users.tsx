import { useMemo, useState } from 'react';
import { notify } from '@/lib/notify';
import { Pencil, Plus, RefreshCw, Trash2 } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { formatDate, formatPrice } from '@/lib/format';
import { useSession } from '@/lib/session';
import { cn } from '@/lib/cn';
import { useDeleteUsers, useUsers } from '@/features/admin/api/users';
import { AdminHeader, ConfirmDialog, FilterInput, FilterSelect } from '@/features/admin/components/admin-ui';
import { UserDialog } from '@/features/admin/components/user-dialog';
import { filterUsers, type UserSort } from '@/features/admin/lib/filters';
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
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<{ open: boolean; user: AdminUser | null }>({ open: false, user: null });
  const [deleting, setDeleting] = useState<string[] | null>(null);
  const list = useMemo(() => filterUsers(q.data ?? [], search, role, sort), [q.data, search, role, sort]);
  // one's own account cannot be deleted (the database refuses it too): not selectable.
  const selectable = list.filter((u) => u.user_id !== me?.id);
  const allSelected = selectable.length > 0 && selectable.every((u) => selected.has(u.user_id));

  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  const confirmDelete = () => {
    if (!deleting) return;
    const bulk = deleting.length > 1;
    del.mutate(deleting, {
      onSuccess: (n) => {
        notify.success(`${n} utilisateur(s) supprimé(s)`);
        setSelected(new Set());
        setDeleting(null);
      },
      onError: (e) => notify.error(`${bulk ? "Erreur lors de l'action groupée" : 'Erreur lors de la suppression'} : ${e.message}`),
    });
  };

  return (
    <>
      <AdminHeader title="Gestion des utilisateurs" subtitle="Comptes clients et administrateurs">
        <Button variant="outline" onClick={() => q.refetch()} disabled={q.isFetching}>
          <RefreshCw className={q.isFetching ? 'h-4 w-4 animate-spin' : 'h-4 w-4'} aria-hidden="true" /> Actualiser
        </Button>
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
          <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm">
            <table className="min-w-full text-left text-sm">
              <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-600">
                <tr>
                  <th scope="col" className="px-4 py-3">
                    <input type="checkbox" className="h-4 w-4 accent-blue-900" aria-label="Tout sélectionner" checked={allSelected} onChange={() => setSelected(allSelected ? new Set() : new Set(selectable.map((u) => u.user_id)))} />
                  </th>
                  <th scope="col" className="px-4 py-3">Utilisateur</th>
                  <th scope="col" className="px-4 py-3">Rôle</th>
                  <th scope="col" className="px-4 py-3">Réservations</th>
                  <th scope="col" className="px-4 py-3 text-right">Total dépensé</th>
                  <th scope="col" className="px-4 py-3">Inscription</th>
                  <th scope="col" className="px-4 py-3 text-right">Actions</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {list.map((u) => {
                  const self = u.user_id === me?.id;
                  const name = u.full_name || 'Nom non renseigné';
                  return (
                    <tr key={u.id} data-testid="user-row">
                      <td className="px-4 py-3">
                        <input type="checkbox" className="h-4 w-4 accent-blue-900" aria-label={`Sélectionner ${name}`} disabled={self} checked={selected.has(u.user_id)} onChange={() => toggle(u.user_id)} />
                      </td>
                      <td className="px-4 py-3">
                        <p className="font-medium">
                          {name} {self && <span className="text-xs text-slate-600">(vous)</span>}
                        </p>
                        <p className="text-xs text-slate-600">{u.email}</p>
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
                        <button type="button" onClick={() => setDialog({ open: true, user: u })} className="rounded-md p-2 text-blue-900 hover:bg-blue-50 focus-visible:outline-3 focus-visible:outline-amber-500" aria-label={`Modifier ${name}`}>
                          <Pencil className="h-4 w-4" aria-hidden="true" />
                        </button>
                        <button type="button" onClick={() => setDeleting([u.user_id])} disabled={self} className="rounded-md p-2 text-red-700 hover:bg-red-50 disabled:opacity-40 focus-visible:outline-3 focus-visible:outline-amber-500" aria-label={`Supprimer ${name}`}>
                          <Trash2 className="h-4 w-4" aria-hidden="true" />
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
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
