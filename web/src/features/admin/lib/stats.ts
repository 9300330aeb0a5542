/** The back office's figures (back-office.md section 9), as pure functions. */

const num = (v: unknown): number => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : 0;
  return Number.isFinite(n) ? n : 0;
};

/** (current − previous) / previous × 100, rounded to one decimal; 0 when previous is 0. */
export function growthPercent(current: unknown, previous: unknown): number {
  const c = num(current);
  const p = num(previous);
  if (p === 0) return 0;
  return Math.round(((c - p) / p) * 1000) / 10;
}

/** "+12.5 %" / "-3 %" / "0 %". */
export function formatGrowth(value: unknown): string {
  const n = num(value);
  const sign = n > 0 ? '+' : '';
  return `${sign}${n.toLocaleString('fr-FR', { maximumFractionDigits: 1 })} %`;
}

/** Revenue of non-cancelled bookings divided by the count of all bookings (0 without any). */
export function averageBasket(bookings: { total_amount: unknown; booking_status: string }[]): number {
  if (bookings.length === 0) return 0;
  const revenue = bookings.filter((b) => b.booking_status !== 'cancelled').reduce((s, b) => s + num(b.total_amount), 0);
  return Math.round((revenue / bookings.length) * 100) / 100;
}

/** Revenue: cancelled bookings excluded. */
export function revenueOf(bookings: { total_amount: unknown; booking_status: string }[]): number {
  return Math.round(bookings.filter((b) => b.booking_status !== 'cancelled').reduce((s, b) => s + num(b.total_amount), 0) * 100) / 100;
}

/** Repeat customers / customers × 100, one decimal; 0 without customers. */
export function retentionRate(repeatCustomers: number, totalCustomers: number): number {
  if (totalCustomers <= 0) return 0;
  return Math.round((repeatCustomers / totalCustomers) * 1000) / 10;
}

/** Bookings / days since the vehicle was added × 100, capped at 100 (a same-day vehicle: 1 day). */
export function utilisation(bookings: number, createdAt: string | Date, now: Date = new Date()): number {
  const created = typeof createdAt === 'string' ? new Date(createdAt) : createdAt;
  const days = Math.max(1, Math.floor((now.getTime() - created.getTime()) / 86_400_000));
  return Math.min(100, Math.round((bookings / days) * 1000) / 10);
}

/** "Aujourd'hui", "Hier", "Il y a 3 jours": how long ago a day was. */
export function sinceLabel(days: number): string {
  if (days <= 0) return "Aujourd'hui";
  if (days === 1) return 'Hier';
  return `Il y a ${days} jours`;
}

/**
 * This month's count against last month's, without a growth figure when last month had none
 * (a percentage of nothing means nothing): "4 ce mois (+33,3 % vs le mois dernier)",
 * "2 ce mois, aucune le mois dernier", "aucune ce mois".
 */
export function monthComparison(current: unknown, previous: unknown): string {
  const c = num(current);
  const p = num(previous);
  if (c === 0 && p === 0) return 'aucune ce mois';
  if (p === 0) return `${c} ce mois, aucune le mois dernier`;
  return `${c} ce mois (${formatGrowth(growthPercent(c, p))} vs le mois dernier)`;
}

/** The month's revenue against last month's: a growth figure only when last month had some. */
export function revenueComparison(current: unknown, previous: unknown): string {
  if (num(previous) === 0) return num(current) === 0 ? 'aucun revenu ce mois ni le mois dernier' : 'aucun revenu le mois dernier';
  return `${formatGrowth(growthPercent(current, previous))} par rapport au mois dernier`;
}

/** Whole days since a date (for sinceLabel). */
export function daysSince(date: string | Date, now: Date = new Date()): number {
  const d = typeof date === 'string' ? new Date(date) : date;
  return Math.max(0, Math.floor((now.getTime() - d.getTime()) / 86_400_000));
}

/** Days of a rental: the rounded-up difference of the dates, at least 1. */
export function rentalDayCount(start: string, end: string): number {
  const ms = new Date(`${end}T00:00:00Z`).getTime() - new Date(`${start}T00:00:00Z`).getTime();
  if (!Number.isFinite(ms)) return 0;
  return Math.max(1, Math.ceil(ms / 86_400_000));
}

/**
 * The wizard's price preview: total = rate × days; from 30 days the monthly discount, else from
 * 7 days the weekly one (not cumulative).
 */
export function pricePreview(dailyRate: unknown, days: number, weeklyDiscount: unknown, monthlyDiscount: unknown) {
  const total = Math.round(num(dailyRate) * days * 100) / 100;
  const percent = days >= 30 ? num(monthlyDiscount) : days >= 7 ? num(weeklyDiscount) : 0;
  const discounted = Math.round(total * (1 - percent / 100) * 100) / 100;
  return { total, percent, discounted };
}

/** Bar height in px for a value, the largest value being `max` px (200 in the spec). */
export function barHeight(value: unknown, largest: number, max = 200): number {
  if (largest <= 0) return 0;
  return Math.round((num(value) / largest) * max);
}
