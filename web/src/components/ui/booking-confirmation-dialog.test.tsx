import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { useState } from 'react';
import { useGuardedBooking } from '@/lib/use-guarded-booking';
import { BookingConfirmationDialog } from './booking-confirmation-dialog';
import { Dialog } from './dialog';

let signedIn = true;
vi.mock('@/lib/session', () => ({ useSession: () => ({ user: signedIn ? { id: 'u1' } : null }) }));
const toastError = vi.fn();
vi.mock('@/lib/notify', () => ({ notify: { success: vi.fn(), error: (...a: unknown[]) => toastError(...a) } }));

afterEach(() => {
  cleanup();
  signedIn = true;
});

type Booked = { id: string; total_amount: number };

/** A booking dialog with one field, as the airport, diagnostics and premium dialogs are. */
function FakeBookingDialog({ service, onBooked, onClose }: { service: string; onBooked: (b: Booked) => void; onClose: () => void }) {
  const [flight, setFlight] = useState('');
  return (
    <Dialog open onClose={onClose} title={`Réserver : ${service}`}>
      <label>
        Numéro de vol
        <input value={flight} onChange={(e) => setFlight(e.target.value)} />
      </label>
      <button type="button" onClick={() => onBooked({ id: 'abcdef12-0000-4000-8000-000000000001', total_amount: 300 })}>
        Confirmer la réservation
      </button>
    </Dialog>
  );
}

/** The pages' wiring: services, the guarded booking dialog, its confirmation. */
function Page() {
  const g = useGuardedBooking<string, Booked>();
  return (
    <>
      <button type="button" onClick={() => g.open('Service VIP')}>
        Réserver Service VIP
      </button>
      <BookingConfirmationDialog open={!!g.booked} onClose={g.closeConfirmation} onAgain={g.again} title="Réservation confirmée !" booking={g.booked} />
      {g.selected && <FakeBookingDialog key={g.selected} service={g.selected} onBooked={g.done} onClose={g.close} />}
    </>
  );
}

const setup = () =>
  render(
    <MemoryRouter>
      <Page />
    </MemoryRouter>,
  );
const bookOnce = () => {
  fireEvent.click(screen.getByRole('button', { name: 'Réserver Service VIP' }));
  fireEvent.change(screen.getByLabelText('Numéro de vol'), { target: { value: 'ET863' } });
  fireEvent.click(screen.getByRole('button', { name: 'Confirmer la réservation' }));
};

describe('booking confirmation', () => {
  it('shows the reference and the total, with a link to the profile', () => {
    setup();
    bookOnce();
    expect(screen.getByRole('heading', { name: 'Réservation confirmée !' })).toBeTruthy();
    expect(screen.getByTestId('booking-reference').textContent).toBe('ABCDEF12');
    expect(screen.getByTestId('booking-total').textContent).toBe('300,00\u00a0$');
    expect(screen.getByRole('link', { name: 'Voir mes réservations' }).getAttribute('href')).toBe('/profile');
    expect(screen.queryByLabelText('Numéro de vol')).toBeNull();
  });

  it('« Réserver à nouveau » closes it and opens an empty dialog of the same service', () => {
    setup();
    bookOnce();
    fireEvent.click(screen.getByRole('button', { name: 'Réserver à nouveau' }));
    expect(screen.queryByRole('heading', { name: 'Réservation confirmée !' })).toBeNull();
    expect(screen.getByRole('heading', { name: 'Réserver : Service VIP' })).toBeTruthy();
    expect((screen.getByLabelText('Numéro de vol') as HTMLInputElement).value).toBe('');
  });

  it('the again button only closes when the page gives no onAgain', () => {
    const onClose = vi.fn();
    render(
      <MemoryRouter>
        <BookingConfirmationDialog open onClose={onClose} title="Réservation enregistrée !" booking={{ id: 'abcdef12-0000', total_amount: '10.00' }} againLabel="Retour aux véhicules" />
      </MemoryRouter>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Retour aux véhicules' }));
    expect(onClose).toHaveBeenCalledOnce();
  });

  it('signed out meanwhile, booking again asks to log in', () => {
    const view = setup();
    bookOnce();
    signedIn = false;
    view.rerender(
      <MemoryRouter>
        <Page />
      </MemoryRouter>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Réserver à nouveau' }));
    expect(toastError).toHaveBeenCalledWith('Vous devez être connecté pour réserver');
    expect(screen.queryByLabelText('Numéro de vol')).toBeNull();
  });
});
