import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ContactForm } from './contact-form';
import { contactMessages } from '../schemas/contact-schema';

// The one supabase client, faked: the insert succeeds.
const insert = vi.fn();
vi.mock('@/lib/supabase', () => ({
  supabase: () => ({
    from: () => ({
      insert: async (row: unknown) => {
        insert(row);
        return { error: null };
      },
    }),
  }),
}));
vi.mock('@/lib/notify', () => ({ notify: { success: vi.fn(), error: vi.fn() } }));

afterEach(() => {
  cleanup();
  insert.mockReset();
});

const setup = (source: 'contact' | 'support' = 'contact') =>
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ContactForm source={source} />
    </QueryClientProvider>,
  );
const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const leave = (label: string) => fireEvent.blur(screen.getByLabelText(label));

describe('ContactForm', () => {
  // validation runs through the zod resolver, which is asynchronous: errors are awaited
  it('shows a field error once the field is left, then follows the typing', async () => {
    setup();
    type('Email', 'aline@');
    leave('Nom');
    await screen.findByText(contactMessages.required); // the name was left
    expect(screen.queryByText(contactMessages.email)).toBeNull(); // the email not yet
    leave('Email');
    expect(await screen.findByText(contactMessages.email)).toBeTruthy();
    expect(screen.getByLabelText('Email').getAttribute('aria-invalid')).toBe('true');
    type('Email', 'aline@example.cd');
    await waitFor(() => expect(screen.queryByText(contactMessages.email)).toBeNull());

    leave('Sujet');
    expect(await screen.findByText(contactMessages.subject)).toBeTruthy();
  });

  it('submitting shows every error at once; a valid message is stored and the form emptied without errors', async () => {
    setup('support');
    fireEvent.click(screen.getByRole('button', { name: 'Envoyer le message' }));
    expect(await screen.findAllByText(contactMessages.required)).toHaveLength(3);
    expect(screen.getByText(contactMessages.subject)).toBeTruthy();
    expect(insert).not.toHaveBeenCalled();

    type('Nom', 'Aline Kabasele');
    type('Email', 'aline@example.cd');
    type('Sujet', 'information');
    type('Message', 'Bonjour, une location avec chauffeur ?');
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    fireEvent.click(screen.getByRole('button', { name: 'Envoyer le message' }));
    await screen.findByText(/Votre message a bien été enregistré/);
    expect(insert).toHaveBeenCalledWith(expect.objectContaining({ name: 'Aline Kabasele', subject: 'information', source: 'support' }));
    expect((screen.getByLabelText('Nom') as HTMLInputElement).value).toBe('');
    expect(screen.queryByRole('alert')).toBeNull();
    leave('Nom');
    expect(await screen.findByText(contactMessages.required)).toBeTruthy();
  });
});
