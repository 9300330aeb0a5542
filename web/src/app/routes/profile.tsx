import { useState } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { LogOut } from 'lucide-react';
import { notify } from '@/lib/notify';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/field';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { paths } from '@/config/paths';
import { formatPrice } from '@/lib/format';
import { useSession } from '@/lib/session';
import { cn } from '@/lib/cn';
import { useSignOut } from '@/features/auth/api/auth';
import { totalSpent, useMyBookings } from '@/features/profile/api/bookings';
import { useLiveMyBookings } from '@/features/profile/api/live-bookings';
import { BookingList } from '@/features/profile/components/booking-list';
import { ProfileForm } from '@/features/profile/components/profile-form';
import { NotificationForm } from '@/features/profile/components/notification-form';

const tabs = [
  { key: 'dashboard', label: 'Tableau de bord' },
  { key: 'bookings', label: 'Mes réservations' },
  { key: 'profile', label: 'Profil' },
  { key: 'payments', label: 'Paiements' },
  { key: 'notifications', label: 'Notifications' },
] as const;
type Tab = (typeof tabs)[number]['key'];

export default function ProfilePage() {
  usePageTitle('Mon compte');
  const { user, profile, loading, profileLoading } = useSession();
  const [tab, setTab] = useState<Tab>('dashboard');
  const bookings = useMyBookings(user?.id);
  // a status set by an administrator appears without a reload (data-live: where the channel stands)
  const live = useLiveMyBookings(user?.id);
  const signOut = useSignOut();
  const navigate = useNavigate();

  if (loading) return <Spinner />;
  if (!user) return <Navigate to={`${paths.login}?redirect=${encodeURIComponent(paths.profile)}`} replace />;

  const list = bookings.data ?? [];
  const active = list.filter((b) => b.status === 'pending' || b.status === 'confirmed' || b.status === 'active').length;

  const bookingsView = (limit?: number) =>
    bookings.isPending ? (
      <Spinner label="Chargement des réservations…" />
    ) : bookings.isError ? (
      <ErrorState message={bookings.error.message} onRetry={() => void bookings.refetch()} />
    ) : list.length === 0 ? (
      <EmptyState title="Aucune réservation pour le moment.">Réservez un véhicule ou un service : il apparaîtra ici.</EmptyState>
    ) : (
      <BookingList bookings={limit ? list.slice(0, limit) : list} allowCancel={!limit} />
    );

  return (
    <div className="mx-auto max-w-7xl px-4 py-10" data-live={live}>
      <div className="flex flex-wrap items-center justify-between gap-4">
        <div>
          <h1 className="text-3xl font-extrabold text-blue-950">Mon compte</h1>
          <p className="text-slate-700">{profile?.full_name ? `Bonjour ${profile.full_name}` : user.email}</p>
        </div>
        <Button
          variant="outline"
          onClick={() =>
            signOut.mutate(undefined, {
              onSuccess: () => {
                notify.success('Vous êtes déconnecté');
                navigate(paths.login);
              },
              onError: () => notify.error('Erreur lors de la déconnexion'),
            })
          }
        >
          <LogOut className="h-4 w-4" aria-hidden="true" /> Se déconnecter
        </Button>
      </div>

      {/* the tabs wrap on a phone: scrolled sideways, the row showed « Tableau de bord », « Mes réservations » and « P… » */}
      <div role="tablist" aria-label="Sections du compte" className="mt-6 flex flex-wrap gap-x-1 border-b border-slate-200">
        {tabs.map((t) => (
          <button
            key={t.key}
            role="tab"
            id={`tab-${t.key}`}
            aria-selected={tab === t.key}
            aria-controls={`panel-${t.key}`}
            tabIndex={tab === t.key ? 0 : -1}
            onClick={() => setTab(t.key)}
            onKeyDown={(e) => {
              if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
              const i = tabs.findIndex((x) => x.key === tab);
              const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
              if (next) {
                setTab(next.key);
                document.getElementById(`tab-${next.key}`)?.focus();
              }
            }}
            className={cn('-mb-px whitespace-nowrap border-b-2 px-3 py-2.5 text-sm font-semibold sm:px-4', tab === t.key ? 'border-blue-900 text-blue-900' : 'border-transparent text-slate-700 hover:text-blue-900')}
          >
            {t.label}
          </button>
        ))}
      </div>

      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="mt-6">
        {tab === 'dashboard' && (
          <div className="space-y-6">
            <div className="grid gap-4 sm:grid-cols-3">
              <div className="rounded-xl bg-white p-5 shadow-sm">
                <p className="text-sm text-slate-600">Réservations</p>
                <p className="text-3xl font-extrabold text-blue-950">{bookings.isPending ? '…' : list.length}</p>
              </div>
              <div className="rounded-xl bg-white p-5 shadow-sm">
                <p className="text-sm text-slate-600">En cours</p>
                <p className="text-3xl font-extrabold text-blue-950">{bookings.isPending ? '…' : active}</p>
              </div>
              <div className="rounded-xl bg-white p-5 shadow-sm">
                <p className="text-sm text-slate-600">Total dépensé (hors annulations)</p>
                <p className="text-3xl font-extrabold text-blue-950" data-testid="total-spent">
                  {bookings.isPending ? '…' : formatPrice(totalSpent(list))}
                </p>
              </div>
            </div>
            <div>
              <h2 className="mb-3 text-xl font-bold text-blue-950">Réservations récentes</h2>
              {bookingsView(3)}
            </div>
          </div>
        )}
        {tab === 'bookings' && (
          <div>
            <h2 className="mb-3 text-xl font-bold text-blue-950">Toutes mes réservations</h2>
            {bookingsView()}
          </div>
        )}
        {tab === 'profile' && (profileLoading ? <Spinner /> : profile ? <ProfileForm key={profile.updated_at} profile={profile} /> : <ErrorState message="Profil introuvable." />)}
        {tab === 'payments' && (
          <Alert tone="info">
            Le paiement en ligne n'est pas encore disponible. Le règlement de vos réservations se fait auprès de notre équipe (espèces, mobile money ou virement) lorsqu'elle vous
            contacte pour confirmer. Aucun moyen de paiement n'est enregistré sur votre compte.
          </Alert>
        )}
        {tab === 'notifications' &&
          (profileLoading ? <Spinner /> : profile ? <NotificationForm key={profile.updated_at} profile={profile} /> : <ErrorState message="Profil introuvable." />)}
      </div>
    </div>
  );
}
