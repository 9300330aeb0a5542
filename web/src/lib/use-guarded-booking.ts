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
  const [lastService, setLastService] = useState<Service | null>(null);
  const [loginOpen, setLoginOpen] = useState(false);
  const [booked, setBooked] = useState<Booking | null>(null);

  /** Opens the booking dialog, or says a login is needed ('Vous devez être connecté pour réserver'). */
  const open = (service: Service) => {
    if (!user) {
      notify.error(LOGIN_REQUIRED_MESSAGE);
      setLoginOpen(true);
      return;
    }
    setLastService(service);
    setSelected(service);
  };

  return {
    selected,
    loginOpen,
    booked,
    open,
    close: () => setSelected(null),
    closeLogin: () => setLoginOpen(false),
    /** The dialog booked: close it (its form goes with it) and show the confirmation. */
    done(booking: Booking) {
      setSelected(null);
      setBooked(booking);
    },
    closeConfirmation: () => setBooked(null),
    /** « Réserver à nouveau »: the confirmation closes and an empty dialog of the same service opens. */
    again() {
      setBooked(null);
      if (lastService !== null) open(lastService);
    },
  };
}
