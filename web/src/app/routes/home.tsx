import { Link } from 'react-router';
import { Plane, Crown, Wrench, Headphones, Quote } from 'lucide-react';
import { usePageTitle, Section } from '@/components/ui/page';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { site } from '@/config/site';
import { CompanyPhone } from '@/components/ui/contact';
import { VehicleGrid } from '@/features/vehicles/components/vehicle-grid';

const services = [
  { icon: Plane, title: 'Service aéroportuaire', text: "Accueil VIP, formalités accélérées et transport depuis l'aéroport de N'djili.", to: paths.airport },
  { icon: Crown, title: 'Service premium et protocole', text: 'Chauffeur privé, conciergerie VIP et pack business pour vos déplacements.', to: paths.premium },
  { icon: Wrench, title: 'Diagnostic automobile', text: 'Diagnostic mécanique, électronique, climatisation et programmation de clés.', to: paths.diagnostics },
];

const testimonials = [
  { name: 'Patrick M.', role: "Chef d'entreprise, Gombe", text: "Le chauffeur était ponctuel et le véhicule impeccable. Un service sur lequel je peux compter pour mes rendez-vous d'affaires." },
  { name: 'Sarah K.', role: 'Consultante internationale', text: "L'accueil à l'aéroport m'a fait gagner un temps précieux. Tout était organisé à mon arrivée." },
  { name: 'Jean-Claude B.', role: 'Particulier, Limete', text: 'Diagnostic rapide et explications claires : je sais enfin ce qui n’allait pas avec ma voiture.' },
];

export default function HomePage() {
  usePageTitle('Accueil');
  return (
    <>
      <section className="bg-gradient-to-br from-blue-950 via-blue-900 to-slate-900 text-white">
        <div className="mx-auto max-w-7xl px-4 py-16 sm:py-24">
          <p className="text-sm font-semibold uppercase tracking-widest text-amber-300">Kinshasa · depuis {site.partnerSince}</p>
          <h1 className="mt-3 max-w-3xl text-4xl font-extrabold leading-tight sm:text-5xl">Location de véhicules et service protocole à Kinshasa</h1>
          <p className="mt-5 max-w-2xl text-lg text-blue-100">
            Des véhicules entretenus, des chauffeurs professionnels et une assistance 24/7 pour vos déplacements privés et professionnels.
          </p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Link to={paths.fleet} className={buttonClass('accent', 'px-6 py-3 text-base')}>
              Voir notre flotte
            </Link>
            <a href="#services" className={buttonClass('outline', 'border-white px-6 py-3 text-base text-white hover:bg-white/10')}>
              Nos services
            </a>
          </div>
        </div>
      </section>

      <Section id="services" title="Nos services">
        <div className="grid gap-6 md:grid-cols-3">
          {services.map((s) => (
            <Link key={s.to} to={s.to} className="group rounded-2xl border border-slate-200 bg-white p-6 shadow-sm transition hover:-translate-y-0.5 hover:shadow-md">
              <s.icon className="h-10 w-10 text-amber-500" aria-hidden="true" />
              <h3 className="mt-4 text-lg font-bold text-blue-950 group-hover:underline">{s.title}</h3>
              <p className="mt-2 text-sm text-slate-700">{s.text}</p>
            </Link>
          ))}
        </div>
      </Section>

      <section className="bg-amber-400">
        <div className="mx-auto flex max-w-7xl flex-col items-start gap-4 px-4 py-8 sm:flex-row sm:items-center sm:justify-between">
          <div className="flex items-center gap-3 text-slate-950">
            <Headphones className="h-10 w-10" aria-hidden="true" />
            <div>
              <h2 className="text-xl font-bold">Assistance 24h/24, 7j/7</h2>
              <p className="text-sm">Une panne, un imprévu ? Notre équipe vous répond à toute heure.</p>
            </div>
          </div>
          <CompanyPhone className={buttonClass('primary')}>Appeler le&nbsp;</CompanyPhone>
        </div>
      </section>

      <Section title="Notre flotte">
        <VehicleGrid />
        <div className="mt-8 text-center">
          <Link to={paths.fleet} className={buttonClass('outline')}>
            Voir tous les véhicules
          </Link>
        </div>
      </Section>

      <section id="temoignages" className="bg-white">
        <div className="mx-auto max-w-7xl px-4 py-12">
          <h2 className="mb-6 text-2xl font-bold text-blue-950">Témoignages</h2>
          <div className="grid gap-6 md:grid-cols-3">
            {testimonials.map((t) => (
              <figure key={t.name} className="rounded-2xl bg-slate-50 p-6">
                <Quote className="h-6 w-6 text-amber-500" aria-hidden="true" />
                <blockquote className="mt-3 text-slate-800">« {t.text} »</blockquote>
                <figcaption className="mt-4 text-sm">
                  <span className="font-semibold text-blue-950">{t.name}</span>
                  <span className="text-slate-600"> · {t.role}</span>
                </figcaption>
              </figure>
            ))}
          </div>
        </div>
      </section>
    </>
  );
}
