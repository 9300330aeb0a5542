import { Crown } from 'lucide-react';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { QueryList } from '@/components/ui/states';
import { PerUnit, ServiceCard } from '@/components/ui/service-card';
import { LoginRequiredDialog } from '@/components/ui/login-required-dialog';
import { useGuardedBooking } from '@/lib/use-guarded-booking';
import { BookingConfirmationDialog } from '@/components/ui/booking-confirmation-dialog';
import { useSession } from '@/lib/session';
import { formatDate, formatDays } from '@/lib/format';
import { usePremiumServices } from '@/features/premium/api/premium';
import { PremiumBookingDialog } from '@/features/premium/components/premium-booking-dialog';
import type { PremiumBooking, PremiumService } from '@/types/database';

export default function PremiumServicePage() {
  usePageTitle('Service premium et protocole');
  const { user, profile } = useSession();
  const services = usePremiumServices();
  const { selected, open, close, loginOpen, closeLogin, booked, done, closeConfirmation, again } = useGuardedBooking<PremiumService, PremiumBooking>();

  return (
    <>
      <PageHero title="Service premium et protocole" subtitle="Chauffeur privé, conciergerie VIP et accompagnement de vos déplacements d'affaires à Kinshasa." />
      <Section title="Nos services premium">
        <QueryList query={services} empty="Aucun service disponible pour le moment.">
          {(items) => (
            <div className="grid gap-6 md:grid-cols-3">
              {items.map((s) => (
                <ServiceCard
                  key={s.code}
                  icon={Crown}
                  name={s.name}
                  description={s.description}
                  price={<PerUnit amount={s.price_per_day} unit="par jour" />}
                  action="Réserver"
                  actionLabel={`Réserver ${s.name}`}
                  onAction={() => open(s)}
                />
              ))}
            </div>
          )}
        </QueryList>
      </Section>
      <BookingConfirmationDialog open={!!booked} onClose={closeConfirmation} onAgain={again} title="Demande envoyée !" booking={booked} againLabel="Nouvelle demande">
        {booked && (
          <p className="text-sm text-slate-700">
            {booked.service_name}, à partir du {formatDate(booked.start_date)} pour {formatDays(booked.duration_days)}.
          </p>
        )}
      </BookingConfirmationDialog>
      <LoginRequiredDialog open={loginOpen} onClose={closeLogin} />
      {user && selected && (
        <PremiumBookingDialog
          key={selected.code}
          open
          onClose={close}
          service={selected}
          userId={user.id}
          defaults={{ name: profile?.full_name ?? '', email: profile?.email ?? user.email ?? '', phone: profile?.phone ?? '' }}
          onBooked={done}
        />
      )}
    </>
  );
}
