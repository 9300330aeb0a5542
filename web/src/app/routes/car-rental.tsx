import { useState } from 'react';
import { Link } from 'react-router';
import { CalendarRange, ShieldCheck, BadgePercent } from 'lucide-react';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { BookingConfirmationDialog } from '@/components/ui/booking-confirmation-dialog';
import { useSession } from '@/lib/session';
import { formatDate, formatDays, formatPercent } from '@/lib/format';
import type { Vehicle } from '@/types/database';
import { VehicleGrid } from '@/features/vehicles/components/vehicle-grid';
import { ReservationDialog, type ReservationOutcome } from '@/features/booking/components/reservation-dialog';
import { PaymentFollowUp } from '@/features/booking/components/reservation-steps';

export default function CarRentalPage() {
  usePageTitle('Location standard et longue durée');
  const { user, profile } = useSession();
  // A card's Réserver opens the reservation dialog here (visitors too); /fleet keeps the public booking.
  const [selected, setSelected] = useState<Vehicle | null>(null);
  const [booked, setBooked] = useState<ReservationOutcome | null>(null);
  return (
    <>
      <PageHero title="Location standard et longue durée" subtitle="Louez à la journée, à la semaine ou au mois : plus la durée est longue, plus le tarif est avantageux.">
        <Link to={paths.booking} className={buttonClass('accent', 'mt-6')}>
          Rechercher un véhicule disponible
        </Link>
      </PageHero>
      <Section>
        <ul className="grid gap-4 md:grid-cols-3">
          <li className="rounded-xl bg-white p-5 shadow-sm">
            <BadgePercent className="h-7 w-7 text-amber-500" aria-hidden="true" />
            <p className="mt-2 font-semibold text-blue-950">Remise hebdomadaire</p>
            <p className="text-sm text-slate-700">Dès 7 jours de location ({formatPercent(10)} par défaut, selon le véhicule).</p>
          </li>
          <li className="rounded-xl bg-white p-5 shadow-sm">
            <CalendarRange className="h-7 w-7 text-amber-500" aria-hidden="true" />
            <p className="mt-2 font-semibold text-blue-950">Remise mensuelle</p>
            <p className="text-sm text-slate-700">Dès 30 jours ({formatPercent(20)} par défaut). Les remises ne se cumulent pas.</p>
          </li>
          <li className="rounded-xl bg-white p-5 shadow-sm">
            <ShieldCheck className="h-7 w-7 text-amber-500" aria-hidden="true" />
            <p className="mt-2 font-semibold text-blue-950">Protection incluse</p>
            <p className="text-sm text-slate-700">Assurance tous risques et assistance 24/7 sur toutes nos locations.</p>
          </li>
        </ul>
      </Section>
      <Section title="Véhicules disponibles">
        <VehicleGrid limit={null} onReserve={setSelected} />
      </Section>
      {selected && (
        <ReservationDialog
          key={selected.id}
          vehicle={selected}
          onClose={() => setSelected(null)}
          defaults={{ name: profile?.full_name ?? '', email: profile?.email ?? user?.email ?? '', phone: profile?.phone ?? '' }}
          onBooked={(outcome) => {
            setSelected(null);
            setBooked(outcome);
          }}
        />
      )}
      <BookingConfirmationDialog
        open={!!booked}
        onClose={() => setBooked(null)}
        title="Réservation enregistrée !"
        booking={booked ? { id: booked.result.id, total_amount: booked.result.total_amount } : null}
        againLabel="Retour aux véhicules"
        profileLink={!!user}
      >
        {booked && (
          <>
            <p className="text-sm text-slate-700">
              {booked.vehicleName}, du {formatDate(booked.startDate)} au {formatDate(booked.endDate)} ({formatDays(booked.result.days)}).
            </p>
            <PaymentFollowUp payment={booked.payment} total={booked.result.total_amount} />
          </>
        )}
      </BookingConfirmationDialog>
    </>
  );
}
