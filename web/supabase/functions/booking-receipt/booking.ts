// A booking as its receipt shows it, read with a supabase-js client that carries the caller's
// token: row-level security decides whether the caller sees it (its customer, or the back
// office), and a booking the caller may not see is simply not found.
import type { SupabaseClient } from 'npm:@supabase/supabase-js@2.119.1';

export type BookingKind = 'vehicle' | 'airport' | 'diagnostic' | 'premium';
export type BookingStatus = 'pending' | 'confirmed' | 'active' | 'completed' | 'cancelled';

/** What the receipt prints, already in French. */
export interface Receipt {
  kind: BookingKind;
  id: string;
  reference: string;
  status: BookingStatus;
  createdAt: string;
  /** « Location de véhicule : Toyota Prado » */
  title: string;
  /** lines under the title: dates, places, people… */
  details: string[];
  /** in dollars, as stored */
  total: number;
  payment: { method: string; status: string };
  customer: { name: string; email: string; phone: string };
  company: Company;
}

export interface Company {
  name: string;
  address: string;
  phone: string;
  email: string;
  currency: 'USD' | 'CDF' | 'EUR';
  /** units of `currency` per dollar */
  rate: number;
}

const tables: Record<BookingKind, string> = {
  vehicle: 'bookings',
  airport: 'airport_bookings',
  diagnostic: 'diagnostic_bookings',
  premium: 'premium_service_bookings',
};

export const kindLabels: Record<BookingKind, string> = {
  vehicle: 'Location de véhicule',
  airport: 'Service aéroportuaire',
  diagnostic: 'Diagnostic automobile',
  premium: 'Service premium',
};

export const statusLabels: Record<BookingStatus, string> = {
  pending: 'En attente',
  confirmed: 'Confirmée',
  active: 'En cours',
  completed: 'Terminée',
  cancelled: 'Annulée',
};

const airportNames: Record<string, string> = { vip: 'Service VIP', standard: 'Service Standard', baggage: 'Navette aéroport' };
const paymentMethods: Record<string, string> = {
  card: 'Carte bancaire',
  mobile: 'Mobile money',
  bank: 'Virement bancaire',
  digital_wallet: 'Portefeuille numérique',
};
const mobileProviders: Record<string, string> = { mpesa: 'M-Pesa (Vodacom)', orange: 'Orange Money', airtel: 'Airtel Money' };

/** The site's defaults when the back office has not set its details (web/src/config/site.ts). */
const defaultCompany: Company = {
  name: 'Kinshasa Prestige Auto',
  address: 'Boulevard du 30 Juin, commune de la Gombe, Kinshasa',
  phone: '+243 81 000 0000',
  email: 'contact@example.cd',
  currency: 'USD',
  rate: 1,
};

/** A failure to read, with the status and French message the caller gets. */
export class ReceiptError extends Error {
  constructor(public status: number, public code: string, message: string) {
    super(message);
  }
}

/** The booking `id` (of `kind`, else of whichever kind has it) as `db`'s caller may see it; null when not found. */
export async function readReceipt(db: SupabaseClient, id: string, kind?: BookingKind): Promise<Receipt | null> {
  const kinds = kind ? [kind] : (Object.keys(tables) as BookingKind[]);
  const found = await Promise.all(
    kinds.map(async (k) => {
      const select = k === 'vehicle' ? '*, vehicles(name, make, model)' : '*';
      const { data, error } = await db.from(tables[k]).select(select).eq('id', id).maybeSingle();
      if (error) throw readFailed(error);
      return data ? { kind: k, row: data as unknown as Record<string, unknown> } : null;
    }),
  );
  const hit = found.find((f) => f !== null);
  if (!hit) return null;
  const [company, customer] = await Promise.all([readCompany(db), readCustomer(db, hit.row)]);
  return toReceipt(hit.kind, hit.row, company, customer);
}

function readFailed(error: { message: string; code?: string }): ReceiptError {
  console.error(`booking-receipt: read failed: ${error.code ?? ''} ${error.message}`);
  return new ReceiptError(500, 'read_failed', 'La réservation n’a pas pu être lue. Réessayez dans un instant.');
}

/** The company's name, contact details and display currency (rpc site_settings, the back office's settings). */
async function readCompany(db: SupabaseClient): Promise<Company> {
  const { data, error } = await db.rpc('site_settings');
  if (error) throw readFailed(error);
  const s = (data ?? {}) as Record<string, unknown>;
  const text = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() ? v.trim() : fallback);
  const currency = s.currency === 'CDF' || s.currency === 'EUR' ? s.currency : 'USD';
  const rate = Number(s.exchangeRate);
  return {
    name: text(s.companyName, defaultCompany.name),
    address: text(s.companyAddress, defaultCompany.address),
    phone: text(s.companyPhone, defaultCompany.phone),
    email: text(s.companyEmail, defaultCompany.email),
    currency,
    rate: currency === 'USD' || !(rate > 0) ? 1 : rate,
  };
}

/** The customer: their profile (readable by them and the back office), else the booking's own contact. */
async function readCustomer(db: SupabaseClient, row: Record<string, unknown>): Promise<Receipt['customer']> {
  let profile: Record<string, unknown> | null = null;
  if (typeof row.user_id === 'string') {
    const { data, error } = await db.from('profiles').select('full_name, email, phone').eq('user_id', row.user_id).maybeSingle();
    if (error) throw readFailed(error);
    profile = data;
  }
  const pick = (...values: unknown[]) => (values.find((v) => typeof v === 'string' && v.trim()) as string | undefined)?.trim() ?? '';
  return {
    name: pick(profile?.full_name, row.customer_name, profile?.email, row.customer_email),
    email: pick(profile?.email, row.customer_email),
    phone: pick(profile?.phone, row.customer_phone),
  };
}

/** « 22 novembre 2026 » of a date column (yyyy-MM-dd). */
export function frenchDate(iso: unknown): string {
  if (typeof iso !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(iso)) return '—';
  const d = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  return new Intl.DateTimeFormat('fr-FR', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(d);
}

/** « 22 novembre 2026 à 14:30 » of a moment, in the company's time zone (Kinshasa). */
export function frenchDateTime(value: string | Date): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) return '—';
  const zone = 'Africa/Kinshasa';
  const date = new Intl.DateTimeFormat('fr-FR', { day: 'numeric', month: 'long', year: 'numeric', timeZone: zone }).format(d);
  const time = new Intl.DateTimeFormat('fr-FR', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: zone }).format(d);
  return `${date} à ${time}`;
}

const time = (v: unknown) => (typeof v === 'string' ? v.slice(0, 5) : '');
const days = (n: number) => `${n} ${n > 1 ? 'jours' : 'jour'}`;
const people = (n: number, word: string) => `${n} ${word}${n > 1 ? 's' : ''}`;

function toReceipt(kind: BookingKind, row: Record<string, unknown>, company: Company, customer: Receipt['customer']): Receipt {
  const id = String(row.id);
  const status = String(row.booking_status) as BookingStatus;
  let title: string;
  const details: string[] = [];
  let method = 'À régler auprès de notre équipe (espèces, mobile money ou virement)';
  switch (kind) {
    case 'vehicle': {
      const vehicle = row.vehicles as { name?: string } | null;
      title = vehicle?.name ?? 'Véhicule';
      const start = String(row.start_date);
      const end = String(row.end_date);
      const n = Math.max(1, Math.round((Date.parse(end) - Date.parse(start)) / 86_400_000));
      details.push(`Du ${frenchDate(start)} au ${frenchDate(end)} (${days(n)})`);
      if (row.pickup_time) details.push(`Prise en charge à ${time(row.pickup_time)}`);
      if (row.pickup_location) details.push(`Lieu de prise en charge : ${row.pickup_location}`);
      if (row.dropoff_location) details.push(`Lieu de retour : ${row.dropoff_location}`);
      if (typeof row.passengers === 'number') details.push(people(row.passengers, 'personne'));
      if (typeof row.payment_method === 'string' && paymentMethods[row.payment_method]) {
        method = paymentMethods[row.payment_method];
        if (row.payment_method === 'mobile' && typeof row.mobile_money_provider === 'string') {
          method += ` (${mobileProviders[row.mobile_money_provider] ?? row.mobile_money_provider})`;
        }
        if (row.payment_method === 'bank' && row.payment_reference) method += ` (référence ${row.payment_reference})`;
      }
      break;
    }
    case 'airport': {
      title = airportNames[String(row.service_type)] ?? 'Service aéroportuaire';
      const way = row.flight_type === 'arrival' ? 'arrivée' : 'départ';
      details.push(`Vol ${row.flight_number} (${way}) le ${frenchDate(row.flight_date)} à ${time(row.flight_time)}`);
      details.push(people(Number(row.passengers), 'passager'));
      break;
    }
    case 'diagnostic':
      title = typeof row.service_name === 'string' ? row.service_name : 'Diagnostic';
      details.push(`${row.vehicle_type} · le ${frenchDate(row.appointment_date)} à ${time(row.appointment_time)}`);
      break;
    case 'premium':
      title = typeof row.service_name === 'string' ? row.service_name : 'Service premium';
      details.push(`À partir du ${frenchDate(row.start_date)} · ${days(Number(row.duration_days))}`);
      break;
  }
  const paymentStatus = status === 'cancelled'
    ? 'Sans objet (réservation annulée)'
    : status === 'completed' || status === 'active'
    ? 'Réglé auprès de notre équipe'
    : 'À régler auprès de notre équipe : aucun paiement n’est encaissé en ligne';
  return {
    kind,
    id,
    reference: id.slice(0, 8).toUpperCase(),
    status,
    createdAt: String(row.created_at),
    title: `${kindLabels[kind]} : ${title}`,
    details,
    total: Number(row.total_amount),
    payment: { method, status: paymentStatus },
    customer,
    company,
  };
}
