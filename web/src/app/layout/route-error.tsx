import { useEffect } from 'react';
import { Link, useRouteError } from 'react-router';
import { toast } from 'sonner';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';

/** A navigation failure (a route module that did not load, a render error). */
export function RouteError() {
  const error = useRouteError();
  useEffect(() => {
    console.error(error);
    toast.error('Une erreur est survenue lors de la redirection', { duration: 3000 });
  }, [error]);
  return (
    <main className="mx-auto max-w-xl px-4 py-20 text-center">
      <h1 className="text-2xl font-bold text-blue-950">Une erreur est survenue</h1>
      <p className="mt-3 text-slate-700">La page n'a pas pu être affichée. Veuillez réessayer.</p>
      <div className="mt-6 flex justify-center gap-3">
        <button type="button" className={buttonClass('outline')} onClick={() => window.location.reload()}>
          Recharger
        </button>
        <Link to={paths.home} className={buttonClass()}>
          Retour à l'accueil
        </Link>
      </div>
    </main>
  );
}
