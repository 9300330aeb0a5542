import { format, parseISO, isValid } from 'date-fns';
import { fr } from 'date-fns/locale';

type Currency = 'USD' | 'CDF' | 'EUR';

const symbols: Record<Currency, string> = { USD: '$', CDF: 'FC', EUR: '€' };
const numbers = {
  2: new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  0: new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 0, maximumFractionDigits: 0 }),
};

/** The currency prices are shown in and its rate (units per dollar): the back office's setting. */
let display: { currency: Currency; rate: number } = { currency: 'USD', rate: 1 };

/** Show prices in `currency` at `rate` per dollar from now on (the site's settings call this). */
export function setDisplayCurrency(currency: Currency, rate: number): void {
  display = { currency, rate: currency === 'USD' || !(rate > 0) ? 1 : rate };
}

export function displayCurrency() {
  return display;
}

/** An amount already in `currency`, French style: "1 065,00 $", "2 982 000 FC", "979,80 €". */
export function formatMoney(value: number, currency: Currency): string {
  const digits = currency === 'CDF' ? 0 : 2;
  return `${numbers[digits].format(Number.isFinite(value) ? value : 0)}\u00a0${symbols[currency]}`;
}

/**
 * A dollar amount (as stored) in the display currency: 1065 → "1 065,00 $", or "3 035 250 FC" at
 * 2 850 FC per dollar. Accepts PostgREST numerics sent as strings.
 */
export function formatPrice(amount: number | string | null | undefined): string {
  const n = typeof amount === 'string' ? Number(amount) : (amount ?? 0);
  return formatMoney((Number.isFinite(n) ? n : 0) * display.rate, display.currency);
}

function toDate(value: string | Date): Date | null {
  const d = typeof value === 'string' ? parseISO(value) : value;
  return isValid(d) ? d : null;
}

/** "22 novembre 2026". */
export function formatDate(value: string | Date | null | undefined): string {
  if (!value) return '—';
  const d = toDate(value);
  return d ? format(d, 'd MMMM yyyy', { locale: fr }) : '—';
}

/** "22 novembre 2026 à 14:30". */
export function formatDateTime(value: string | Date | null | undefined): string {
  if (!value) return '—';
  const d = toDate(value);
  return d ? format(d, "d MMMM yyyy 'à' HH:mm", { locale: fr }) : '—';
}

/** A date as the API wants it (yyyy-MM-dd), in local time. */
export function isoDate(d: Date): string {
  return format(d, 'yyyy-MM-dd');
}

export function todayIso(): string {
  return isoDate(new Date());
}

export function addDaysIso(iso: string, days: number): string {
  const d = parseISO(iso);
  d.setDate(d.getDate() + days);
  return isoDate(d);
}

/** The booking reference: the first 8 characters of its id, upper-cased. */
export function bookingReference(id: string): string {
  return id.slice(0, 8).toUpperCase();
}

/** "1 jour", "3 jours". */
export function formatDays(days: number): string {
  return `${days} ${days > 1 ? 'jours' : 'jour'}`;
}

/** Price shown on a search card: the struck-through base total appears only with a discount. */
export function priceDisplay(quote: { base_total: number | string; total: number | string; discount_percent: number | string }) {
  const base = Number(quote.base_total);
  const total = Number(quote.total);
  const percent = Number(quote.discount_percent);
  const hasDiscount = percent > 0 && total < base;
  return {
    total: formatPrice(total),
    base: hasDiscount ? formatPrice(base) : null,
    badge: hasDiscount ? formatPercent(-Math.round(percent)) : null,
    saving: hasDiscount ? formatPrice(base - total) : null,
  };
}

/** An image path from the API (`/storage/v1/...`) made absolute against the API URL. */
export function apiAssetUrl(apiUrl: string, path: string | null | undefined): string | null {
  if (!path) return null;
  if (/^https?:\/\//.test(path) || path.startsWith('data:')) return path;
  return `${apiUrl.replace(/\/$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
}

/**
 * A thumbnail of a public storage picture: the server's image transformation at `width` x
 * `height` (cropped to fill, WebP for browsers that take it) instead of the full picture. SVGs
 * and pictures from elsewhere are returned as they are.
 */
export function thumbnailUrl(url: string | null, width: number, height: number): string | null {
  if (!url) return null;
  const match = /^(.*)\/storage\/v1\/object\/public\/([^?#]+\.(?:jpe?g|png|webp|gif))$/i.exec(url);
  if (!match) return url;
  return `${match[1]}/storage/v1/render/image/public/${match[2]}?width=${width}&height=${height}&resize=cover&quality=75`;
}

/**
 * French typography: a percentage with the non-breaking space French puts before « % »
 * (`-10 %`, `12,5 %`), the decimal comma, and a minus sign kept with its number.
 */
export function formatPercent(value: number, { signed = false }: { signed?: boolean } = {}): string {
  const n = Number.isFinite(value) ? value : 0;
  const sign = n < 0 ? '-' : signed && n > 0 ? '+' : '';
  return `${sign}${new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 }).format(Math.abs(n)).replace(/\s/g, '\u202f')}\u00a0%`;
}

/**
 * French punctuation in a text: a non-breaking space before « : ; ! ? % » and inside « », so a
 * line never starts with a colon or a closing guillemet. Spaces already there become non-breaking;
 * « :// » (addresses) and times (« 14:30 ») are left alone.
 */
export function frenchTypography(text: string): string {
  return text
    .replace(/([^\s;!?:%«])[ \u00a0\u202f]?([;!?%])/g, '$1\u00a0$2')
    .replace(/([^\s;!?:%«])[ \u00a0\u202f]?:(?!\/\/|\d)/g, '$1\u00a0:')
    .replace(/«[ \u00a0\u202f]?/g, '«\u00a0')
    .replace(/[ \u00a0\u202f]?»/g, '\u00a0»');
}
