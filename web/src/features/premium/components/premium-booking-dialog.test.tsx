import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { addDaysIso, todayIso } from '@/lib/format';
import { PremiumBookingDialog } from './premium-booking-dialog';
import { premiumMessages } from '../schemas/premium-schema';

// The one supabase client, faked: the insert answers the row.
const insert = vi.fn();
vi.mock('@/lib/supabase', () => ({
  supabase: () => ({
    from: () => ({
      insert: (row: unknown) => {
        insert(row);
        return { select: () => ({ single: async () => ({ data: { id: 'abcdef12-0000-4000-8000-000000000003', total_amount: 600 }, error: null }) }) };
      },
    }),
  }),
}));
vi.mock('@/lib/notify', () => ({ notify: { success: vi.fn(), error: vi.fn() } }));

afterEach(() => {
  cleanup();
  insert.mockReset();
});

function setup(defaults = { name: '', email: '', phone: '' }) {
  const onBooked = vi.fn();
  render(
    <QueryClientProvider client={new QueryClient()}>
      <PremiumBookingDialog
        open
        onClose={() => {}}
        service={{ code: 'business_pack', position: 3, name: 'Pack Business', description: '', price_per_day: 300 }}
        userId="u1"
        defaults={defaults}
        onBooked={onBooked}
      />
    </QueryClientProvider>,
  );
  return { onBooked };
}
const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const leave = (label: string) => fireEvent.blur(screen.getByLabelText(label));

describe('PremiumBookingDialog', () => {
  // validation runs through the zod resolver, which is asynchronous: errors are awaited
  it('shows a field error once the field is left, not before, and follows the typing after', async () => {
    setup();
    type('Email', 'jean@');
    leave('Nom complet');
    await screen.findByText(premiumMessages.name);
    expect(screen.queryByText(premiumMessages.email)).toBeNull(); // typed, not left
    leave('Email');
    expect(await screen.findByText(premiumMessages.email)).toBeTruthy();
    // only the fields left show their error
    expect(screen.queryByText(premiumMessages.phone)).toBeNull();
    type('Email', 'jean@example.cd');
    await waitFor(() => expect(screen.queryByText(premiumMessages.email)).toBeNull());

    leave('Téléphone');
    expect(await screen.findByText(premiumMessages.phone)).toBeTruthy();
    leave('Date de début');
    expect(await screen.findByText(premiumMessages.dateRequired)).toBeTruthy();
  });

  it('submitting shows every error at once and books nothing', async () => {
    setup();
    fireEvent.click(screen.getByRole('button', { name: 'Envoyer la demande' }));
    await screen.findByText(premiumMessages.name);
    for (const m of [premiumMessages.name, premiumMessages.email, premiumMessages.phone, premiumMessages.dateRequired]) expect(screen.getByText(m)).toBeTruthy();
    expect(insert).not.toHaveBeenCalled();
  });

  it('books with valid values', async () => {
    const { onBooked } = setup({ name: 'Jean Mukendi', email: 'jean@example.cd', phone: '' });
    type('Téléphone', '+243 81 234 5678');
    const start = addDaysIso(todayIso(), 3);
    type('Date de début', start);
    type('Durée', '2');
    fireEvent.click(screen.getByRole('button', { name: 'Envoyer la demande' }));
    await waitFor(() => expect(onBooked).toHaveBeenCalled());
    expect(insert).toHaveBeenCalledWith(expect.objectContaining({ service_type: 'business_pack', customer_name: 'Jean Mukendi', start_date: start, duration_days: 2 }));
  });
});
