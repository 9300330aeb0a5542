/** French labels of the back office's codes (back-office.md sections 3, 4 and 9). */
import { mobileProviderLabels, paymentMethodLabels } from '@/lib/labels';
import type { BookingPaymentMethod, BookingStatus, MobileMoneyProvider, RentalStatus } from '@/types/database';
import type { BookingKind } from '../types';

export const bookingStatusLabels: Record<BookingStatus, string> = {
  pending: 'En attente',
  confirmed: 'Confirmée',
  active: 'En cours',
  completed: 'Terminée',
  cancelled: 'Annulée',
};
export const bookingStatuses = Object.keys(bookingStatusLabels) as BookingStatus[];

/**
 * The status state machine the database enforces (V51 `booking_next_statuses`): an
 * administrator confirms or cancels a pending booking, starts or cancels a confirmed one,
 * completes an active one; completed and cancelled are final.
 */
export const nextBookingStatuses: Record<BookingStatus, BookingStatus[]> = {
  pending: ['confirmed', 'cancelled'],
  confirmed: ['active', 'cancelled'],
  active: ['completed'],
  completed: [],
  cancelled: [],
};

/** What a status selector offers: the current status, then where it may go. */
export function bookingStatusChoices(current: BookingStatus): BookingStatus[] {
  return [current, ...(nextBookingStatuses[current] ?? [])];
}

/** An unknown status displays as pending. */
export function bookingStatusLabel(status: string | null | undefined): string {
  return bookingStatusLabels[(status ?? '') as BookingStatus] ?? bookingStatusLabels.pending;
}

export const bookingStatusTone: Record<BookingStatus, string> = {
  pending: 'bg-amber-100 text-amber-900',
  confirmed: 'bg-blue-100 text-blue-900',
  active: 'bg-green-100 text-green-900',
  completed: 'bg-slate-200 text-slate-800',
  cancelled: 'bg-red-100 text-red-900',
};

export const rentalStatusLabels: Record<RentalStatus, string> = {
  available: 'Disponible',
  rented: 'Loué',
  maintenance: 'Maintenance',
  retired: 'Retiré',
};
export const rentalStatuses = Object.keys(rentalStatusLabels) as RentalStatus[];

export const kindLabels: Record<BookingKind, string> = {
  vehicle: 'Location de véhicule',
  airport: 'Service aéroport',
  diagnostic: 'Diagnostic',
  premium: 'Service premium',
};

export const diagnosticLabels: Record<string, string> = {
  mechanical: 'Diagnostic Mécanique',
  electronic: 'Diagnostic Électronique',
  climate: 'Diagnostic Climatisation',
  reset: 'Service de réinitialisation',
  programming: 'Programmation Mémoire',
  key_programming: 'Programmation des clés de luxe',
};

export const premiumLabels: Record<string, string> = {
  private_driver: 'Service Chauffeur Privé',
  vip_concierge: 'Conciergerie VIP',
  business_pack: 'Pack Business',
};

export const airportLabels: Record<string, string> = {
  vip: 'Service VIP',
  standard: 'Service Standard',
  baggage: 'Navette aéroport',
};

const vehicleCategoryLabels: Record<string, string> = {
  economic: 'Économique',
  luxury: 'Luxe',
  suv: 'SUV',
  utility: 'Utilitaire',
};

/** Category label; others shown as is, a missing one as 'Inconnue'. */
export function categoryLabel(category: string | null | undefined): string {
  if (!category) return 'Inconnue';
  return vehicleCategoryLabels[category] ?? category;
}

export const roleLabels = { user: 'Utilisateur', admin: 'Administrateur' } as const;

export const cancellationLabels: Record<string, string> = {
  free_24h: 'Annulation gratuite 24h avant',
  free_48h: 'Annulation gratuite 48h avant',
  free_7d: 'Annulation gratuite 7 jours avant',
  no_refund: 'Aucun remboursement',
};

export const backupLabels: Record<string, string> = {
  hourly: 'Toutes les heures',
  daily: 'Quotidienne',
  weekly: 'Hebdomadaire',
  monthly: 'Mensuelle',
};

/** What the reservation dialog recorded about payment (no payment is taken online; card data is never stored). */
export function paymentText(r: Record<string, unknown>): string {
  const method = r.payment_method as BookingPaymentMethod | null | undefined;
  if (!method) return '';
  const label = paymentMethodLabels[method] ?? method;
  if (method === 'bank' && r.payment_reference) return `${label}, référence ${String(r.payment_reference)}`;
  if (method === 'mobile') {
    const provider = r.mobile_money_provider ? mobileProviderLabels[r.mobile_money_provider as MobileMoneyProvider] : '';
    return [label, provider, r.mobile_money_phone ? String(r.mobile_money_phone) : ''].filter(Boolean).join(', ');
  }
  return label;
}

/** The subjects of the contact and support forms, as the inbox shows them. */
export const messageSubjectLabels: Record<string, string> = {
  reservation: 'Réservation',
  information: 'Information',
  support: 'Assistance',
  other: 'Autre',
};
