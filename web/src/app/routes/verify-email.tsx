import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { CheckCircle2, Loader2, XCircle } from 'lucide-react';
import { notify } from '@/lib/notify';
import { usePageTitle } from '@/components/ui/page';
import { paths } from '@/config/paths';
import { initialUrl } from '@/lib/supabase';
import { useSession } from '@/lib/session';
import { forgetLocalSession, readLinkOutcome, verifyTokenHash } from '@/features/auth/api/auth';
import { AuthCard } from '@/features/auth/components/auth-card';

type State = { kind: 'verifying' } | { kind: 'success'; email: string } | { kind: 'error'; message: string };

export default function VerifyEmailPage() {
  usePageTitle("Vérification de l'email");
  const navigate = useNavigate();
  const { loading, user } = useSession();
  const [state, setState] = useState<State>({ kind: 'verifying' });
  const done = useRef(false);

  useEffect(() => {
    if (loading || done.current) return;
    done.current = true;
    const outcome = readLinkOutcome(initialUrl.path === paths.verifyEmail ? initialUrl.hash : '', initialUrl.path === paths.verifyEmail ? initialUrl.search : '');
    const succeed = async (email: string) => {
      await forgetLocalSession();
      setState({ kind: 'success', email });
    };
    if (outcome.kind === 'error') {
      const expired = outcome.code === 'otp_expired' || outcome.code === 'access_denied';
      setState({ kind: 'error', message: expired ? 'Ce lien de confirmation a expiré ou a déjà été utilisé. Connectez-vous pour en recevoir un nouveau.' : 'Lien de vérification invalide.' });
    } else if (outcome.kind === 'session' && user) {
      void succeed(user.email ?? '');
    } else if (outcome.kind === 'token') {
      verifyTokenHash(outcome.tokenHash, outcome.type === 'recovery' ? 'recovery' : 'signup')
        .then(() => succeed(''))
        .catch((e: Error) => setState({ kind: 'error', message: e.message }));
    } else {
      setState({ kind: 'error', message: 'Lien de vérification invalide ou incomplet.' });
    }
  }, [loading, user]);

  useEffect(() => {
    if (state.kind === 'verifying') return;
    if (state.kind === 'error') notify.error(state.message);
    const to = state.kind === 'success' ? `${paths.login}?verified=1${state.email ? `&email=${encodeURIComponent(state.email)}` : ''}` : paths.login;
    const t = window.setTimeout(() => navigate(to, { replace: true }), state.kind === 'success' ? 2000 : 4000);
    return () => window.clearTimeout(t);
  }, [state, navigate]);

  return (
    <AuthCard title="Vérification de votre email">
      <div role="status" aria-live="polite" className="text-center">
        {state.kind === 'verifying' && (
          <p className="flex items-center justify-center gap-2 text-slate-700">
            <Loader2 className="h-5 w-5 animate-spin" aria-hidden="true" /> Vérification en cours…
          </p>
        )}
        {state.kind === 'success' && (
          <>
            <CheckCircle2 className="mx-auto h-12 w-12 text-green-700" aria-hidden="true" />
            <p className="mt-3 font-semibold text-green-800">Votre email est confirmé !</p>
            <p className="mt-1 text-sm text-slate-600">Redirection vers la connexion…</p>
          </>
        )}
        {state.kind === 'error' && (
          <>
            <XCircle className="mx-auto h-12 w-12 text-red-700" aria-hidden="true" />
            <p className="mt-3 font-semibold text-red-800">{state.message}</p>
            <p className="mt-1 text-sm text-slate-600">Redirection vers la connexion dans quelques secondes…</p>
          </>
        )}
        <p className="mt-6 text-sm">
          <Link to={paths.login} className="font-semibold text-blue-900 hover:underline">
            Aller à la connexion
          </Link>
        </p>
      </div>
    </AuthCard>
  );
}

