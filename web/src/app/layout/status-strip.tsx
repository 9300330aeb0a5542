import { Phone, UserRound } from 'lucide-react';
import { CompanyPhone } from '@/components/ui/contact';
import { useSession } from '@/lib/session';
import { cartLabel, usePendingCount } from '@/features/profile/api/bookings';

/** The secondary strip: support line, who is connected, pending reservations. */
export function StatusStrip() {
  const { user, profile } = useSession();
  const pending = usePendingCount(user?.id);
  return (
    <div className="bg-slate-900 text-xs text-slate-200 print:hidden">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-x-4 gap-y-1 px-4 py-1.5">
        <span className="inline-flex items-center gap-1">
          <Phone className="h-3.5 w-3.5" aria-hidden="true" /> Assistance 24/7&nbsp;: <CompanyPhone className="hover:text-white" />
        </span>
        <span className="inline-flex items-center gap-3">
          <span className="inline-flex items-center gap-1">
            <UserRound className="h-3.5 w-3.5" aria-hidden="true" />
            {user ? `Connecté en tant que ${profile?.full_name || user.email}` : 'Visiteur'}
          </span>
          <span aria-live="polite">{cartLabel(pending, !!user)}</span>
        </span>
      </div>
    </div>
  );
}
