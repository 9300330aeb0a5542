import { Link } from 'react-router';
import { useCompany } from '@/lib/site-settings';
import { CompanyAddress, CompanyEmail, CompanyPhone, CompanyWhatsapp, ContactList } from '@/components/ui/contact';
import { Mail, MapPin, MessageCircle, Phone, Clock } from 'lucide-react';
import { paths } from '@/config/paths';
import { site } from '@/config/site';

export function Footer() {
  const company = useCompany();
  return (
    <footer id="contact" className="bg-blue-950 text-blue-100 print:hidden">
      <div className="mx-auto grid max-w-7xl gap-8 px-4 py-12 sm:grid-cols-2 lg:grid-cols-4">
        <div>
          <p className="text-lg font-bold text-white">{company.name}</p>
          <p className="mt-3 text-sm leading-relaxed">
            Votre partenaire de confiance pour la location de véhicules et le service protocole à Kinshasa.
          </p>
        </div>
        <div>
          <h2 className="font-semibold text-white">Contact</h2>
          <ContactList
            className="mt-3 space-y-2 text-sm"
            itemClassName="flex gap-2"
            iconClassName="mt-0.5 h-4 w-4 shrink-0"
            lines={[
              [MapPin, <CompanyAddress />],
              [Phone, <CompanyPhone className="hover:text-white" />],
              [MessageCircle, <CompanyWhatsapp className="hover:text-white" />],
              [Mail, <CompanyEmail className="hover:text-white" />],
              [Clock, <span>{site.hours}</span>],
            ]}
          />
        </div>
        <div>
          <h2 className="font-semibold text-white">Services</h2>
          <ul className="mt-3 space-y-2 text-sm">
            <li><Link className="hover:text-white" to={paths.carRental}>Location de véhicules</Link></li>
            <li><Link className="hover:text-white" to={paths.premium}>Service protocole et VIP</Link></li>
            <li><Link className="hover:text-white" to={paths.airport}>Service aéroportuaire</Link></li>
            <li><Link className="hover:text-white" to={paths.diagnostics}>Diagnostic automobile</Link></li>
            <li><Link className="hover:text-white" to={paths.support}>Assistance 24/7</Link></li>
          </ul>
        </div>
        <div>
          <h2 className="font-semibold text-white">Liens rapides</h2>
          <ul className="mt-3 space-y-2 text-sm">
            <li><Link className="hover:text-white" to={paths.home}>Accueil</Link></li>
            <li><Link className="hover:text-white" to={paths.fleet}>Véhicules</Link></li>
            <li><Link className="hover:text-white" to={paths.carRental}>Location longue durée</Link></li>
            <li><Link className="hover:text-white" to={paths.premium}>Service protocole</Link></li>
            <li><Link className="hover:text-white" to={paths.airport}>Transport aéroport</Link></li>
          </ul>
        </div>
      </div>
      {/* The year of a page rendered at build time may be older: the browser's wins, silently. */}
      <div className="border-t border-blue-900 py-4 text-center text-xs text-blue-200" suppressHydrationWarning>
        © {new Date().getFullYear()} {company.name}. Tous droits réservés.
      </div>
    </footer>
  );
}
