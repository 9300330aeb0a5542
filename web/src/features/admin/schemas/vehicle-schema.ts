/** The six-step vehicle wizard (back-office.md sections 2, 3 and 5): defaults, field rules, step validity, payload. */
import { z } from 'zod';
import { decimalsMessage, hasAtMostDecimals } from '@/lib/validation';
import type { FuelType, RentalStatus, Transmission, VehicleCategory } from '@/types/database';
import type { AdminVehicle, SeasonalRate, VehicleImage } from '../types';

export const WIZARD_STEPS = ['Informations de base', 'Spécifications', 'Tarification', 'Caractéristiques', 'Photos', 'Révision'] as const;
export const ENGINE_TYPES = ['', '4 cylindres', '6 cylindres', 'V8', 'Électrique', 'Hybride'] as const;
export const FUEL_TYPES: FuelType[] = ['Essence', 'Diesel', 'Hybride', 'Électrique', 'GPL'];
export const TRANSMISSIONS: Transmission[] = ['Manuelle', 'Automatique', 'CVT'];
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const PHOTO_REQUIRED_MESSAGE = 'Au moins une photo est requise';

export interface VehicleForm {
  name: string;
  make: string;
  model: string;
  year: number;
  category: VehicleCategory;
  color: string;
  license_plate: string;
  vin: string;
  description: string;
  engine_type: string;
  fuel_type: FuelType | '';
  transmission: Transmission | '';
  seats: number;
  doors: number;
  mileage: number;
  safety_features: string[];
  comfort_features: string[];
  daily_rate: number;
  weekly_discount: number;
  monthly_discount: number;
  security_deposit: number;
  seasonal_rates: SeasonalRate[];
  features: string[];
  rental_status: RentalStatus;
  current_location: string;
  home_location: string;
  insurance_policy: string;
  registration_expiry: string;
  last_service_date: string;
  next_service_due: string;
  images: VehicleImage[];
}

export function emptyVehicleForm(now: Date = new Date()): VehicleForm {
  return {
    name: '', make: '', model: '', year: now.getFullYear(), category: 'economic', color: '', license_plate: '', vin: '', description: '',
    engine_type: '', fuel_type: 'Essence', transmission: 'Manuelle', seats: 5, doors: 4, mileage: 0, safety_features: [], comfort_features: [],
    daily_rate: 0, weekly_discount: 10, monthly_discount: 20, security_deposit: 500, seasonal_rates: [],
    features: [], rental_status: 'available', current_location: '', home_location: '', insurance_policy: '',
    registration_expiry: '', last_service_date: '', next_service_due: '', images: [],
  };
}

const n = (v: unknown, fallback: number) => {
  const x = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(x) ? x : fallback;
};

/** A saved seasonal rate as the wizard edits it: rates saved before the description existed get an empty one. */
function seasonalRateToForm(r: Partial<SeasonalRate>): SeasonalRate {
  return {
    id: r.id ?? crypto.randomUUID(),
    name: r.name ?? '',
    start_date: r.start_date ?? '',
    end_date: r.end_date ?? '',
    rate_multiplier: n(r.rate_multiplier, 1),
    description: r.description ?? '',
  };
}

/** A new, empty seasonal rate (multiplier 1). */
export function emptySeasonalRate(): SeasonalRate {
  return seasonalRateToForm({});
}

/** A saved vehicle as the wizard edits it. */
export function vehicleToForm(v: AdminVehicle): VehicleForm {
  const base = emptyVehicleForm();
  const s = v.specifications ?? {};
  const p = v.pricing ?? {};
  return {
    ...base,
    name: v.name, make: v.make, model: v.model, year: v.year, category: v.category,
    color: v.color ?? '', license_plate: v.license_plate ?? '', vin: v.vin ?? '', description: v.description ?? '',
    engine_type: s.engine_type ?? '', fuel_type: s.fuel_type ?? 'Essence', transmission: s.transmission ?? 'Manuelle',
    seats: n(s.seats, 5), doors: n(s.doors, 4), mileage: n(s.mileage, 0),
    safety_features: s.safety_features ?? [], comfort_features: s.comfort_features ?? [],
    daily_rate: n(p.daily_rate ?? v.daily_rate, 0), weekly_discount: n(p.weekly_discount, 10), monthly_discount: n(p.monthly_discount, 20),
    security_deposit: n(p.security_deposit, 500), seasonal_rates: (p.seasonal_rates ?? []).map(seasonalRateToForm),
    features: v.features ?? [], rental_status: v.rental_status,
    current_location: v.current_location ?? '', home_location: v.home_location ?? '', insurance_policy: v.insurance_policy ?? '',
    registration_expiry: v.registration_expiry ?? '', last_service_date: v.last_service_date ?? '', next_service_due: v.next_service_due ?? '',
    images: Array.isArray(v.images) ? v.images : [],
  };
}

const required = (label: string) => z.string().trim().min(1, `${label} est requis`);
const num = (label: string) => z.number({ error: `${label} : un nombre est requis` }).refine(Number.isFinite, `${label} : un nombre est requis`);
/** The `step` of an input (0.1 → 1 decimal, 0.01 → 2), checked: the browser only hints at it. */
const decimals = (label: string, places: 1 | 2) => [(v: number) => hasAtMostDecimals(v, places), `${label} : ${decimalsMessage(places)}`] as const;

/** Field rules of the form (section 5). */
export function vehicleSchema(now: Date = new Date()) {
  const maxYear = now.getFullYear() + 1;
  return z.object({
    name: required('Le nom'),
    make: required('La marque'),
    model: required('Le modèle'),
    year: num('Année').int('Année invalide').min(1990, `Année entre 1990 et ${maxYear}`).max(maxYear, `Année entre 1990 et ${maxYear}`),
    category: z.enum(['economic', 'luxury', 'suv', 'utility'], { error: 'La catégorie est requise' }),
    vin: z.string().trim().max(17, 'Le VIN fait au plus 17 caractères'),
    daily_rate: num('Tarif journalier').min(0, 'Le tarif journalier doit être positif').refine(...decimals('Tarif journalier', 2)),
    fuel_type: z.enum(['Essence', 'Diesel', 'Hybride', 'Électrique', 'GPL'], { error: 'Le carburant est requis' }),
    transmission: z.enum(['Manuelle', 'Automatique', 'CVT'], { error: 'La transmission est requise' }),
    seats: num('Places').int('Places : un nombre entier').min(1, 'Places entre 1 et 50').max(50, 'Places entre 1 et 50'),
    doors: num('Portes').int('Portes : un nombre entier').min(2, 'Portes entre 2 et 10').max(10, 'Portes entre 2 et 10'),
    mileage: num('Kilométrage').min(0, 'Le kilométrage doit être positif'),
    weekly_discount: num('Remise hebdomadaire').min(0, 'Remise entre 0 et 50 %').max(50, 'Remise entre 0 et 50 %').refine(...decimals('Remise hebdomadaire', 1)),
    monthly_discount: num('Remise mensuelle').min(0, 'Remise entre 0 et 50 %').max(50, 'Remise entre 0 et 50 %').refine(...decimals('Remise mensuelle', 1)),
    security_deposit: num('Caution').min(0, 'La caution doit être positive').refine(...decimals('Caution', 2)),
    seasonal_rates: z.array(
      z.object({ rate_multiplier: num('Multiplicateur').min(0.1, 'Multiplicateur entre 0,1 et 5').max(5, 'Multiplicateur entre 0,1 et 5').refine(...decimals('Multiplicateur', 1)) }).loose(),
    ),
    images: z.array(z.unknown()).min(1, PHOTO_REQUIRED_MESSAGE),
  }).loose();
}

/**
 * The fields each wizard step edits, checked (the form's `trigger`) before « Suivant » goes on: a
 * year of 1985 or a 60 % discount stop the step they are typed in, not the last one.
 */
export const STEP_FIELDS: readonly (readonly (keyof VehicleForm)[])[] = [
  ['name', 'make', 'model', 'year', 'category', 'vin', 'daily_rate'],
  ['fuel_type', 'transmission', 'seats', 'doors', 'mileage'],
  ['daily_rate', 'weekly_discount', 'monthly_discount', 'security_deposit', 'seasonal_rates'],
  [],
  ['images'],
  [],
];

/** Whether wizard step `step` (0–5) lets 'Suivant' go on (section 5). */
export function stepValid(step: number, f: VehicleForm): boolean {
  switch (step) {
    case 0:
      return !!f.name.trim() && !!f.make.trim() && !!f.model.trim() && f.daily_rate > 0;
    case 1:
      return !!f.fuel_type && !!f.transmission && f.seats > 0;
    case 2:
      return f.daily_rate > 0;
    case 3:
      return true;
    case 4:
      return f.images.length > 0;
    default:
      return true;
  }
}

const orNull = (v: string) => (v.trim() === '' ? null : v.trim());

/** The row written to `vehicles`: empty text null, blank features dropped, plate and VIN upper-cased, price = daily rate. */
export function toVehiclePayload(f: VehicleForm) {
  const primary = f.images.find((i) => i.is_primary) ?? f.images[0];
  const clean = (list: string[]) => list.map((x) => x.trim()).filter(Boolean);
  return {
    name: f.name.trim(),
    make: f.make.trim(),
    model: f.model.trim(),
    year: f.year,
    category: f.category,
    color: orNull(f.color),
    license_plate: orNull(f.license_plate)?.toUpperCase() ?? null,
    vin: orNull(f.vin)?.toUpperCase() ?? null,
    description: orNull(f.description),
    price: f.daily_rate,
    daily_rate: f.daily_rate,
    rental_status: f.rental_status,
    features: clean(f.features),
    location: orNull(f.current_location),
    current_location: orNull(f.current_location),
    home_location: orNull(f.home_location),
    insurance_policy: orNull(f.insurance_policy),
    registration_expiry: orNull(f.registration_expiry),
    last_service_date: orNull(f.last_service_date),
    next_service_due: orNull(f.next_service_due),
    specifications: {
      ...(f.engine_type ? { engine_type: f.engine_type } : {}),
      fuel_type: f.fuel_type || 'Essence',
      transmission: f.transmission || 'Manuelle',
      seats: f.seats,
      doors: f.doors,
      mileage: f.mileage,
      safety_features: clean(f.safety_features),
      comfort_features: clean(f.comfort_features),
    },
    pricing: {
      daily_rate: f.daily_rate,
      weekly_discount: f.weekly_discount,
      monthly_discount: f.monthly_discount,
      security_deposit: f.security_deposit,
      seasonal_rates: f.seasonal_rates.map((r) => ({ ...r, name: r.name.trim(), description: r.description.trim() })),
    },
    images: f.images.map((img, i) => ({ ...img, is_primary: img === primary, order: i })),
    primary_image: primary?.url ?? null,
  };
}

export type VehiclePayload = ReturnType<typeof toVehiclePayload>;

/**
 * The payload split between `vehicles` (the public fleet) and `vehicle_records` (V47: the VIN,
 * insurance and service dates, which only administrators read).
 */
export function splitVehiclePayload(p: VehiclePayload) {
  const { vin, insurance_policy, registration_expiry, last_service_date, next_service_due, ...vehicle } = p;
  return { vehicle, record: { vin, insurance_policy, registration_expiry, last_service_date, next_service_due } };
}

/** Why an upload is refused (section 5), or null. */
export function imageProblem(file: { name: string; type: string; size: number }): string | null {
  if (!file.type.startsWith('image/')) return `${file.name} n'est pas une image valide`;
  if (file.size > MAX_IMAGE_BYTES) return `${file.name} est trop volumineux (10 Mo maximum)`;
  return null;
}

/** Mark one image primary; the others not. */
export function setPrimary(images: VehicleImage[], id: string): VehicleImage[] {
  return images.map((i) => ({ ...i, is_primary: i.id === id }));
}

/** Remove an image; if the primary went, the first remaining one becomes primary. */
export function removeImage(images: VehicleImage[], id: string): VehicleImage[] {
  const rest = images.filter((i) => i.id !== id).map((i, order) => ({ ...i, order }));
  if (rest.length > 0 && !rest.some((i) => i.is_primary)) rest[0] = { ...rest[0]!, is_primary: true };
  return rest;
}

/** Append uploaded images; the first image of an empty set becomes primary. */
export function addImages(images: VehicleImage[], added: Omit<VehicleImage, 'is_primary' | 'order'>[]): VehicleImage[] {
  const out = [...images];
  for (const a of added) out.push({ ...a, is_primary: out.length === 0, order: out.length });
  return out;
}
