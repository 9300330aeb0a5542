import { FunctionsFetchError, FunctionsHttpError, FunctionsRelayError } from '@supabase/supabase-js';
import { supabaseClient } from '@/lib/supabase';
import { AppError, errorMessages } from '@/lib/errors';
import { bookingReference } from '@/lib/format';
import type { BookingKind } from './bookings';

/**
 * A booking's receipt as a PDF, made by the `booking-receipt` Edge Function (web/supabase/functions),
 * which reads the booking with the customer's own token: the database decides whose receipt it is.
 */

/** « recu-3F2A9C1B.pdf »: the file name a customer keeps. */
export function receiptFileName(id: string): string {
  return `recu-${bookingReference(id)}.pdf`;
}

export const receiptMessages = {
  not_found: "Ce reçu n'est pas disponible : la réservation n'est pas dans votre compte.",
  failed: "Le reçu n'a pas pu être téléchargé. Réessayez dans un instant.",
} as const;

/** The function's error in French: its own message when it gave one, else ours by status. */
async function receiptError(error: unknown): Promise<AppError> {
  if (error instanceof FunctionsHttpError) {
    const response = error.context as Response;
    if (response.status === 404) return new AppError('receipt_not_found', receiptMessages.not_found);
    if (response.status === 401) return new AppError('session_not_found', errorMessages.session_not_found);
    const body: unknown = await response.json().catch(() => null);
    const message = body && typeof body === 'object' ? (body as { message?: unknown }).message : null;
    return new AppError('receipt_failed', typeof message === 'string' && message ? message : receiptMessages.failed);
  }
  // the server refused the token before the function ran (expired or foreign session)
  if (error instanceof FunctionsRelayError) return new AppError('session_not_found', errorMessages.session_not_found);
  if (error instanceof FunctionsFetchError) return new AppError('network', errorMessages.network);
  return new AppError('receipt_failed', receiptMessages.failed);
}

/** The receipt's PDF, asked for as the signed-in customer. */
export async function fetchReceipt(kind: BookingKind, id: string): Promise<Blob> {
  const client = await supabaseClient();
  const { data, error } = await client.functions.invoke<Blob>('booking-receipt', { body: { id, kind } });
  if (error) throw await receiptError(error);
  if (!(data instanceof Blob) || data.type !== 'application/pdf') throw new AppError('receipt_failed', receiptMessages.failed);
  return data;
}

/** Hand a file to the browser as a download named `fileName`. */
export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // the download has started from the link; the URL can go once the click is handled
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Download a booking's receipt as « recu-<RÉF>.pdf ». */
export async function downloadReceipt(kind: BookingKind, id: string): Promise<void> {
  saveFile(await fetchReceipt(kind, id), receiptFileName(id));
}
