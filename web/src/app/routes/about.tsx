import { Award, Target, Lightbulb, ShieldCheck, Mail, Phone, MapPin } from 'lucide-react';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { site } from '@/config/site';
import { CompanyAddress, CompanyEmail, CompanyPhone } from '@/components/ui/contact';

const timeline = [
  { year: '2023', title: "Création de l'entreprise", text: 'Lancement de notre activité de location avec une flotte de 10 véhicules.' },
  { year: '2024', title: 'Expansion', text: 'Agrandissement de la flotte et intégration des services de diagnostic automobile.' },
  { year: '2025', title: 'Innovation continue', text: 'Réservation en ligne, services premium et assistance 24/7.' },
];
const values = [
  { icon: Award, title: 'Excellence', text: 'Des véhicules entretenus et un service soigné à chaque étape.' },
  { icon: Target, title: 'Engagement', text: 'Ponctualité, transparence des prix et respect de nos promesses.' },
  { icon: Lightbulb, title: 'Innovation', text: 'Des outils modernes pour réserver et suivre vos prestations.' },
];
const certifications = [
  { title: 'ISO 9001', text: 'Management de la qualité' },
  { title: 'Certification AFNOR', text: 'Conformité aux normes françaises' },
  { title: 'Label Qualité', text: 'Excellence des services automobiles' },
];

export default function AboutPage() {
  usePageTitle('À propos');
  return (
    <>
      <PageHero title="À propos de nous" subtitle={`Prestataire de location de véhicules premium et de services de diagnostic, votre partenaire à Kinshasa depuis ${site.partnerSince}.`} />
      <Section title="Notre Histoire">
        <ol className="relative space-y-6 border-l-2 border-amber-400 pl-6">
          {timeline.map((t) => (
            <li key={t.year}>
              <p className="text-sm font-bold text-amber-800">{t.year}</p>
              <p className="font-bold text-blue-950">{t.title}</p>
              <p className="text-sm text-slate-700">{t.text}</p>
            </li>
          ))}
        </ol>
      </Section>
      <Section title="Nos Valeurs Fondamentales">
        <div className="grid gap-6 md:grid-cols-3">
          {values.map((v) => (
            <div key={v.title} className="rounded-2xl bg-white p-6 shadow-sm">
              <v.icon className="h-8 w-8 text-amber-500" aria-hidden="true" />
              <h3 className="mt-3 text-lg font-bold text-blue-950">{v.title}</h3>
              <p className="mt-1 text-sm text-slate-700">{v.text}</p>
            </div>
          ))}
        </div>
      </Section>
      <Section title="Nos Certifications">
        <ul className="grid gap-4 md:grid-cols-3">
          {certifications.map((c) => (
            <li key={c.title} className="flex items-center gap-3 rounded-xl bg-white p-5 shadow-sm">
              <ShieldCheck className="h-7 w-7 text-green-700" aria-hidden="true" />
              <span>
                <span className="block font-bold text-blue-950">{c.title}</span>
                <span className="text-sm text-slate-700">{c.text}</span>
              </span>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Notre Mission">
        <p className="max-w-3xl text-slate-800">
          Offrir une expérience de transport premium inégalée, avec des véhicules haut de gamme et un service personnalisé, et contribuer au développement du secteur automobile à
          Kinshasa.
        </p>
      </Section>
      <Section title="Nous contacter">
        <div className="grid items-center gap-6 rounded-2xl bg-white p-6 shadow-sm md:grid-cols-3">
          <img src="/team.svg" alt="Notre agence de la Gombe" width={320} height={200} className="w-full rounded-xl" loading="lazy" />
          <ul className="space-y-3 md:col-span-2">
            <li className="flex gap-2"><MapPin className="h-5 w-5 shrink-0 text-amber-500" aria-hidden="true" /> <CompanyAddress /></li>
            <li className="flex gap-2"><Phone className="h-5 w-5 text-amber-500" aria-hidden="true" /> <CompanyPhone className="hover:underline" /></li>
            <li className="flex gap-2"><Mail className="h-5 w-5 text-amber-500" aria-hidden="true" /> <CompanyEmail className="hover:underline" /></li>
          </ul>
        </div>
      </Section>
    </>
  );
}
