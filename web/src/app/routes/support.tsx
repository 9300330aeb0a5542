import { Headphones, Phone, Mail } from 'lucide-react';
import { PageHero, Section, usePageTitle } from '@/components/ui/page';
import { CompanyEmail, CompanyPhone } from '@/components/ui/contact';
import { ContactForm } from '@/features/contact/components/contact-form';

const faq = [
  { q: 'Que faire en cas de panne pendant ma location ?', a: "Appelez notre ligne d'assistance, disponible 24h/24 et 7j/7. Un technicien ou un véhicule de remplacement est envoyé selon la situation." },
  { q: 'Puis-je annuler une réservation ?', a: 'Oui : tant qu’elle est en attente, vous pouvez l’annuler depuis votre espace « Mon compte ». Pour une réservation déjà confirmée, contactez-nous.' },
  { q: 'Quels documents faut-il pour louer un véhicule ?', a: "Un permis de conduire valide et une pièce d'identité. Le numéro de permis est demandé lors de la réservation." },
  { q: 'Les prix affichés sont-ils définitifs ?', a: 'Oui. Le total affiché lors de la réservation est calculé par notre système, remises comprises (dès 7 jours et dès 30 jours).' },
  { q: 'Comment se passe le paiement ?', a: "Le paiement en ligne n'est pas encore disponible : notre équipe vous contacte pour confirmer la réservation et convenir du règlement." },
];

export default function SupportPage() {
  usePageTitle('Assistance 24/7');
  return (
    <>
      <PageHero title="Assistance 24/7" subtitle="Notre équipe vous accompagne à toute heure, pendant et après votre location." />
      <Section>
        <div className="grid gap-6 md:grid-cols-3">
          <div className="rounded-2xl bg-white p-6 shadow-sm">
            <Headphones className="h-8 w-8 text-amber-500" aria-hidden="true" />
            <p className="mt-3 font-bold text-blue-950">Disponible 24h/24, 7j/7</p>
            <p className="mt-1 text-sm text-slate-700">Pannes, accidents, retards de vol : nous répondons à toute heure.</p>
          </div>
          <div className="rounded-2xl bg-white p-6 shadow-sm">
            <Phone className="h-8 w-8 text-amber-500" aria-hidden="true" />
            <p className="mt-3 font-bold text-blue-950">Par téléphone</p>
            <CompanyPhone className="mt-1 block text-sm text-blue-900 hover:underline" />
          </div>
          <div className="rounded-2xl bg-white p-6 shadow-sm">
            <Mail className="h-8 w-8 text-amber-500" aria-hidden="true" />
            <p className="mt-3 font-bold text-blue-950">Par email</p>
            <CompanyEmail className="mt-1 block text-sm text-blue-900 hover:underline" />
          </div>
        </div>
      </Section>
      <Section>
        <div className="grid gap-8 lg:grid-cols-2">
          <div className="rounded-2xl bg-white p-6 shadow-sm">
            <h2 className="mb-4 text-xl font-bold text-blue-950">Demande d'assistance</h2>
            <ContactForm source="support" defaultSubject="support" />
          </div>
          <div>
            <h2 className="mb-4 text-xl font-bold text-blue-950">Questions fréquentes</h2>
            <div className="space-y-3">
              {faq.map((f) => (
                <details key={f.q} className="rounded-xl bg-white p-4 shadow-sm">
                  <summary className="cursor-pointer font-semibold text-blue-950">{f.q}</summary>
                  <p className="mt-2 text-sm text-slate-700">{f.a}</p>
                </details>
              ))}
            </div>
          </div>
        </div>
      </Section>
    </>
  );
}
