import { useState } from 'react';
import { CheckCircle2, Plane } from 'lucide-react';
import { toast } from 'sonner';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { LoginRequiredDialog, LOGIN_REQUIRED_MESSAGE } from '@/components/ui/login-required-dialog';
import { BookingConfirmationDialog } from '@/components/ui/booking-confirmation-dialog';
import { useSession } from '@/lib/session';
import { formatPrice } from '@/lib/format';
import { useAirportServices } from '@/features/airport/api/airport';
import { AirportBookingDialog } from '@/features/airport/components/airport-booking-dialog';
import type { AirportBooking, AirportService } from '@/types/database';

const included = ['Passage accéléré (fast track)', 'Accueil personnalisé', 'Service bagages', 'Accès au salon VIP'];

export default function AirportServicePage() {
  usePageTitle('Service aéroportuaire');
  const { user } = useSession();
  const services = useAirportServices();
  const [selected, setSelected] = useState<AirportService['code'] | null>(null);
  const [loginOpen, setLoginOpen] = useState(false);
  const [booked, setBooked] = useState<AirportBooking | null>(null);

  const open = (code: AirportService['code']) => {
    if (!user) {
      toast.error(LOGIN_REQUIRED_MESSAGE);
      setLoginOpen(true);
      return;
    }
    setSelected(code);
  };

  return (
    <>
      <PageHero title="Service aéroportuaire" subtitle="Accueil, assistance aux formalités et transport à l'aéroport international de N'djili." />
      <Section title="Nos offres">
        {services.isPending ? (
          <Spinner />
        ) : services.isError ? (
          <ErrorState message={services.error.message} onRetry={() => void services.refetch()} />
        ) : services.data.length === 0 ? (
          <EmptyState title="Aucune offre disponible pour le moment." />
        ) : (
          <div className="grid gap-6 md:grid-cols-3">
            {services.data.map((s) => (
              <article key={s.code} className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
                <Plane className="h-8 w-8 text-amber-500" aria-hidden="true" />
                <h3 className="mt-3 text-lg font-bold text-blue-950">{s.name}</h3>
                <p className="mt-2 flex-1 text-sm text-slate-700">{s.description}</p>
                <p className="mt-4 text-2xl font-extrabold text-blue-950">
                  {formatPrice(s.price)} <span className="text-sm font-normal text-slate-600">par passager</span>
                </p>
                <Button className="mt-4" onClick={() => open(s.code)} aria-label={`Réserver ${s.name}`}>
                  Réserver
                </Button>
              </article>
            ))}
          </div>
        )}
      </Section>
      <Section title="Services inclus">
        <ul className="grid gap-3 sm:grid-cols-2">
          {included.map((i) => (
            <li key={i} className="flex items-center gap-2 rounded-xl bg-white p-4 shadow-sm">
              <CheckCircle2 className="h-5 w-5 text-green-700" aria-hidden="true" /> {i}
            </li>
          ))}
        </ul>
      </Section>
      <LoginRequiredDialog open={loginOpen} onClose={() => setLoginOpen(false)} />
      {user && selected && services.data && (
        <AirportBookingDialog
          key={selected}
          open
          onClose={() => setSelected(null)}
          services={services.data}
          initialService={selected}
          userId={user.id}
          onBooked={(b) => {
            setSelected(null);
            setBooked(b);
          }}
        />
      )}
      <BookingConfirmationDialog open={!!booked} onClose={() => setBooked(null)} title="Réservation confirmée !" booking={booked}>
        {booked && (
          <p className="text-sm text-slate-700">
            Vol {booked.flight_number}, {booked.passengers} passager{booked.passengers > 1 ? 's' : ''}.
          </p>
        )}
      </BookingConfirmationDialog>
    </>
  );
}
