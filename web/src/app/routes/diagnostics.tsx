import { useState } from 'react';
import { Gauge } from 'lucide-react';
import { toast } from 'sonner';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { LoginRequiredDialog, LOGIN_REQUIRED_MESSAGE } from '@/components/ui/login-required-dialog';
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
  const [selected, setSelected] = useState<DiagnosticService | null>(null);
  const [loginOpen, setLoginOpen] = useState(false);
  const [booked, setBooked] = useState<DiagnosticBooking | null>(null);

  const open = (s: DiagnosticService) => {
    if (!user) {
      toast.error(LOGIN_REQUIRED_MESSAGE);
      setLoginOpen(true);
      return;
    }
    setSelected(s);
  };

  return (
    <>
      <PageHero title="Diagnostic automobile" subtitle="Un diagnostic précis par nos techniciens, avec un équipement adapté aux véhicules récents et haut de gamme." />
      <Section title="Nos prestations">
        {services.isPending ? (
          <Spinner />
        ) : services.isError ? (
          <ErrorState message={services.error.message} onRetry={() => void services.refetch()} />
        ) : services.data.length === 0 ? (
          <EmptyState title="Aucune prestation disponible pour le moment." />
        ) : (
          <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
            {services.data.map((s) => (
              <article key={s.code} className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
                <Gauge className="h-8 w-8 text-amber-500" aria-hidden="true" />
                <h3 className="mt-3 text-lg font-bold text-blue-950">{s.name}</h3>
                <p className="mt-2 flex-1 text-sm text-slate-700">{s.description}</p>
                <p className="mt-4 text-2xl font-extrabold text-blue-950">{formatPrice(s.price)}</p>
                <Button className="mt-4" onClick={() => open(s)} aria-label={`Prendre rendez-vous : ${s.name}`}>
                  Prendre rendez-vous
                </Button>
              </article>
            ))}
          </div>
        )}
      </Section>
      <LoginRequiredDialog open={loginOpen} onClose={() => setLoginOpen(false)} />
      {user && selected && (
        <DiagnosticBookingDialog
          key={selected.code}
          open
          onClose={() => setSelected(null)}
          service={selected}
          userId={user.id}
          defaultEmail={profile?.email ?? user.email ?? ''}
          defaultPhone={profile?.phone ?? ''}
          onBooked={(b) => {
            setSelected(null);
            setBooked(b);
          }}
        />
      )}
      <BookingConfirmationDialog open={!!booked} onClose={() => setBooked(null)} title="Rendez-vous confirmé !" booking={booked} againLabel="Nouveau rendez-vous">
        {booked && (
          <p className="text-sm text-slate-700">
            {booked.service_name}, le {formatDate(booked.appointment_date)} à {booked.appointment_time.slice(0, 5)}.
          </p>
        )}
      </BookingConfirmationDialog>
    </>
  );
}
