import { useState } from 'react';
import { Crown } from 'lucide-react';
import { toast } from 'sonner';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { LoginRequiredDialog, LOGIN_REQUIRED_MESSAGE } from '@/components/ui/login-required-dialog';
import { BookingConfirmationDialog } from '@/components/ui/booking-confirmation-dialog';
import { useSession } from '@/lib/session';
import { formatDate, formatDays, formatPrice } from '@/lib/format';
import { usePremiumServices } from '@/features/premium/api/premium';
import { PremiumBookingDialog } from '@/features/premium/components/premium-booking-dialog';
import type { PremiumBooking, PremiumService } from '@/types/database';

export default function PremiumServicePage() {
  usePageTitle('Service premium et protocole');
  const { user, profile } = useSession();
  const services = usePremiumServices();
  const [selected, setSelected] = useState<PremiumService | null>(null);
  const [loginOpen, setLoginOpen] = useState(false);
  const [booked, setBooked] = useState<PremiumBooking | null>(null);

  const open = (s: PremiumService) => {
    if (!user) {
      toast.error(LOGIN_REQUIRED_MESSAGE);
      setLoginOpen(true);
      return;
    }
    setSelected(s);
  };

  return (
    <>
      <PageHero title="Service premium et protocole" subtitle="Chauffeur privé, conciergerie VIP et accompagnement de vos déplacements d'affaires à Kinshasa." />
      <Section title="Nos services premium">
        {services.isPending ? (
          <Spinner />
        ) : services.isError ? (
          <ErrorState message={services.error.message} onRetry={() => void services.refetch()} />
        ) : services.data.length === 0 ? (
          <EmptyState title="Aucun service disponible pour le moment." />
        ) : (
          <div className="grid gap-6 md:grid-cols-3">
            {services.data.map((s) => (
              <article key={s.code} className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
                <Crown className="h-8 w-8 text-amber-500" aria-hidden="true" />
                <h3 className="mt-3 text-lg font-bold text-blue-950">{s.name}</h3>
                <p className="mt-2 flex-1 text-sm text-slate-700">{s.description}</p>
                <p className="mt-4 text-2xl font-extrabold text-blue-950">
                  {formatPrice(s.price_per_day)} <span className="text-sm font-normal text-slate-600">par jour</span>
                </p>
                <Button className="mt-4" onClick={() => open(s)} aria-label={`Réserver ${s.name}`}>
                  Réserver
                </Button>
              </article>
            ))}
          </div>
        )}
      </Section>
      <LoginRequiredDialog open={loginOpen} onClose={() => setLoginOpen(false)} />
      {user && selected && (
        <PremiumBookingDialog
          key={selected.code}
          open
          onClose={() => setSelected(null)}
          service={selected}
          userId={user.id}
          defaults={{ name: profile?.full_name ?? '', email: profile?.email ?? user.email ?? '', phone: profile?.phone ?? '' }}
          onBooked={(b) => {
            setSelected(null);
            setBooked(b);
          }}
        />
      )}
      <BookingConfirmationDialog open={!!booked} onClose={() => setBooked(null)} title="Demande envoyée !" booking={booked} againLabel="Nouvelle demande">
        {booked && (
          <p className="text-sm text-slate-700">
            {booked.service_name}, à partir du {formatDate(booked.start_date)} pour {formatDays(booked.duration_days)}.
          </p>
        )}
      </BookingConfirmationDialog>
    </>
  );
}
