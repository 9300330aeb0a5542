import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { VehiclePayload } from '../schemas/vehicle-schema';
import type { AdminVehicle } from '../types';
import { VehicleWizard } from './vehicle-wizard';

// The signed-in administrator, the save that records its payload and an upload that adds one photo.
vi.mock('@/lib/session', () => ({ useSession: () => ({ user: { id: 'admin-1' } }) }));
const saveVehicle = vi.fn();
const upload = vi.fn();
vi.mock('../api/vehicles', () => ({
  useSaveVehicle: () => ({ mutate: saveVehicle, reset: () => undefined, isPending: false }),
  useUploadVehicleImages: () => ({ mutate: upload, isPending: false }),
}));

beforeEach(() => {
  saveVehicle.mockReset();
  saveVehicle.mockImplementation((_v: unknown, { onSuccess }: { onSuccess: (v: { id: string; name: string }) => void }) => onSuccess({ id: 'v-1', name: 'Kia Sportage' }));
  upload.mockReset();
  upload.mockImplementation((files: File[], { onSuccess }: { onSuccess: (added: { id: string; url: string; title: string }[]) => void }) =>
    onSuccess(files.map((f, i) => ({ id: `img-${i}`, url: `https://cdn.example/${f.name}`, title: f.name }))),
  );
});
afterEach(cleanup);

function setup(vehicle: AdminVehicle | null = null) {
  const onSaved = vi.fn();
  render(<VehicleWizard open vehicle={vehicle} onClose={vi.fn()} onSaved={onSaved} />);
  return { onSaved };
}

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const next = () => screen.getByRole('button', { name: 'Suivant' }) as HTMLButtonElement;
const at = (n: number) => waitFor(() => expect(screen.getByText(new RegExp(`^Étape ${n} sur 6`))).toBeTruthy());
const year = new Date().getFullYear();

function fillBasics() {
  type('Nom du véhicule', 'Kia Sportage');
  type('Marque', 'Kia');
  type('Modèle', 'Sportage');
  type('Immatriculation', 'ke-2026-x');
  type('Tarif journalier ($)', '95');
}

describe('VehicleWizard', () => {
  it('keeps Suivant off until the step is complete, and stops on a range of the step where it was typed', async () => {
    setup();
    expect(next().disabled).toBe(true);
    fillBasics();
    expect(next().disabled).toBe(false);
    type('Année', '1985');
    // nothing is said before Suivant
    expect(screen.queryByText(`Année entre 1990 et ${year + 1}`)).toBeNull();
    fireEvent.click(next());
    expect(await screen.findByText(`Année entre 1990 et ${year + 1}`)).toBeTruthy();
    expect(screen.getByText(/^Étape 1 sur 6/)).toBeTruthy();
    // the error stays until the next check
    type('Année', '2024');
    expect(screen.getByText(`Année entre 1990 et ${year + 1}`)).toBeTruthy();
    fireEvent.click(next());
    await at(2);
    // an empty number is refused by the step too
    type('Portes', '');
    fireEvent.click(next());
    expect(await screen.findByText('Portes : un nombre est requis')).toBeTruthy();
    type('Portes', '5');
    fireEvent.click(next());
    await at(3);
    type('Remise 7 jours et plus (%)', '60');
    fireEvent.click(next());
    expect(await screen.findByText('Remise entre 0 et 50 %')).toBeTruthy();
    expect(screen.getByText(/^Étape 3 sur 6/)).toBeTruthy();
  });

  it('checks the seasonal rates of the pricing step, and previews the price', async () => {
    setup();
    fillBasics();
    fireEvent.click(next());
    await at(2);
    fireEvent.click(next());
    await at(3);
    expect(screen.getByTestId('price-preview').textContent).toMatch(/Total : 665,00\u00a0\$.*598,50\u00a0\$/);
    fireEvent.click(screen.getByRole('button', { name: 'Ajouter un tarif saisonnier' }));
    type('Multiplicateur', '9');
    fireEvent.click(next());
    expect(await screen.findByText('Multiplicateur entre 0,1 et 5')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Retirer le tarif saisonnier 1' }));
    expect(screen.queryByTestId('seasonal-rate')).toBeNull();
    fireEvent.click(next());
    await at(4);
  });

  it('walks the six steps, Précédent keeping what was typed, and saves the payload', async () => {
    const { onSaved } = setup();
    fillBasics();
    type('Numéro VIN', 'knapx81abk7000001');
    fireEvent.click(next());
    await at(2);
    fireEvent.change(screen.getByLabelText('Transmission'), { target: { value: 'Automatique' } });
    fireEvent.click(screen.getByLabelText('GPS'));
    fireEvent.click(screen.getByRole('button', { name: /Précédent/ }));
    await at(1);
    expect((screen.getByLabelText('Nom du véhicule') as HTMLInputElement).value).toBe('Kia Sportage');
    expect((screen.getByLabelText('Tarif journalier ($)') as HTMLInputElement).value).toBe('95');
    fireEvent.click(next());
    await at(2);
    expect((screen.getByLabelText('Transmission') as HTMLSelectElement).value).toBe('Automatique');
    expect((screen.getByLabelText('GPS') as HTMLInputElement).checked).toBe(true);
    fireEvent.click(next());
    await at(3);
    fireEvent.click(screen.getByRole('button', { name: 'Ajouter un tarif saisonnier' }));
    type('Nom', 'Fêtes');
    type('Multiplicateur', '1.5');
    fireEvent.click(next());
    await at(4);
    type('Nouvelle caractéristique', 'Caméra 360°');
    fireEvent.click(screen.getByRole('button', { name: 'Ajouter' }));
    type('Nouvelle caractéristique', '  Toit panoramique ');
    fireEvent.keyDown(screen.getByLabelText('Nouvelle caractéristique'), { key: 'Enter' });
    expect((screen.getByLabelText('Nouvelle caractéristique') as HTMLInputElement).value).toBe('');
    expect(screen.getByRole('button', { name: 'Retirer Toit panoramique' })).toBeTruthy();
    type("Police d'assurance", 'SONAS-2026-0042');
    fireEvent.click(next());
    await at(5);
    expect(next().disabled).toBe(true);
    const file = new File(['x'], 'kia.png', { type: 'image/png' });
    fireEvent.change(document.querySelector('input[type=file]')!, { target: { files: [file] } });
    expect(await screen.findByRole('img', { name: 'kia.png' })).toBeTruthy();
    fireEvent.click(next());
    await at(6);
    expect(screen.getByTestId('wizard-review').textContent).toContain('KE-2026-X');
    expect(screen.getByText('1 photo(s)')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Enregistrer le véhicule' }));
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith({ id: 'v-1', name: 'Kia Sportage' }));
    const { payload } = saveVehicle.mock.calls[0]?.[0] as { payload: VehiclePayload };
    expect(payload).toMatchObject({ name: 'Kia Sportage', license_plate: 'KE-2026-X', vin: 'KNAPX81ABK7000001', daily_rate: 95, features: ['Caméra 360°', 'Toit panoramique'], insurance_policy: 'SONAS-2026-0042' });
    expect(payload.specifications).toMatchObject({ transmission: 'Automatique', comfort_features: ['GPS'] });
    expect(payload.pricing.seasonal_rates).toEqual([expect.objectContaining({ name: 'Fêtes', rate_multiplier: 1.5, id: expect.any(String) })]);
    expect(payload.primary_image).toBe('https://cdn.example/kia.png');
  });

  it('edits a saved vehicle from its values', async () => {
    const vehicle = {
      id: 'v-9', name: 'Toyota Hilux', make: 'Toyota', model: 'Hilux', year: 2022, category: 'utility', daily_rate: 80, rental_status: 'available',
      vin: 'JT1234', images: [{ id: 'i', url: 'https://cdn.example/h.png', title: 'h.png', is_primary: true, order: 0 }], features: [], specifications: {}, pricing: {},
    } as unknown as AdminVehicle;
    setup(vehicle);
    expect(screen.getByRole('dialog', { name: 'Modifier le véhicule' })).toBeTruthy();
    await waitFor(() => expect((screen.getByLabelText('Nom du véhicule') as HTMLInputElement).value).toBe('Toyota Hilux'));
    expect((screen.getByLabelText('Année') as HTMLInputElement).value).toBe('2022');
    for (let n = 2; n <= 6; n++) {
      fireEvent.click(next());
      await at(n);
    }
    fireEvent.click(screen.getByRole('button', { name: 'Mettre à jour' }));
    await waitFor(() => expect(saveVehicle).toHaveBeenCalledOnce());
    expect(saveVehicle.mock.calls[0]?.[0]).toMatchObject({ id: 'v-9', payload: { name: 'Toyota Hilux', year: 2022, vin: 'JT1234' } });
  });
});
