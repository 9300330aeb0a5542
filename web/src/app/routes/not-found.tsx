import { Link } from 'react-router';
import { usePageTitle } from '@/components/ui/page';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';

export default function NotFoundPage() {
  usePageTitle('Page introuvable');
  return (
    <div className="mx-auto max-w-xl px-4 py-20 text-center">
      <p className="text-6xl font-extrabold text-amber-700">404</p>
      <h1 className="mt-4 text-2xl font-bold text-blue-950">Page introuvable</h1>
      <p className="mt-2 text-slate-700">La page que vous cherchez n'existe pas ou a été déplacée.</p>
      <div className="mt-6 flex flex-wrap justify-center gap-3">
        <Link to={paths.home} className={buttonClass()}>Retour à l'accueil</Link>
        <Link to={paths.fleet} className={buttonClass('outline')}>Voir nos véhicules</Link>
      </div>
    </div>
  );
}
