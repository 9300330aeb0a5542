import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { addDaysIso, todayIso } from '@/lib/format';
import { ReservationDialog } from './reservation-dialog';

// The one supabase client, faked: records each rpc and answers the quote and the booking.
const rpc = vi.fn();
vi.mock('@/lib/supabase', () => ({ supabase: () => ({ rpc }) }));
const toastSuccess = vi.fn();
const toastError = vi.fn();
vi.mock('@/lib/notify', () => ({ notify: { success: (...a: unknown[]) => toastSuccess(...a), error: (...a: unknown[]) => toastError(...a) } }));

const QUOTE = { days: 7, daily_rate: '100.00', base_total: '700.00', discount_percent: '10', total: '630.00' };
const BOOKED = { id: 'abcdef12-0000-4000-8000-000000000001', total_amount: '630.00', days: 7, discount_percent: '10', booking_status: 'pending' };
let bookAnswer: { data: unknown; error: unknown } = { data: BOOKED, error: null };


beforeEach(() => {
  bookAnswer = { data: BOOKED, error: null };
  rpc.mockReset();
  rpc.mockImplementation((name: string) => ({
    maybeSingle: async () => (name === 'quote_vehicle_rental' ? { data: QUOTE, error: null } : { data: null, error: null }),
    single: async () => bookAnswer,
  }));
  toastSuccess.mockReset();
  toastError.mockReset();
});
afterEach(cleanup);

function setup(defaults = { name: '', email: '', phone: '' }) {
  const onClose = vi.fn();
  const onBooked = vi.fn();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <ReservationDialog vehicle={{ id: 'veh-1', name: 'Toyota Land Cruiser' }} onClose={onClose} defaults={defaults} onBooked={onBooked} />
    </QueryClientProvider>,
  );
  return { onClose, onBooked };
}

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const leave = (label: string) => fireEvent.blur(screen.getByLabelText(label));
const click = (name: string) => fireEvent.click(screen.getByRole('button', { name }));
const heading = () => screen.getByRole('heading', { level: 3 }).textContent;
/** The step's heading once the form's (asynchronous) validation has let it go on. */
const reached = (text: string) => waitFor(() => expect(heading()).toBe(text));
/** Lets the form's asynchronous validation run, for a test that an error is still not shown. */
const settle = () => act(async () => {});

async function fillPersonal() {
  type('Nom complet', 'Jean Mukendi');
  type('Email', 'jean@example.cd');
  type('Téléphone', '+243 81 234 5678');
  type('Numéro de permis de conduire', 'kin-2026-01');
  click('Suivant');
  await reached('Étape 2 sur 4 : Réservation');
}

async function fillBooking() {
  type('Date de début', addDaysIso(todayIso(), 3));
  type('Heure de prise en charge', '09:30');
  type('Durée (jours)', '7');
  type('Nombre de personnes', '3');
  await screen.findByTestId('quote-total');
  click('Suivant');
  await reached('Étape 3 sur 4 : Paiement');
}

function fillCard() {
  for (const [label, value] of [
    ['Numéro de carte', '4242424242424242'],
    ['Expiration (MM/AA)', '1299'],
    ['CVV', '123'],
    ['Titulaire de la carte', 'jean mukendi'],
  ] as const) {
    type(label, value);
    leave(label);
  }
}

describe('ReservationDialog', () => {
  it('is a labelled dialog whose Annuler closes it', () => {
    const { onClose } = setup();
    expect(screen.getByRole('dialog', { name: 'Réserver : Toyota Land Cruiser' })).toBeTruthy();
    click('Annuler');
    expect(onClose).toHaveBeenCalledOnce();
  });

  it('refuses an empty personal step with the French messages', async () => {
    setup();
    click('Suivant');
    expect(await screen.findByText('Le nom est requis')).toBeTruthy();
    expect(screen.getByText('Email invalide')).toBeTruthy();
    expect(screen.getByText('Numéro de téléphone invalide')).toBeTruthy();
    expect(screen.getByText('Le numéro de permis est requis')).toBeTruthy();
    expect(heading()).toBe('Étape 1 sur 4 : Coordonnées');
  });

  it('pre-fills the signed-in profile and shows an error only after leaving the field', async () => {
    setup({ name: 'Jeanne Mbuyi', email: 'jeanne@example.cd', phone: '' });
    expect((screen.getByLabelText('Nom complet') as HTMLInputElement).value).toBe('Jeanne Mbuyi');
    type('Téléphone', '12');
    await settle();
    expect(screen.queryByText('Numéro de téléphone invalide')).toBeNull();
    leave('Téléphone');
    expect(await screen.findByText('Numéro de téléphone invalide')).toBeTruthy();
    // then it follows what is typed
    type('Téléphone', '+243 81 234 5678');
    await waitFor(() => expect(screen.queryByText('Numéro de téléphone invalide')).toBeNull());
  });

  it('goes forward and back, keeping what was typed', async () => {
    setup();
    await fillPersonal();
    click('Suivant');
    expect(await screen.findByText('La date est requise')).toBeTruthy();
    expect(screen.getByText("L'heure est requise")).toBeTruthy();
    expect(heading()).toBe('Étape 2 sur 4 : Réservation');
    type('Heure de prise en charge', '09:30');
    type('Nombre de personnes', '4');
    click('Retour');
    expect(heading()).toBe('Étape 1 sur 4 : Coordonnées');
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('jean@example.cd');
    click('Suivant');
    await reached('Étape 2 sur 4 : Réservation');
    expect((screen.getByLabelText('Heure de prise en charge') as HTMLInputElement).value).toBe('09:30');
    expect((screen.getByLabelText('Nombre de personnes') as HTMLInputElement).value).toBe('4');
  });

  it('clamps the duration to 30 days with the message, and to 1 when left empty', async () => {
    setup();
    await fillPersonal();
    type('Durée (jours)', '45');
    expect((screen.getByLabelText('Durée (jours)') as HTMLInputElement).value).toBe('30');
    expect(screen.getByText('La durée maximale est de 30 jours')).toBeTruthy();
    type('Durée (jours)', '');
    leave('Durée (jours)');
    expect((screen.getByLabelText('Durée (jours)') as HTMLInputElement).value).toBe('1');
    type('Durée (jours)', '0');
    leave('Durée (jours)');
    expect((screen.getByLabelText('Durée (jours)') as HTMLInputElement).value).toBe('1');
    type('Nombre de personnes', '0');
    await settle();
    expect(screen.queryByText('Au moins une personne est requise')).toBeNull();
    leave('Nombre de personnes');
    expect(await screen.findByText('Au moins une personne est requise')).toBeTruthy();
  });

  it('shows the total the server quoted for start + duration days', async () => {
    setup();
    await fillPersonal();
    const start = addDaysIso(todayIso(), 3);
    type('Date de début', start);
    type('Durée (jours)', '7');
    expect((await screen.findByTestId('quote-total')).textContent).toBe('630,00\u00a0$');
    expect(screen.getByText('Remise (10 %)')).toBeTruthy();
    expect(rpc).toHaveBeenLastCalledWith('quote_vehicle_rental', { vehicle_id: 'veh-1', start_date: start, end_date: addDaysIso(start, 7) });
  });

  it('keeps Continuer disabled until every card field is valid and touched', async () => {
    setup();
    await fillPersonal();
    await fillBooking();
    const cont = () => screen.getByRole('button', { name: 'Continuer' }) as HTMLButtonElement;
    expect(cont().disabled).toBe(true);
    type('Numéro de carte', '4242424242424241');
    leave('Numéro de carte');
    expect((screen.getByLabelText('Numéro de carte') as HTMLInputElement).value).toBe('4242 4242 4242 4241');
    expect(await screen.findByText('Numéro de carte invalide')).toBeTruthy();
    fillCard();
    expect((screen.getByLabelText('Titulaire de la carte') as HTMLInputElement).value).toBe('JEAN MUKENDI');
    await waitFor(() => expect(screen.queryByText('Numéro de carte invalide')).toBeNull());
    expect(cont().disabled).toBe(false);
    type('Expiration (MM/AA)', '13/99');
    expect(await screen.findByText("Date d'expiration invalide")).toBeTruthy();
    expect(cont().disabled).toBe(true);
  });

  it('shows a card error only once its field is left, shapes what is typed, and keeps it across Retour', async () => {
    setup();
    await fillPersonal();
    await fillBooking();
    type('Numéro de carte', '4242abc4242');
    type('Expiration (MM/AA)', '1');
    type('CVV', '12x');
    await settle();
    expect((screen.getByLabelText('Numéro de carte') as HTMLInputElement).value).toBe('4242 4242');
    expect((screen.getByLabelText('CVV') as HTMLInputElement).value).toBe('12');
    expect(screen.queryByText('Numéro de carte invalide')).toBeNull();
    expect(screen.queryByText("Date d'expiration invalide")).toBeNull();
    expect(screen.queryByText('Code CVV invalide')).toBeNull();
    leave('CVV');
    expect(await screen.findByText('Code CVV invalide')).toBeTruthy();
    expect(screen.queryByText('Numéro de carte invalide')).toBeNull();
    leave('Expiration (MM/AA)');
    expect(await screen.findByText("Date d'expiration invalide")).toBeTruthy();
    // an unknown network is said on the number
    type('Numéro de carte', '1234567890123452');
    leave('Numéro de carte');
    expect(await screen.findByText('Champ invalide')).toBeTruthy();
    fillCard();
    click('Retour');
    await reached('Étape 2 sur 4 : Réservation');
    expect((screen.getByLabelText('Durée (jours)') as HTMLInputElement).value).toBe('7');
    click('Suivant');
    await reached('Étape 3 sur 4 : Paiement');
    expect((screen.getByLabelText('Numéro de carte') as HTMLInputElement).value).toBe('4242 4242 4242 4242');
    expect((screen.getByLabelText('Expiration (MM/AA)') as HTMLInputElement).value).toBe('12/99');
    expect((screen.getByRole('button', { name: 'Continuer' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('moves the focus to each new step’s heading', async () => {
    setup();
    // The focus moves in an effect after the step's render: wait for it (it never moves by itself).
    await fillPersonal();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('heading', { level: 3 })));
    await fillBooking();
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Étape 3 sur 4 : Paiement'));
  });

  it('checks mobile money once its fields are left: an operator and a valid phone', async () => {
    setup();
    await fillPersonal();
    await fillBooking();
    fireEvent.click(screen.getByRole('radio', { name: /Mobile money/ }));
    expect((screen.getByLabelText('Numéro mobile money') as HTMLInputElement).value).toBe('');
    await settle();
    expect(screen.queryByText('Champ invalide')).toBeNull();
    leave('Opérateur');
    expect(await screen.findByText('Champ invalide')).toBeTruthy();
    type('Numéro mobile money', '12');
    leave('Numéro mobile money');
    expect(await screen.findByText('Numéro de téléphone invalide')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Opérateur'), { target: { value: 'airtel' } });
    type('Numéro mobile money', '+243 99 765 4321');
    await waitFor(() => expect(screen.queryByText('Numéro de téléphone invalide')).toBeNull());
    expect(screen.queryByText('Champ invalide')).toBeNull();
    expect((screen.getByRole('button', { name: 'Continuer' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('shows each method with its fee; mobile money adds 1 %, a transfer shows its reference', async () => {
    setup({ name: '', email: '', phone: '+243 81 234 5678' });
    await fillPersonal();
    await fillBooking();
    expect(screen.getByTestId('total-with-fee').textContent).toBe('630,00\u00a0$');
    expect(screen.getByTestId('accepted-currencies').textContent).toBe('Devises acceptées : USD et EUR. Montants affichés en dollars US.');
    fireEvent.click(screen.getByRole('radio', { name: /Mobile money/ }));
    expect(screen.getByTestId('total-with-fee').textContent).toBe('636,30\u00a0$');
    expect((screen.getByRole('button', { name: 'Continuer' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Opérateur'), { target: { value: 'orange' } });
    expect((screen.getByRole('button', { name: 'Continuer' }) as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(screen.getByRole('radio', { name: /Virement bancaire/ }));
    expect(screen.getByTestId('transfer-reference').textContent).toMatch(/^VIR-[A-HJ-NP-Z2-9]{8}$/);
    expect(screen.getByText(/1 à 3 jours ouvrables pour la réception/)).toBeTruthy();
  });

  it('confirms a real booking without sending any card data, then says so', async () => {
    const { onBooked } = setup();
    await fillPersonal();
    await fillBooking();
    fillCard();
    click('Continuer');
    await reached('Étape 4 sur 4 : Récapitulatif');
    expect(screen.getByTestId('summary-total').textContent).toBe('630,00\u00a0$');
    expect(screen.getByText(/Aucun paiement n'est effectué sur ce site/)).toBeTruthy();
    await act(async () => click('Confirmer'));
    await waitFor(() => expect(onBooked).toHaveBeenCalledOnce());
    const [name, args] = rpc.mock.calls.at(-1) as [string, Record<string, unknown>];
    expect(name).toBe('book_vehicle');
    expect(args).toMatchObject({ vehicle_id: 'veh-1', customer_name: 'Jean Mukendi', driver_license_number: 'kin-2026-01', payment_method: 'card', pickup_time: '09:30', passengers: 3 });
    expect(args.end_date).toBe(addDaysIso(args.start_date as string, 7));
    expect(JSON.stringify(args)).not.toMatch(/4242|12\/99|123"|JEAN MUKENDI/);
    expect(toastSuccess).toHaveBeenCalledWith('Votre réservation a été soumise avec succès', expect.objectContaining({ duration: 5000 }));
    expect(String(toastSuccess.mock.calls[0]?.[1]?.description)).toMatch(/Aucun paiement n'a été effectué en ligne/);
  });

  it('reports a refused booking: the error toast and the clear overlap message', async () => {
    bookAnswer = { data: null, error: { code: 'PT409', message: 'Ce véhicule est déjà réservé sur ces dates' } };
    const { onBooked } = setup();
    await fillPersonal();
    await fillBooking();
    fireEvent.click(screen.getByRole('radio', { name: /Portefeuille numérique/ }));
    click('Continuer');
    await reached('Étape 4 sur 4 : Récapitulatif');
    await act(async () => click('Confirmer'));
    expect(await screen.findByText(/Ce véhicule est déjà réservé sur ces dates\./)).toBeTruthy();
    expect(toastError).toHaveBeenCalledWith('Erreur lors de la réservation. Veuillez réessayer.');
    expect(onBooked).not.toHaveBeenCalled();
    expect(heading()).toBe('Étape 4 sur 4 : Récapitulatif');
  });
});
