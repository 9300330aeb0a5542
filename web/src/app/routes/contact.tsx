import { Clock, Mail, MapPin, Phone, Navigation } from 'lucide-react';
import { useCompany } from '@/lib/site-settings';
import { CompanyAddress, CompanyEmail, CompanyPhone, ContactList } from '@/components/ui/contact';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { directionsUrl, site } from '@/config/site';
import { ContactForm } from '@/features/contact/components/contact-form';

export default function ContactPage() {
  const company = useCompany();
  usePageTitle('Contact');
  return (
    <>
      <PageHero title="Contactez-nous" subtitle="Une question, un devis, une réservation particulière ? Écrivez-nous ou passez nous voir." />
      <Section>
        <div className="grid gap-8 lg:grid-cols-5">
          <div className="space-y-4 lg:col-span-2">
            <ContactList
              className="space-y-4 rounded-2xl bg-white p-6 shadow-sm"
              itemClassName="flex gap-3"
              iconClassName="h-5 w-5 shrink-0 text-amber-500"
              lines={[
                [Phone, <CompanyPhone className="hover:underline" />],
                [Mail, <CompanyEmail className="hover:underline" />],
                [MapPin, <CompanyAddress />],
                [Clock, <span>{site.hours}<br />{site.sundayClosed}</span>],
              ]}
            />
            <div className="rounded-2xl border border-dashed border-slate-300 bg-white p-6" role="region" aria-label="Plan d'accès">
              <p className="font-semibold text-blue-950">Plan d'accès</p>
              <p className="mt-2 text-sm text-slate-700">
                La carte interactive n'est pas disponible. Notre adresse&nbsp;: <CompanyAddress />.
              </p>
              <a href={directionsUrl(company.address)} target="_blank" rel="noreferrer" className="mt-3 inline-flex items-center gap-1 text-sm font-semibold text-blue-900 hover:underline">
                <Navigation className="h-4 w-4" aria-hidden="true" /> Itinéraire (ouvre un nouvel onglet)
              </a>
            </div>
          </div>
          <div className="rounded-2xl bg-white p-6 shadow-sm lg:col-span-3">
            <h2 className="mb-4 text-xl font-bold text-blue-950">Envoyez-nous un message</h2>
            <ContactForm source="contact" />
          </div>
        </div>
      </Section>
    </>
  );
}
