import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { DetailsForm } from './details-form';
import type { AvailableVehicle } from '@/types/database';

const vehicle: AvailableVehicle = {
  id: 'v1', name: 'Toyota Land Cruiser', make: 'Toyota', model: 'Land Cruiser', year: 2022, category: 'suv', color: null,
  daily_rate: 150, rental_status: 'available', description: null, features: [], location: null, specifications: {},
  pricing: {}, images: [], primary_image: null, days: 8, base_total: 1200, discount_percent: 10, total: 1080,
};

function setup(onSubmit = vi.fn()) {
  render(
    <DetailsForm
      vehicle={vehicle}
      startDate="2026-11-22"
      endDate="2026-11-30"
      pickupLocation="Gombe"
      dropoffLocation=""
      defaults={{ fullName: '', email: '', phone: '' }}
      busy={false}
      error={null}
      onBack={() => {}}
      onSubmit={onSubmit}
    />,
  );
  return onSubmit;
}

describe('DetailsForm', () => {
  it('shows the summary with the database total and the discount', () => {
    setup();
    expect(screen.getByTestId('summary-total').textContent).toBe('1\u202f080,00\u00a0$');
    // French typography: a non-breaking space before « % » and « : » (the text as written, not normalised)
    expect(screen.getByText('-10\u00a0% (-120,00\u00a0$)', { normalizer: (t) => t })).toBeTruthy();
    expect(screen.getByText('22 novembre 2026')).toBeTruthy();
    expect(screen.getByText(/Protection incluse\u00a0: Assurance tous risques et assistance 24\/7/, { normalizer: (t) => t })).toBeTruthy();
  });

  // validation runs through the zod resolver, which is asynchronous: errors are awaited
  it('refuses an empty form with the French message and does not submit', async () => {
    const onSubmit = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Confirmer la réservation' }));
    expect(await screen.findAllByText('Veuillez remplir tous les champs obligatoires')).toHaveLength(4);
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('submits checked values', async () => {
    const onSubmit = setup();
    fireEvent.change(screen.getByLabelText('Nom complet'), { target: { value: 'Jean Mukendi' } });
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'jean@example.cd' } });
    fireEvent.change(screen.getByLabelText('Téléphone'), { target: { value: '+243 81 234 5678' } });
    fireEvent.change(screen.getByLabelText('Numéro de permis de conduire'), { target: { value: 'KIN-1234' } });
    fireEvent.click(screen.getByRole('button', { name: 'Confirmer la réservation' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalled());
    expect(onSubmit.mock.calls[0]?.[0]).toEqual({
      fullName: 'Jean Mukendi',
      email: 'jean@example.cd',
      phone: '+243 81 234 5678',
      licenseNumber: 'KIN-1234',
      specialRequests: '',
    });
  });
});
