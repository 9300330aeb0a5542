import type { BookingPaymentMethod, MobileMoneyProvider, VehicleCategory } from '@/types/database';

export const categoryLabels: Record<VehicleCategory, string> = {
  economic: 'Économique',
  luxury: 'Luxe',
  suv: 'SUV',
  utility: 'Utilitaire',
};

export function isCategory(value: string | null | undefined): value is VehicleCategory {
  return value === 'economic' || value === 'luxury' || value === 'suv' || value === 'utility';
}

/** How a customer chose to pay a rental (no payment is taken online). */
export const paymentMethodLabels: Record<BookingPaymentMethod, string> = {
  card: 'Carte bancaire',
  mobile: 'Mobile money',
  bank: 'Virement bancaire',
  digital_wallet: 'Portefeuille numérique',
};

export const mobileProviderLabels: Record<MobileMoneyProvider, string> = {
  mpesa: 'M-Pesa (Vodacom)',
  orange: 'Orange Money',
  airtel: 'Airtel Money',
};
