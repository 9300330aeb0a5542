import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { notify } from '@/lib/notify';

/** What a page that failed (a route module that did not load, a render error) shows instead. */
function RouteErrorPage() {
  return (
    <div className="mx-auto max-w-xl px-4 py-20 text-center">
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
    </div>
  );
}

interface Props {
  /** The current path: a new page gets a fresh boundary. */
  resetKey: string;
  children: ReactNode;
}

/** Catches a page's render or loading failure, so the navigation bar and footer stay usable. */
export class RouteErrorBoundary extends Component<Props, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(error, info.componentStack);
    notify.error('Une erreur est survenue lors de la redirection', { duration: 3000 });
  }

  componentDidUpdate(prev: Props): void {
    if (this.state.failed && prev.resetKey !== this.props.resetKey) this.setState({ failed: false });
  }

  render(): ReactNode {
    return this.state.failed ? <RouteErrorPage /> : this.props.children;
  }
}
