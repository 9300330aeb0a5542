import { Link } from 'react-router';
import { Wrench } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { paths } from '@/config/paths';
import { CompanyEmail, CompanyPhone, CompanyWhatsapp } from '@/components/ui/contact';

/** Pages an administrator needs to sign in while the site is in maintenance. */
const OPEN_DURING_MAINTENANCE = new Set<string>([paths.login, paths.forgotPassword, paths.resetPassword]);

export function openDuringMaintenance(pathname: string): boolean {
  return OPEN_DURING_MAINTENANCE.has(pathname.replace(/\/+$/, '') || '/');
}

/** What visitors and customers see while « Mode maintenance » is on (administrators see the site). */
export function MaintenancePage() {
  usePageTitle('Site en maintenance');
  return (
    <div className="mx-auto max-w-xl px-4 py-20 text-center" data-testid="maintenance">
      <Wrench className="mx-auto h-12 w-12 text-amber-700" aria-hidden="true" />
      <h1 className="mt-4 text-3xl font-extrabold text-blue-950">Site en maintenance</h1>
      <p className="mt-3 text-slate-700">
        Nous améliorons notre site et revenons très vite. Les réservations en ligne sont momentanément suspendues ; notre équipe reste joignable.
      </p>
      <p className="mt-6 text-lg font-semibold text-blue-950">
        Appelez-nous au{' '}
        <CompanyPhone className="text-blue-900 underline" />
      </p>
      <p className="mt-2 text-slate-700">
        ou écrivez-nous sur{' '}
        <CompanyWhatsapp className="font-semibold text-blue-900 underline" />{' '}
        ou à{' '}
        <CompanyEmail className="font-semibold text-blue-900 underline" />
        .
      </p>
      <p className="mt-10 text-sm">
        <Link to={paths.login} className="text-slate-600 underline">
          Accès administrateur
        </Link>
      </p>
    </div>
  );
}
