/** The four settings groups (back-office.md sections 3 and 5), checked again by the database (V40). */
import { z } from 'zod';
import { decimalsMessage, EMAIL_PATTERN, hasAtMostDecimals } from '@/lib/validation';

const email = (message: string) => z.string().trim().regex(EMAIL_PATTERN, message);
const days = (label: string) => z.coerce.number({ error: `${label} : un nombre est requis` }).int(`${label} : un nombre entier de jours`).min(1, `${label} : au moins 1 jour`);
/** A percentage 0 to 100 by steps of 0.1 (section 5). */
const percent = (label: string) =>
  z.coerce
    .number({ error: `${label} : un nombre est requis` })
    .min(0, `${label} : entre 0 et 100`)
    .max(100, `${label} : entre 0 et 100`)
    .refine((v) => hasAtMostDecimals(v, 1), `${label} : ${decimalsMessage(1)}`);
const between = (label: string, lo: number, hi: number) =>
  z.coerce.number({ error: `${label} : un nombre est requis` }).int(`${label} : un nombre entier`).min(lo, `${label} : entre ${lo} et ${hi}`).max(hi, `${label} : entre ${lo} et ${hi}`);

export const generalSchema = z.object({
  companyName: z.string().trim().min(1, "Le nom de l'entreprise est requis"),
  companyEmail: email("Email de l'entreprise invalide"),
  companyPhone: z.string().trim(),
  currency: z.enum(['EUR', 'USD', 'CDF']),
  timezone: z.enum(['Europe/Paris', 'Africa/Kinshasa', 'America/New_York']),
  /** the site exists in French only: a stored « en » (offered once) reads and saves as « fr ». */
  language: z.literal('fr').catch('fr'),
  companyAddress: z.string().trim(),
  /** units of each currency per dollar: the site shows prices in `currency` at its rate (V64). */
  exchangeRates: z.object({
    USD: z.literal(1),
    CDF: z.coerce.number({ error: 'Taux du franc : un nombre est requis' }).positive('Taux du franc : un nombre positif'),
    EUR: z.coerce.number({ error: "Taux de l'euro : un nombre est requis" }).positive("Taux de l'euro : un nombre positif"),
  }),
});

export const businessSchema = z
  .object({
    defaultRentalDuration: days('Durée par défaut'),
    minimumRentalDuration: days('Durée minimum'),
    maximumRentalDuration: days('Durée maximum'),
    advanceBookingDays: days('Réservation à l’avance'),
    cancellationPolicy: z.enum(['free_24h', 'free_48h', 'free_7d', 'no_refund']),
    lateFeePercentage: percent('Frais de retard'),
    securityDepositPercentage: percent('Caution'),
  })
  // the database refuses incoherent durations (V34/V40); say so before it does.
  .refine((b) => b.maximumRentalDuration >= b.minimumRentalDuration, { path: ['maximumRentalDuration'], message: 'La durée maximum doit être au moins la durée minimum' })
  .refine((b) => b.defaultRentalDuration >= b.minimumRentalDuration && b.defaultRentalDuration <= b.maximumRentalDuration, {
    path: ['defaultRentalDuration'],
    message: 'La durée par défaut doit être comprise entre le minimum et le maximum',
  });

export const notificationsSchema = z.object({
  adminEmailAddress: email('Email administrateur invalide'),
  emailNotifications: z.boolean(),
  smsNotifications: z.boolean(),
  bookingConfirmations: z.boolean(),
  paymentReminders: z.boolean(),
  maintenanceAlerts: z.boolean(),
  lowStockAlerts: z.boolean(),
});

export const systemSchema = z.object({
  sessionTimeout: between('Délai de session', 5, 1440),
  maxLoginAttempts: between('Tentatives de connexion', 3, 10),
  backupFrequency: z.enum(['hourly', 'daily', 'weekly', 'monthly']),
  dataRetentionDays: between('Rétention des données', 30, 3650),
  maintenanceMode: z.boolean(),
  allowRegistrations: z.boolean(),
  requireEmailVerification: z.boolean(),
});

export const settingsSchema = z.object({
  general: generalSchema,
  business: businessSchema,
  notifications: notificationsSchema,
  system: systemSchema,
});

export type Settings = z.infer<typeof settingsSchema>;
export type SettingsSection = keyof Settings;
export const settingsSections: SettingsSection[] = ['general', 'business', 'notifications', 'system'];

/** Defaults of back-office.md section 3 (the database seeds the same, V34). */
export const defaultSettings: Settings = {
  general: {
    companyName: 'Kinshasa Prestige Auto',
    companyEmail: 'contact@example.cd',
    companyPhone: '',
    currency: 'USD',
    timezone: 'Africa/Kinshasa',
    language: 'fr',
    companyAddress: '',
    exchangeRates: { USD: 1, CDF: 2850, EUR: 0.92 },
  },
  business: {
    defaultRentalDuration: 1,
    minimumRentalDuration: 1,
    maximumRentalDuration: 30,
    advanceBookingDays: 90,
    cancellationPolicy: 'free_24h',
    lateFeePercentage: 10,
    securityDepositPercentage: 20,
  },
  notifications: {
    adminEmailAddress: 'admin@example.cd',
    emailNotifications: true,
    smsNotifications: false,
    bookingConfirmations: true,
    paymentReminders: true,
    maintenanceAlerts: true,
    lowStockAlerts: false,
  },
  system: {
    sessionTimeout: 30,
    maxLoginAttempts: 5,
    backupFrequency: 'daily',
    dataRetentionDays: 365,
    maintenanceMode: false,
    allowRegistrations: true,
    requireEmailVerification: true,
  },
};

/** An imported file: every group present replaces the form's; unknown keys are dropped. */
export function parseSettingsFile(text: string, current: Settings): Settings {
  const json: unknown = JSON.parse(text);
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new Error('invalid');
  const input = json as Record<string, unknown>;
  const merged = { ...current } as Record<string, unknown>;
  let any = false;
  for (const s of settingsSections) {
    if (s in input) {
      merged[s] = input[s];
      any = true;
    }
  }
  if (!any) throw new Error('invalid');
  return settingsSchema.parse(merged);
}
