import { Gauge } from 'lucide-react';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { QueryList } from '@/components/ui/states';
import { ServiceCard } from '@/components/ui/service-card';
import { LoginRequiredDialog } from '@/components/ui/login-required-dialog';
import { useGuardedBooking } from '@/lib/use-guarded-booking';
import { BookingConfirmationDialog } from '@/components/ui/booking-confirmation-dialog';
import { useSession } from '@/lib/session';
import { formatDate, formatPrice } from '@/lib/format';
import { useDiagnosticServices } from '@/features/diagnostics/api/diagnostics';
import { DiagnosticBookingDialog } from '@/features/diagnostics/components/diagnostic-booking-dialog';
import type { DiagnosticBooking, DiagnosticService } from '@/types/database';

export default function DiagnosticsPage() {
  usePageTitle('Diagnostic automobile');
  const { user, profile } = useSession();
  const services = useDiagnosticServices();
  const { selected, open, close, loginOpen, closeLogin, booked, done, closeConfirmation, again } = useGuardedBooking<DiagnosticService, DiagnosticBooking>();

  return (
    <>
      <PageHero title="Diagnostic automobile" subtitle="Un diagnostic précis par nos techniciens, avec un équipement adapté aux véhicules récents et haut de gamme." />
      <Section title="Nos prestations">
        <QueryList query={services} empty="Aucune prestation disponible pour le moment.">
          {(items) => (
            <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
              {items.map((s) => (
                <ServiceCard key={s.code} icon={Gauge} name={s.name} description={s.description} price={formatPrice(s.price)} action="Prendre rendez-vous" actionLabel={`Prendre rendez-vous : ${s.name}`} onAction={() => open(s)} />
              ))}
            </div>
          )}
        </QueryList>
      </Section>
      <BookingConfirmationDialog open={!!booked} onClose={closeConfirmation} onAgain={again} title="Rendez-vous confirmé !" booking={booked} againLabel="Nouveau rendez-vous">
        {booked && (
          <p className="text-sm text-slate-700">
            {booked.service_name}, le {formatDate(booked.appointment_date)} à {booked.appointment_time.slice(0, 5)}.
          </p>
        )}
      </BookingConfirmationDialog>
      <LoginRequiredDialog open={loginOpen} onClose={closeLogin} />
      {user && selected && (
        <DiagnosticBookingDialog
          key={selected.code}
          open
          onClose={close}
          service={selected}
          userId={user.id}
          defaultEmail={profile?.email ?? user.email ?? ''}
          defaultPhone={profile?.phone ?? ''}
          onBooked={done}
        />
      )}
    </>
  );
}
