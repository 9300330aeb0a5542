import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FunctionsFetchError, FunctionsHttpError, FunctionsRelayError } from '@supabase/supabase-js';
import { errorMessages } from '@/lib/errors';
import { downloadReceipt, fetchReceipt, receiptFileName, receiptMessages } from './receipt';

// supabase-js's functions client, faked: what `functions.invoke` answers is set per test.
const invoked: unknown[][] = [];
let answer: { data: unknown; error: unknown };
vi.mock('@/lib/supabase', () => ({
  supabaseClient: async () => ({
    functions: {
      invoke: async (...args: unknown[]) => {
        invoked.push(args);
        return answer;
      },
    },
  }),
}));

const ID = '3f2a9c1b-7d4e-4a1b-9c2d-1e2f3a4b5c6d';
const pdf = () => new Blob(['%PDF-1.7 …'], { type: 'application/pdf' });
const httpError = (status: number, body: unknown) =>
  new FunctionsHttpError(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }));

beforeEach(() => {
  invoked.length = 0;
});

describe('the booking receipt', () => {
  it('is named after the booking reference', () => {
    expect(receiptFileName(ID)).toBe('recu-3F2A9C1B.pdf');
  });

  it('is asked of booking-receipt with the booking id and kind, and comes back as a PDF blob', async () => {
    answer = { data: pdf(), error: null };
    const blob = await fetchReceipt('vehicle', ID);
    expect(blob.type).toBe('application/pdf');
    expect(invoked).toEqual([['booking-receipt', { body: { id: ID, kind: 'vehicle' } }]]);
  });

  it('says in French that another account’s booking has no receipt here (404)', async () => {
    answer = { data: null, error: httpError(404, { error: 'not_found', message: 'Réservation introuvable dans votre compte.' }) };
    await expect(fetchReceipt('vehicle', ID)).rejects.toMatchObject({ code: 'receipt_not_found', message: receiptMessages.not_found });
  });

  it('shows the function’s own French message for its other errors', async () => {
    answer = { data: null, error: httpError(400, { error: 'invalid_id', message: 'Identifiant de réservation manquant ou invalide.' }) };
    await expect(fetchReceipt('vehicle', ID)).rejects.toMatchObject({ message: 'Identifiant de réservation manquant ou invalide.' });
  });

  it('asks to sign in again when the server refuses the session, and names a network failure', async () => {
    answer = { data: null, error: new FunctionsRelayError(new Response('{"msg":"Invalid JWT"}', { status: 401 })) };
    await expect(fetchReceipt('airport', ID)).rejects.toMatchObject({ message: errorMessages.session_not_found });
    answer = { data: null, error: new FunctionsFetchError(new TypeError('Failed to fetch')) };
    await expect(fetchReceipt('airport', ID)).rejects.toMatchObject({ message: errorMessages.network });
  });

  it('refuses an answer that is not a PDF', async () => {
    answer = { data: 'plain words', error: null };
    await expect(fetchReceipt('premium', ID)).rejects.toMatchObject({ message: receiptMessages.failed });
  });

  it('is downloaded through a link named recu-<RÉF>.pdf', async () => {
    answer = { data: pdf(), error: null };
    const clicked: { href: string; download: string }[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.href, download: this.download });
    });
    URL.createObjectURL = vi.fn(() => 'blob:receipt');
    URL.revokeObjectURL = vi.fn();
    await downloadReceipt('vehicle', ID);
    expect(clicked).toEqual([{ href: 'blob:receipt', download: 'recu-3F2A9C1B.pdf' }]);
    expect(document.querySelector('a[download]')).toBeNull();
    click.mockRestore();
  });
});
