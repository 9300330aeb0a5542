import { useMemo, useState } from 'react';
import { VehicleImage } from '@/components/vehicle/vehicle-image';
import { notify } from '@/lib/notify';
import { Pencil, Plus, Trash2 } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/field';
import { EmptyState } from '@/components/ui/states';
import { formatPrice } from '@/lib/format';
import type { RentalStatus } from '@/types/database';
import { useAdminVehicles, useDeleteVehicle, useSetVehiclesStatus } from '@/features/admin/api/vehicles';
import { AdminHeader, AdminTable, ConfirmDialog, FilterInput, FilterSelect, RefreshButton, RentalStatusBadge, RowAction, SelectBox } from '@/features/admin/components/admin-ui';
import { VehicleWizard } from '@/features/admin/components/vehicle-wizard';
import { filterVehicles, vehicleFigures, type VehicleSort } from '@/features/admin/lib/filters';
import { categoryLabel, rentalStatuses, rentalStatusLabels } from '@/features/admin/lib/labels';
import { daysSince, sinceLabel } from '@/features/admin/lib/stats';
import { useSelection } from '@/features/admin/lib/selection';
import type { AdminVehicle } from '@/features/admin/types';

export default function AdminVehiclesPage() {
  usePageTitle('Gestion des véhicules');
  const q = useAdminVehicles();
  const del = useDeleteVehicle();
  const bulk = useSetVehiclesStatus();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('all');
  const [sort, setSort] = useState<VehicleSort>('created_at');
  const { selected, toggle, allOf, toggleAll, clear } = useSelection();
  const [wizard, setWizard] = useState<{ open: boolean; vehicle: AdminVehicle | null }>({ open: false, vehicle: null });
  const [deleting, setDeleting] = useState<AdminVehicle | null>(null);
  const list = useMemo(() => filterVehicles(q.data ?? [], search, status, sort), [q.data, search, status, sort]);
  const ids = list.map((v) => v.id);

  const bulkStatus = (value: string) => {
    if (!value) return;
    bulk.mutate(
      { ids: [...selected], status: value as RentalStatus },
      {
        onSuccess: () => {
          notify.success(`${selected.size} véhicule(s) : ${rentalStatusLabels[value as RentalStatus]}`);
          clear();
        },
        onError: (e) => notify.error(`Erreur lors de la mise à jour du statut : ${e.message}`),
      },
    );
  };

  return (
    <>
      <AdminHeader title="Gestion des véhicules" subtitle="La flotte, ses statuts et ses performances">
        <RefreshButton query={q} />
        <Button onClick={() => setWizard({ open: true, vehicle: null })}>
          <Plus className="h-4 w-4" aria-hidden="true" /> Ajouter un véhicule
        </Button>
      </AdminHeader>

      {q.isError && (
        <div className="mb-4">
          <Alert>Erreur lors du chargement des véhicules</Alert>
        </div>
      )}
      <section aria-label="Filtres" className="mb-4 grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-3">
        <FilterInput label="Rechercher" type="search" placeholder="Nom, marque, modèle, immatriculation" value={search} onChange={(e) => setSearch(e.target.value)} />
        <FilterSelect label="Statut" value={status} onChange={setStatus}>
          <option value="all">Tous les statuts</option>
          {rentalStatuses.map((s) => (
            <option key={s} value={s}>
              {rentalStatusLabels[s]}
            </option>
          ))}
        </FilterSelect>
        <FilterSelect label="Trier par" value={sort} onChange={(v) => setSort(v as VehicleSort)}>
          <option value="created_at">Date d'ajout</option>
          <option value="name">Nom</option>
          <option value="category">Catégorie</option>
          <option value="daily_rate">Prix/jour</option>
          <option value="booking_count">Popularité</option>
        </FilterSelect>
      </section>

      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-700" role="status">
          {q.isPending ? 'Chargement des véhicules...' : `${list.length} véhicule(s) trouvé(s)`}
        </p>
        {selected.size > 0 && (
          <div className="flex items-center gap-2 text-sm font-medium">
            <label htmlFor="bulk-status">Changer le statut ({selected.size})</label>
            <select id="bulk-status" value="" onChange={(e) => bulkStatus(e.target.value)} disabled={bulk.isPending} className="rounded-lg border border-slate-300 bg-white px-2 py-1.5 text-sm">
              <option value="">Choisir…</option>
              {rentalStatuses.map((s) => (
                <option key={s} value={s}>
                  {rentalStatusLabels[s]}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>

      {!q.isPending && list.length === 0 ? (
        <EmptyState title="Aucun véhicule trouvé">{search || status !== 'all' ? 'Aucun véhicule ne correspond à votre recherche.' : 'Commencez par ajouter des véhicules à votre flotte.'}</EmptyState>
      ) : (
        <AdminTable
            sticky={2}
          columns={[
            { label: <SelectBox label="Tout sélectionner" checked={allOf(ids)} onChange={() => toggleAll(ids)} /> },
            { label: 'Véhicule' },
            { label: 'Catégorie' },
            { label: 'Prix/jour', right: true },
            { label: 'Statut' },
            { label: 'Réservations' },
            { label: 'Revenus', right: true },
            { label: 'Actions', right: true },
          ]}
        >
          {list.map((v) => {
            const f = vehicleFigures(v);
            return (
              <tr key={v.id} data-testid="vehicle-row">
                <td className="px-4 py-3">
                  <SelectBox label={`Sélectionner ${v.name}`} checked={selected.has(v.id)} onChange={() => toggle(v.id)} />
                </td>
                <td className="px-4 py-3">
                  <div className="flex items-center gap-3">
                    <VehicleImage path={v.primary_image} alt="" className="h-10 w-16 shrink-0 rounded" size={[128, 80]} />
                    <div>
                      <p className="font-medium">{v.name}</p>
                      <p className="text-xs text-slate-600">
                        {v.make} {v.model} {v.year}
                        {v.license_plate && <> · {v.license_plate}</>}
                      </p>
                    </div>
                  </div>
                </td>
                <td className="px-4 py-3">{categoryLabel(v.category)}</td>
                <td className="px-4 py-3 text-right">{formatPrice(v.daily_rate)}</td>
                <td className="px-4 py-3">
                  <RentalStatusBadge status={v.rental_status} />
                </td>
                <td className="px-4 py-3">
                  {f.count}
                  {f.last && <span className="block text-xs text-slate-600">{sinceLabel(daysSince(f.last))}</span>}
                </td>
                <td className="px-4 py-3 text-right">{formatPrice(f.revenue)}</td>
                <td className="whitespace-nowrap px-4 py-3 text-right">
                  <RowAction label={`Modifier ${v.name}`} icon={Pencil} onClick={() => setWizard({ open: true, vehicle: v })} />
                  <RowAction label={`Supprimer ${v.name}`} icon={Trash2} danger onClick={() => setDeleting(v)} />
                </td>
              </tr>
            );
          })}
        </AdminTable>
      )}

      <VehicleWizard
        open={wizard.open}
        vehicle={wizard.vehicle}
        onClose={() => setWizard({ open: false, vehicle: null })}
        onSaved={(v) => {
          notify.success(wizard.vehicle ? `${v.name} mis à jour` : `${v.name} ajouté à la flotte`);
          setWizard({ open: false, vehicle: null });
        }}
      />
      <ConfirmDialog
        open={!!deleting}
        title="Confirmer la suppression"
        message="Êtes-vous sûr de vouloir supprimer ce véhicule ? Cette action est irréversible."
        busy={del.isPending}
        error={del.isError ? del.error.message : null}
        onClose={() => {
          setDeleting(null);
          del.reset();
        }}
        onConfirm={() =>
          deleting &&
          del.mutate(deleting.id, {
            onSuccess: () => {
              notify.success('Véhicule supprimé');
              setDeleting(null);
            },
          })
        }
      />
    </>
  );
}
