import { useState } from 'react';
import { notify } from '@/lib/notify';
import { useSession } from '@/lib/session';
import { LOGIN_REQUIRED_MESSAGE } from '@/components/ui/login-required-dialog';

/**
 * The state of a page whose services open a booking dialog for signed-in customers only
 * (airport, diagnostics, premium): which service is being booked, whether the "log in first"
 * dialog is open, and the booking just made (for the confirmation dialog).
 */
export function useGuardedBooking<Service, Booking>() {
  const { user } = useSession();
  const [selected, setSelected] = useState<Service | null>(null);
  const [loginOpen, setLoginOpen] = useState(false);
  const [booked, setBooked] = useState<Booking | null>(null);
  return {
    selected,
    loginOpen,
    booked,
    /** Opens the booking dialog, or says a login is needed ('Vous devez être connecté pour réserver'). */
    open(service: Service) {
      if (!user) {
        notify.error(LOGIN_REQUIRED_MESSAGE);
        setLoginOpen(true);
        return;
      }
      setSelected(service);
    },
    close: () => setSelected(null),
    closeLogin: () => setLoginOpen(false),
    /** The dialog booked: close it and show the confirmation. */
    done(booking: Booking) {
      setSelected(null);
      setBooked(booking);
    },
    closeConfirmation: () => setBooked(null),
  };
}
