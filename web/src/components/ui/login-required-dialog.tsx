import { Link, useLocation } from 'react-router';
import { LogIn } from 'lucide-react';
import { Dialog } from './dialog';
import { buttonClass } from './button';
import { paths } from '@/config/paths';

export const LOGIN_REQUIRED_MESSAGE = 'Vous devez être connecté pour réserver';

/** The login page, coming back to `returnTo` afterwards. */
export function loginPath(returnTo: string) {
  return `${paths.login}?redirect=${encodeURIComponent(returnTo)}`;
}

export function LoginRequiredDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const location = useLocation();
  const here = `${location.pathname}${location.search}`;
  return (
    <Dialog open={open} onClose={onClose} title="Connexion requise">
      <p className="text-slate-800">{LOGIN_REQUIRED_MESSAGE}.</p>
      <p className="mt-2 text-sm text-slate-600">Connectez-vous ou créez un compte : vous reviendrez ensuite sur cette page.</p>
      <div className="mt-6 flex flex-wrap justify-end gap-2">
        <Link to={`${paths.register}?redirect=${encodeURIComponent(here)}`} className={buttonClass('outline')}>
          Créer un compte
        </Link>
        <Link to={loginPath(here)} className={buttonClass('primary')}>
          <LogIn className="h-4 w-4" aria-hidden="true" /> Se connecter
        </Link>
      </div>
    </Dialog>
  );
}
