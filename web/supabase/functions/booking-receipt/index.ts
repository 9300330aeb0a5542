// booking-receipt: a booking's receipt as a PDF, for « Mes réservations ».
//
//   GET  /functions/v1/booking-receipt?id=<uuid>[&kind=vehicle|airport|diagnostic|premium]
//   POST /functions/v1/booking-receipt   {"id": "<uuid>", "kind"?: "..."}
//
// The booking is read AS THE CALLER (supabase-js with the request's Authorization header), so
// row-level security decides: a customer gets their own bookings' receipts, the back office any,
// and anyone else a 404 as if the booking did not exist. The service role key reads past
// row-level security, so it gets any booking's receipt: the server's outbox calls the function so
// (POST {id, kind}) to attach the receipt to the « Réservation confirmée » mail
// (migrations/20261206000700_confirmation_receipt_attached.sql). The JWT itself is checked before the
// function runs (verify_jwt, on by default: no token, 401). Errors are JSON
// `{ "error": code, "message": French text }` with the CORS headers.
import { createClient } from 'npm:@supabase/supabase-js@2.119.1';
import { corsHeaders } from '../_shared/cors.ts';
import { type BookingKind, readReceipt, ReceiptError } from './booking.ts';
import { receiptFileName, renderReceipt } from './pdf.ts';

const KINDS = ['vehicle', 'airport', 'diagnostic', 'premium'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function failure(status: number, error: string, message: string): Response {
  return Response.json({ error, message }, { status, headers: corsHeaders });
}

/** The booking id and kind of a GET's query or a POST's JSON body. */
async function requested(req: Request): Promise<{ id: unknown; kind: unknown }> {
  if (req.method === 'GET') {
    const query = new URL(req.url).searchParams;
    return { id: query.get('id'), kind: query.get('kind') ?? undefined };
  }
  const body = await req.json().catch(() => null);
  if (!body || typeof body !== 'object') throw new ReceiptError(400, 'invalid_body', 'Le corps de la requête doit être un objet JSON.');
  return { id: (body as Record<string, unknown>).id, kind: (body as Record<string, unknown>).kind };
}

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders });
  if (req.method !== 'GET' && req.method !== 'POST') {
    return failure(405, 'method_not_allowed', 'Méthode non prise en charge : utilisez GET ou POST.');
  }
  try {
    const { id, kind } = await requested(req);
    if (typeof id !== 'string' || !UUID.test(id)) {
      return failure(400, 'invalid_id', 'Identifiant de réservation manquant ou invalide.');
    }
    if (kind !== undefined && kind !== null && !(typeof kind === 'string' && KINDS.includes(kind))) {
      return failure(400, 'invalid_kind', 'Type de réservation inconnu.');
    }
    const authorization = req.headers.get('Authorization');
    if (!authorization) return failure(401, 'unauthorized', 'Connectez-vous pour obtenir ce reçu.');
    const db = createClient(Deno.env.get('SUPABASE_URL')!, Deno.env.get('SUPABASE_ANON_KEY')!, {
      global: { headers: { Authorization: authorization } },
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
    const receipt = await readReceipt(db, id.toLowerCase(), (kind ?? undefined) as BookingKind | undefined);
    if (!receipt) return failure(404, 'not_found', 'Réservation introuvable dans votre compte.');
    const pdf = await renderReceipt(receipt);
    return new Response(pdf as Uint8Array<ArrayBuffer>, {
      headers: {
        ...corsHeaders,
        'Content-Type': 'application/pdf',
        'Content-Disposition': `attachment; filename="${receiptFileName(receipt)}"`,
        'Cache-Control': 'private, no-store',
      },
    });
  } catch (err) {
    if (err instanceof ReceiptError) return failure(err.status, err.code, err.message);
    console.error('booking-receipt:', err instanceof Error ? (err.stack ?? err.message) : String(err));
    return failure(500, 'receipt_failed', 'Le reçu n’a pas pu être établi. Réessayez dans un instant.');
  }
});
