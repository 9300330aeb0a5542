import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { defaultSettings, type Settings } from '@/features/admin/schemas/settings-schema';
import AdminSettingsPage from './settings';

// The settings as the server has them, and the save that records what it was given.
let saved: Settings = structuredClone(defaultSettings);
const mutate = vi.fn();
vi.mock('@/features/admin/api/settings', () => ({
  useSettings: () => ({ isPending: false, isError: false, data: saved }),
  useSaveSettings: () => ({ mutate, isPending: false }),
}));
vi.mock('@/components/ui/page', () => ({ usePageTitle: () => undefined }));

beforeEach(() => {
  saved = structuredClone(defaultSettings);
  mutate.mockReset();
  mutate.mockImplementation((_v: Settings, { onSuccess }: { onSuccess: () => void }) => onSuccess());
});
afterEach(cleanup);

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const tab = (name: string) => fireEvent.click(screen.getByRole('tab', { name }));
const save = () => fireEvent.click(screen.getByRole('button', { name: 'Sauvegarder' }));

describe('AdminSettingsPage', () => {
  it('shows the saved settings in their tabs', () => {
    render(<AdminSettingsPage />);
    expect((screen.getByLabelText("Nom de l'entreprise") as HTMLInputElement).value).toBe('Kinshasa Prestige Auto');
    tab('Système');
    expect((screen.getByLabelText("Délai d'expiration de session (minutes)") as HTMLInputElement).value).toBe('30');
    expect((screen.getByLabelText('Autoriser les inscriptions') as HTMLInputElement).checked).toBe(true);
  });

  it('refuses a value out of range on save: the message in the banner and under the field, kept until the next save', async () => {
    render(<AdminSettingsPage />);
    tab('Système');
    type("Délai d'expiration de session (minutes)", '2000');
    // nothing is said before saving
    expect(screen.queryByText('Délai de session : entre 5 et 1440')).toBeNull();
    save();
    expect(await screen.findByText('Erreur lors de la sauvegarde : Délai de session : entre 5 et 1440')).toBeTruthy();
    expect(screen.getByText('Délai de session : entre 5 et 1440')).toBeTruthy();
    expect(mutate).not.toHaveBeenCalled();
    type("Délai d'expiration de session (minutes)", '45');
    expect(screen.getByText('Délai de session : entre 5 et 1440')).toBeTruthy();

    fireEvent.click(screen.getByLabelText('Autoriser les inscriptions'));
    tab('Business');
    type('Frais de retard (%)', '12.5');
    save();
    expect(await screen.findByText('Paramètres sauvegardés avec succès')).toBeTruthy();
    const sent = mutate.mock.calls[0]?.[0] as Settings;
    expect(sent.system).toMatchObject({ sessionTimeout: 45, allowRegistrations: false });
    expect(sent.business.lateFeePercentage).toBe(12.5);
    tab('Système');
    expect(screen.queryByText('Délai de session : entre 5 et 1440')).toBeNull();
  });

  it('opens the tab of the first error, and says an empty number is required', async () => {
    render(<AdminSettingsPage />);
    tab('Business');
    type('Durée minimum (jours)', '');
    tab('Notifications');
    save();
    expect(await screen.findByText('Erreur lors de la sauvegarde : Durée minimum : un nombre est requis')).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Business' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByText('Durée minimum : un nombre est requis')).toBeTruthy();
  });

  it('asks the rate of the currency chosen, and checks it', async () => {
    render(<AdminSettingsPage />);
    expect(screen.queryByLabelText('Taux : euros pour 1 $')).toBeNull();
    fireEvent.change(screen.getByLabelText('Devise'), { target: { value: 'EUR' } });
    expect((screen.getByLabelText('Taux : euros pour 1 $') as HTMLInputElement).value).toBe('0.92');
    fireEvent.change(screen.getByLabelText('Devise'), { target: { value: 'CDF' } });
    type('Taux : francs congolais pour 1 $', '-3');
    save();
    expect(await screen.findByText('Taux du franc : un nombre positif', { selector: 'p' })).toBeTruthy();
  });

  it('imports a settings file into the form, and refuses one that is not JSON', async () => {
    render(<AdminSettingsPage />);
    const input = screen.getByLabelText('Fichier de paramètres (.json)');
    const file = new File([JSON.stringify({ general: { ...defaultSettings.general, companyName: 'Importée SARL' } })], 'p.json', { type: 'application/json' });
    fireEvent.change(input, { target: { files: [file] } });
    expect(await screen.findByText('Paramètres importés avec succès')).toBeTruthy();
    await waitFor(() => expect((screen.getByLabelText("Nom de l'entreprise") as HTMLInputElement).value).toBe('Importée SARL'));
    fireEvent.change(input, { target: { files: [new File(['x'], 'p.txt')] } });
    expect(await screen.findByText("Erreur lors de l'importation")).toBeTruthy();
  });
});
