import { CheckCircle2, Plane } from 'lucide-react';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { QueryList } from '@/components/ui/states';
import { PerUnit, ServiceCard } from '@/components/ui/service-card';
import { LoginRequiredDialog } from '@/components/ui/login-required-dialog';
import { useGuardedBooking } from '@/lib/use-guarded-booking';
import { BookingConfirmationDialog } from '@/components/ui/booking-confirmation-dialog';
import { useSession } from '@/lib/session';
import { useAirportServices } from '@/features/airport/api/airport';
import { AirportBookingDialog } from '@/features/airport/components/airport-booking-dialog';
import type { AirportBooking, AirportService } from '@/types/database';

const included = ['Passage accéléré (fast track)', 'Accueil personnalisé', 'Service bagages', 'Accès au salon VIP'];

export default function AirportServicePage() {
  usePageTitle('Service aéroportuaire');
  const { user } = useSession();
  const services = useAirportServices();
  const { selected, open, close, loginOpen, closeLogin, booked, done, closeConfirmation, again } = useGuardedBooking<AirportService['code'], AirportBooking>();

  return (
    <>
      <PageHero title="Service aéroportuaire" subtitle="Accueil, assistance aux formalités et transport à l'aéroport international de N'djili." />
      <Section title="Nos offres">
        <QueryList query={services} empty="Aucune offre disponible pour le moment.">
          {(items) => (
            <div className="grid gap-6 md:grid-cols-3">
              {items.map((s) => (
                <ServiceCard
                  key={s.code}
                  icon={Plane}
                  name={s.name}
                  description={s.description}
                  price={<PerUnit amount={s.price} unit="par passager" />}
                  action="Réserver"
                  actionLabel={`Réserver ${s.name}`}
                  onAction={() => open(s.code)}
                />
              ))}
            </div>
          )}
        </QueryList>
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
      <BookingConfirmationDialog open={!!booked} onClose={closeConfirmation} onAgain={again} title="Réservation confirmée !" booking={booked}>
        {booked && (
          <p className="text-sm text-slate-700">
            Vol {booked.flight_number}, {booked.passengers} passager{booked.passengers > 1 ? 's' : ''}.
          </p>
        )}
      </BookingConfirmationDialog>
      <LoginRequiredDialog open={loginOpen} onClose={closeLogin} />
      {user && selected && services.data && (
        <AirportBookingDialog
          key={selected}
          open
          onClose={close}
          services={services.data}
          initialService={selected}
          userId={user.id}
          onBooked={done}
        />
      )}
    </>
  );
}
