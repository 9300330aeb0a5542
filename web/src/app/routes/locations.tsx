import { useState } from 'react';
import { MapPin, Navigation } from 'lucide-react';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { TextField } from '@/components/ui/field';
import { EmptyState } from '@/components/ui/states';
import { directionsUrl } from '@/config/site';

/** The two representation offices abroad (static list). */
const offices = [
  { city: 'Bruxelles', country: 'Belgique', address: 'Avenue Louise 54, 1050 Bruxelles', phone: '+32 2 000 00 00' },
  { city: 'Paris', country: 'France', address: '10 rue de la Paix, 75002 Paris', phone: '+33 1 00 00 00 00' },
];

export default function LocationsPage() {
  usePageTitle('Nos bureaux');
  const [query, setQuery] = useState('');
  const q = query.trim().toLowerCase();
  const shown = offices.filter((o) => !q || o.city.toLowerCase().includes(q) || o.country.toLowerCase().includes(q));
  return (
    <>
      <PageHero title="Nos bureaux" subtitle="Préparez votre séjour à Kinshasa depuis nos bureaux de représentation à l'étranger." />
      <Section>
        <div className="mb-6 max-w-sm">
          <TextField label="Rechercher une ville" type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="Paris, Bruxelles…" />
        </div>
        {shown.length === 0 ? (
          <EmptyState title="Aucun bureau ne correspond à votre recherche." />
        ) : (
          <ul className="grid gap-6 md:grid-cols-2">
            {shown.map((o) => (
              <li key={o.city} className="rounded-2xl bg-white p-6 shadow-sm">
                <p className="flex items-center gap-2 text-lg font-bold text-blue-950">
                  <MapPin className="h-5 w-5 text-amber-500" aria-hidden="true" /> {o.city}, {o.country}
                </p>
                <p className="mt-2 text-slate-700">{o.address}</p>
                <p className="text-slate-700">{o.phone}</p>
                <a href={directionsUrl(o.address)} target="_blank" rel="noreferrer" className="mt-3 inline-flex items-center gap-1 text-sm font-semibold text-blue-900 hover:underline">
                  <Navigation className="h-4 w-4" aria-hidden="true" /> Itinéraire vers {o.city}
                </a>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
