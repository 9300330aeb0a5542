import { Link } from 'react-router';
import { CalendarRange, ShieldCheck, BadgePercent } from 'lucide-react';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { VehicleGrid } from '@/features/vehicles/components/vehicle-grid';

export default function CarRentalPage() {
  usePageTitle('Location standard et longue durée');
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
            <p className="text-sm text-slate-700">Dès 7 jours de location (10 % par défaut, selon le véhicule).</p>
          </li>
          <li className="rounded-xl bg-white p-5 shadow-sm">
            <CalendarRange className="h-7 w-7 text-amber-500" aria-hidden="true" />
            <p className="mt-2 font-semibold text-blue-950">Remise mensuelle</p>
            <p className="text-sm text-slate-700">Dès 30 jours (20 % par défaut). Les remises ne se cumulent pas.</p>
          </li>
          <li className="rounded-xl bg-white p-5 shadow-sm">
            <ShieldCheck className="h-7 w-7 text-amber-500" aria-hidden="true" />
            <p className="mt-2 font-semibold text-blue-950">Protection incluse</p>
            <p className="text-sm text-slate-700">Assurance tous risques et assistance 24/7 sur toutes nos locations.</p>
          </li>
        </ul>
      </Section>
      <Section title="Véhicules disponibles">
        <VehicleGrid limit={null} />
      </Section>
    </>
  );
}
