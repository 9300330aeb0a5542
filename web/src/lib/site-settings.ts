import { useQuery } from '@tanstack/react-query';
import { site } from '@/config/site';
import { supabase } from './supabase';
import { toAppError } from './errors';

/**
 * The back office's settings the public site obeys (rpc/site_settings): the company's name and
 * contact details, the display currency and its rate, maintenance mode, whether sign-ups are
 * open, and the booking rules. The database enforces each of them; the site shows them.
 */
export interface SiteSettings {
  companyName: string;
  companyEmail: string;
  companyPhone: string;
  companyAddress: string;
  currency: Currency;
  /** units of `currency` per dollar (amounts are stored in dollars). */
  exchangeRate: number;
  maintenanceMode: boolean;
  allowRegistrations: boolean;
  minimumRentalDuration: number;
  maximumRentalDuration: number;
  advanceBookingDays: number;
}

export type Currency = 'USD' | 'CDF' | 'EUR';

/** What the site shows before the settings arrive (and what the build-time render shows). */
export const defaultSiteSettings: SiteSettings = {
  companyName: site.name,
  companyEmail: site.email,
  companyPhone: site.phone,
  companyAddress: site.address,
  currency: 'USD',
  exchangeRate: 1,
  maintenanceMode: false,
  allowRegistrations: true,
  minimumRentalDuration: 1,
  maximumRentalDuration: 30,
  advanceBookingDays: 90,
};

/** The settings as the database sends them, with the defaults for anything missing or malformed. */
export function parseSiteSettings(raw: unknown): SiteSettings {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const text = (k: keyof SiteSettings) => (typeof r[k] === 'string' && (r[k] as string).trim() ? (r[k] as string) : (defaultSiteSettings[k] as string));
  const num = (k: keyof SiteSettings) => (typeof r[k] === 'number' && Number.isFinite(r[k]) && (r[k] as number) > 0 ? (r[k] as number) : (defaultSiteSettings[k] as number));
  const bool = (k: keyof SiteSettings) => (typeof r[k] === 'boolean' ? (r[k] as boolean) : (defaultSiteSettings[k] as boolean));
  const currency = r.currency === 'CDF' || r.currency === 'EUR' || r.currency === 'USD' ? r.currency : 'USD';
  return {
    companyName: text('companyName'),
    companyEmail: text('companyEmail'),
    companyPhone: text('companyPhone'),
    companyAddress: text('companyAddress'),
    currency,
    exchangeRate: currency === 'USD' ? 1 : num('exchangeRate'),
    maintenanceMode: bool('maintenanceMode'),
    allowRegistrations: bool('allowRegistrations'),
    minimumRentalDuration: num('minimumRentalDuration'),
    maximumRentalDuration: num('maximumRentalDuration'),
    advanceBookingDays: num('advanceBookingDays'),
  };
}

export async function fetchSiteSettings(): Promise<SiteSettings> {
  const { data, error } = await supabase().rpc('site_settings');
  if (error) throw toAppError(error);
  return parseSiteSettings(data);
}

export const siteSettingsKeys = { all: ['site-settings'] as const };

const useSiteSettingsQuery = () => useQuery({ queryKey: siteSettingsKeys.all, queryFn: fetchSiteSettings, staleTime: 60_000 });

/** The settings, refreshed every minute and when the back office saves them. */
export function useSiteSettings(): SiteSettings {
  return useSiteSettingsQuery().data ?? defaultSiteSettings;
}

/**
 * The company's contact details as the site shows them: the back office's settings. `known` is
 * false until they arrive (the build-time render and the first paint have only built-in ones,
 * which the pages keep hidden rather than show a number that may not be the company's).
 */
export function useCompany() {
  const query = useSiteSettingsQuery();
  const s = query.data ?? defaultSiteSettings;
  return {
    known: query.isSuccess || query.isError,
    name: s.companyName,
    email: s.companyEmail,
    phone: s.companyPhone,
    phoneHref: `tel:${s.companyPhone.replace(/[^+\d]/g, '')}`,
    address: s.companyAddress,
  };
}

/** The WhatsApp chat link of a phone number (wa.me takes the digits of the international number). */
export function whatsappUrl(phone: string, text?: string): string {
  const digits = phone.replace(/\D/g, '');
  return `https://wa.me/${digits}${text ? `?text=${encodeURIComponent(text)}` : ''}`;
}
