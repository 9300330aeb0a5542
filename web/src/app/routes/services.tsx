import { Link } from 'react-router';
import { Car, Crown, Wrench, Plane, Headphones } from 'lucide-react';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { paths } from '@/config/paths';

const items = [
  { icon: Car, title: 'Location standard et longue durée', text: 'Économique, luxe, SUV ou utilitaire, à la journée comme au mois, avec remises dès 7 et 30 jours.', to: paths.carRental },
  { icon: Crown, title: 'Service premium et protocole', text: 'Chauffeur privé, conciergerie VIP et pack business.', to: paths.premium },
  { icon: Plane, title: 'Service aéroportuaire', text: "Accueil VIP, assistance aux formalités et navette bagages à N'djili.", to: paths.airport },
  { icon: Wrench, title: 'Diagnostic automobile', text: 'Six prestations, du diagnostic mécanique à la programmation de clés.', to: paths.diagnostics },
  { icon: Headphones, title: 'Assistance 24/7', text: 'Une équipe joignable à toute heure, pendant et après votre location.', to: paths.support },
];

export default function ServicesPage() {
  usePageTitle('Nos services');
  return (
    <>
      <PageHero title="Nos services" subtitle="Tout ce qu'il faut pour vous déplacer à Kinshasa en confiance." />
      <Section>
        <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {items.map((i) => (
            <Link key={i.to} to={i.to} className="group rounded-2xl border border-slate-200 bg-white p-6 shadow-sm hover:shadow-md">
              <i.icon className="h-9 w-9 text-amber-500" aria-hidden="true" />
              <h2 className="mt-3 text-lg font-bold text-blue-950 group-hover:underline">{i.title}</h2>
              <p className="mt-2 text-sm text-slate-700">{i.text}</p>
            </Link>
          ))}
        </div>
      </Section>
    </>
  );
}
