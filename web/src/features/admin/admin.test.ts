import { describe, expect, it } from 'vitest';
import { fieldErrors } from '@/lib/validation';
import { defaultSettings, parseSettingsFile, settingsSchema } from './schemas/settings-schema';
import { airportBookingEditSchema, premiumBookingEditSchema, vehicleBookingEditSchema } from './schemas/booking-edit-schema';
import { USER_REQUIRED_MESSAGE, userSchema } from './schemas/user-schema';
import { REPLY_TOO_SHORT, replySchema } from './schemas/reply-schema';
import { addImages, emptySeasonalRate, emptyVehicleForm, imageProblem, vehicleToForm, MAX_IMAGE_BYTES, PHOTO_REQUIRED_MESSAGE, removeImage, setPrimary, splitVehiclePayload, stepValid, toVehiclePayload, vehicleSchema } from './schemas/vehicle-schema';
import { averageBasket, barHeight, daysSince, formatGrowth, growthPercent, monthComparison, pricePreview, rentalDayCount, retentionRate, revenueComparison, sinceLabel, utilisation } from './lib/stats';
import { paymentText, bookingStatusLabel, categoryLabel, diagnosticLabels, premiumLabels, airportLabels, rentalStatusLabels, kindLabels } from './lib/labels';
import { bookingTiles, filterBookings, emptyBookingFilters, filterUsers, filterVehicles } from './lib/filters';
import { uploadErrorMessage } from './api/vehicles';
import type { AdminBooking, AdminUser, AdminVehicle } from './types';

const withSystem = (patch: Record<string, unknown>) => ({ ...defaultSettings, system: { ...defaultSettings.system, ...patch } });
const withBusiness = (patch: Record<string, unknown>) => ({ ...defaultSettings, business: { ...defaultSettings.business, ...patch } });
const issuePaths = (v: unknown) => {
  const r = settingsSchema.safeParse(v);
  return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
};

describe('settings ranges', () => {
  it('accepts the defaults', () => {
    expect(settingsSchema.safeParse(defaultSettings).success).toBe(true);
  });
  it('session timeout 5 to 1440 minutes', () => {
    expect(issuePaths(withSystem({ sessionTimeout: 4 }))).toEqual(['system.sessionTimeout']);
    expect(issuePaths(withSystem({ sessionTimeout: 1441 }))).toEqual(['system.sessionTimeout']);
    expect(issuePaths(withSystem({ sessionTimeout: 5 }))).toEqual([]);
    expect(issuePaths(withSystem({ sessionTimeout: 1440 }))).toEqual([]);
  });
  it('max login attempts 3 to 10, retention 30 to 3650', () => {
    expect(issuePaths(withSystem({ maxLoginAttempts: 2 }))).toEqual(['system.maxLoginAttempts']);
    expect(issuePaths(withSystem({ maxLoginAttempts: 11 }))).toEqual(['system.maxLoginAttempts']);
    expect(issuePaths(withSystem({ dataRetentionDays: 29 }))).toEqual(['system.dataRetentionDays']);
    expect(issuePaths(withSystem({ dataRetentionDays: 3651 }))).toEqual(['system.dataRetentionDays']);
  });
  it('durations at least 1 day, percentages 0 to 100 with decimals', () => {
    expect(issuePaths(withBusiness({ advanceBookingDays: 0 }))).toEqual(['business.advanceBookingDays']);
    expect(issuePaths(withBusiness({ minimumRentalDuration: 0 }))).toContain('business.minimumRentalDuration');
    expect(issuePaths(withBusiness({ lateFeePercentage: 100.1 }))).toEqual(['business.lateFeePercentage']);
    expect(issuePaths(withBusiness({ securityDepositPercentage: -0.1 }))).toEqual(['business.securityDepositPercentage']);
    expect(issuePaths(withBusiness({ lateFeePercentage: 12.5 }))).toEqual([]);
  });
  it('percentages by steps of 0.1, floating-point safe', () => {
    const message = (v: unknown) => {
      const r = settingsSchema.safeParse(v);
      return r.success ? null : r.error.issues[0]?.message;
    };
    expect(message(withBusiness({ lateFeePercentage: 12.35 }))).toBe('Frais de retard : au plus une décimale');
    expect(message(withBusiness({ securityDepositPercentage: 20.01 }))).toBe('Caution : au plus une décimale');
    expect(issuePaths(withBusiness({ lateFeePercentage: 0.1 + 0.2, securityDepositPercentage: 99.9 }))).toEqual([]);
    expect(issuePaths(withBusiness({ lateFeePercentage: '7.3' }))).toEqual([]); // an imported file may hold text
  });
  it('an empty number field is an error, not 0', () => {
    expect(issuePaths(withSystem({ sessionTimeout: Number.NaN }))).toEqual(['system.sessionTimeout']);
  });
  it('min ≤ default ≤ max, as the database checks', () => {
    expect(issuePaths(withBusiness({ minimumRentalDuration: 5, maximumRentalDuration: 3, defaultRentalDuration: 4 }))).toContain('business.maximumRentalDuration');
  });
  it('imports a JSON file group by group and refuses anything else', () => {
    const imported = parseSettingsFile(JSON.stringify({ system: { ...defaultSettings.system, sessionTimeout: 60 } }), defaultSettings);
    expect(imported.system.sessionTimeout).toBe(60);
    expect(imported.general).toEqual(defaultSettings.general);
    expect(() => parseSettingsFile('not json', defaultSettings)).toThrow();
    expect(() => parseSettingsFile('{"other": 1}', defaultSettings)).toThrow();
    expect(() => parseSettingsFile(JSON.stringify({ system: { ...defaultSettings.system, maxLoginAttempts: 50 } }), defaultSettings)).toThrow();
  });
});

describe('booking edit', () => {
  it('passengers at least 1, non-numeric becoming the default 1', () => {
    const base = { booking_status: 'confirmed', service_type: 'vip', flight_type: 'arrival', flight_date: '2026-12-01', flight_time: '10:00', flight_number: 'et863', special_requests: '' };
    expect(airportBookingEditSchema.parse({ ...base, passengers: 'abc' }).passengers).toBe(1);
    expect(airportBookingEditSchema.parse({ ...base, passengers: '3' }).passengers).toBe(3);
    expect(airportBookingEditSchema.safeParse({ ...base, passengers: '0' }).success).toBe(false);
    const ok = airportBookingEditSchema.parse({ ...base, passengers: '2' });
    expect(ok.flight_number).toBe('ET863');
    expect(ok.special_requests).toBeNull();
  });
  it('premium duration at least 1 (default 1), among the offered durations', () => {
    const base = { booking_status: 'pending', service_type: 'private_driver', start_date: '2026-12-01', customer_name: 'Jean', customer_email: 'J@Ex.cd', customer_phone: '+243810000000', special_requirements: '' };
    expect(premiumBookingEditSchema.parse({ ...base, duration_days: '' }).duration_days).toBe(1);
    expect(premiumBookingEditSchema.parse({ ...base, duration_days: '7' }).customer_email).toBe('j@ex.cd');
    expect(premiumBookingEditSchema.safeParse({ ...base, duration_days: '5' }).success).toBe(false);
  });
  it('a rental ends on or after its start; any status is allowed', () => {
    const base = { booking_status: 'cancelled', pickup_location: ' Gombe ', dropoff_location: '', special_requests: '' };
    expect(vehicleBookingEditSchema.safeParse({ ...base, start_date: '2026-12-05', end_date: '2026-12-04' }).success).toBe(false);
    const r = vehicleBookingEditSchema.parse({ ...base, start_date: '2026-12-05', end_date: '2026-12-05' });
    expect(r).toMatchObject({ pickup_location: 'Gombe', dropoff_location: null, booking_status: 'cancelled' });
    expect(vehicleBookingEditSchema.safeParse({ ...base, booking_status: 'unknown', start_date: '2026-12-05', end_date: '2026-12-06' }).success).toBe(false);
  });
});

describe('message reply', () => {
  it('asks two characters besides spaces and sends the reply as typed', () => {
    const r = replySchema.safeParse({ body: ' a \n' });
    expect(r.success ? {} : fieldErrors(r.error)).toEqual({ body: REPLY_TOO_SHORT });
    expect(replySchema.parse({ body: 'Bonjour,\n  oui.\n' })).toEqual({ body: 'Bonjour,\n  oui.\n' });
  });
});

describe('user dialog', () => {
  it('needs a name and an e-mail', () => {
    const r = userSchema.safeParse({ full_name: ' ', email: '', phone: '', role: 'user' });
    expect(r.success).toBe(false);
    if (!r.success) expect(Object.values(fieldErrors(r.error))).toEqual([USER_REQUIRED_MESSAGE, USER_REQUIRED_MESSAGE]);
  });
  it('trims, nulls an empty phone, knows two roles', () => {
    expect(userSchema.parse({ full_name: ' Awa ', email: 'a@b.cd', phone: ' ', role: 'admin' })).toEqual({ full_name: 'Awa', email: 'a@b.cd', phone: null, role: 'admin' });
    expect(userSchema.safeParse({ full_name: 'A', email: 'a@b.cd', phone: '', role: 'root' }).success).toBe(false);
  });
});

describe('vehicle wizard', () => {
  const now = new Date('2026-06-01T12:00:00Z');
  const filled = () => ({ ...emptyVehicleForm(now), name: 'Toyota Hilux', make: 'Toyota', model: 'Hilux', daily_rate: 80 });
  it('starts with the defaults of the spec', () => {
    expect(emptyVehicleForm(now)).toMatchObject({ year: 2026, category: 'economic', fuel_type: 'Essence', transmission: 'Manuelle', seats: 5, doors: 4, mileage: 0, daily_rate: 0, weekly_discount: 10, monthly_discount: 20, security_deposit: 500, rental_status: 'available' });
  });
  it('step validity', () => {
    const f = emptyVehicleForm(now);
    expect(stepValid(0, f)).toBe(false);
    expect(stepValid(0, { ...f, name: 'X', make: 'Y', model: 'Z' })).toBe(false); // daily rate 0
    expect(stepValid(0, filled())).toBe(true);
    expect(stepValid(1, { ...filled(), seats: 0 })).toBe(false);
    expect(stepValid(1, { ...filled(), fuel_type: '' })).toBe(false);
    expect(stepValid(1, filled())).toBe(true);
    expect(stepValid(2, f)).toBe(false);
    expect(stepValid(3, f)).toBe(true);
    expect(stepValid(4, filled())).toBe(false);
    expect(stepValid(4, { ...filled(), images: [{ id: 'a', url: 'u', title: 't', is_primary: true, order: 0 }] })).toBe(true);
    expect(stepValid(5, f)).toBe(true);
  });
  it('field rules', () => {
    const schema = vehicleSchema(now);
    const img = [{ id: 'a', url: 'u', title: 't', is_primary: true, order: 0 }];
    const errs = (patch: Record<string, unknown>) => {
      const r = schema.safeParse({ ...filled(), images: img, ...patch });
      return r.success ? {} : fieldErrors<string>(r.error);
    };
    expect(errs({})).toEqual({});
    expect(Object.keys(errs({ year: 1989 }))).toEqual(['year']);
    expect(Object.keys(errs({ year: 2028 }))).toEqual(['year']);
    expect(errs({ year: 2027 })).toEqual({});
    expect(Object.keys(errs({ vin: 'X'.repeat(18) }))).toEqual(['vin']);
    expect(Object.keys(errs({ seats: 51 }))).toEqual(['seats']);
    expect(Object.keys(errs({ doors: 1 }))).toEqual(['doors']);
    expect(Object.keys(errs({ mileage: -1 }))).toEqual(['mileage']);
    expect(Object.keys(errs({ weekly_discount: 50.1 }))).toEqual(['weekly_discount']);
    expect(Object.keys(errs({ seasonal_rates: [{ rate_multiplier: 5.5 }] }))).toEqual(['seasonal_rates']);
    expect(errs({ images: [] }).images).toBe(PHOTO_REQUIRED_MESSAGE);
  });
  it('steps: daily rate and deposit 0.01, discounts and multiplier 0.1, floating-point safe', () => {
    const schema = vehicleSchema(now);
    const img = [{ id: 'a', url: 'u', title: 't', is_primary: true, order: 0 }];
    const errs = (patch: Record<string, unknown>) => {
      const r = schema.safeParse({ ...filled(), images: img, ...patch });
      return r.success ? {} : fieldErrors<string>(r.error);
    };
    expect(errs({ daily_rate: 80.005 })).toEqual({ daily_rate: 'Tarif journalier : au plus deux décimales' });
    expect(errs({ security_deposit: 500.001 })).toEqual({ security_deposit: 'Caution : au plus deux décimales' });
    expect(errs({ weekly_discount: 12.25 })).toEqual({ weekly_discount: 'Remise hebdomadaire : au plus une décimale' });
    expect(errs({ monthly_discount: 20.05 })).toEqual({ monthly_discount: 'Remise mensuelle : au plus une décimale' });
    expect(errs({ seasonal_rates: [{ rate_multiplier: 1.25 }] })).toEqual({ seasonal_rates: 'Multiplicateur : au plus une décimale' });
    // values a float cannot hold exactly are still the step's multiples
    expect(errs({ daily_rate: 0.1 + 0.2, weekly_discount: 0.1 * 3, monthly_discount: 49.9, security_deposit: 1234567.89, seasonal_rates: [{ rate_multiplier: 1.1 }] })).toEqual({});
    expect(errs({ daily_rate: 19.99, weekly_discount: 12.5 })).toEqual({});
  });
  it('the payload: upper-cased plate and VIN, empty text null, blank features dropped, price = daily rate', () => {
    const p = toVehiclePayload({ ...filled(), license_plate: ' kn-12 ', vin: 'abc', color: ' ', features: ['4x4', ' ', ''], images: [{ id: 'a', url: 'u1', title: 'a.png', is_primary: false, order: 0 }, { id: 'b', url: 'u2', title: 'b.png', is_primary: true, order: 1 }] });
    expect(p).toMatchObject({ license_plate: 'KN-12', vin: 'ABC', color: null, features: ['4x4'], price: 80, daily_rate: 80, primary_image: 'u2' });
    expect(p.pricing).toMatchObject({ daily_rate: 80, weekly_discount: 10, monthly_discount: 20, security_deposit: 500 });
    expect(p.specifications).toMatchObject({ fuel_type: 'Essence', transmission: 'Manuelle', seats: 5 });
  });
  it('the payload is split: the VIN, insurance and service dates go to the administrators\' vehicle_records', () => {
    const p = toVehiclePayload({ ...filled(), vin: 'abc', insurance_policy: ' AXA-1 ', next_service_due: '2027-01-15' });
    const { vehicle, record } = splitVehiclePayload(p);
    expect(record).toEqual({ vin: 'ABC', insurance_policy: 'AXA-1', registration_expiry: null, last_service_date: null, next_service_due: '2027-01-15' });
    for (const k of Object.keys(record)) expect(vehicle).not.toHaveProperty(k);
    expect(vehicle).toMatchObject({ name: p.name, daily_rate: 80, pricing: p.pricing });
  });
  it('seasonal rates keep their description, edited and saved', () => {
    expect(emptySeasonalRate()).toMatchObject({ name: '', start_date: '', end_date: '', rate_multiplier: 1, description: '' });
    const saved = {
      ...({ name: 'Hilux', make: 'Toyota', model: 'Hilux', year: 2024, category: 'utility', rental_status: 'available', daily_rate: '80.00', features: [], images: [], specifications: {} } as unknown as AdminVehicle),
      pricing: {
        seasonal_rates: [
          { id: 's1', name: 'Fêtes', start_date: '2026-12-15', end_date: '2027-01-05', rate_multiplier: 1.5, description: 'Fin d’année' },
          // a rate saved before the description existed
          { id: 's2', name: 'Été', start_date: '2026-07-01', end_date: '2026-08-31', rate_multiplier: 1.2 } as never,
        ],
      },
    };
    const form = vehicleToForm(saved);
    expect(form.seasonal_rates.map((r) => r.description)).toEqual(['Fin d’année', '']);
    const rates = toVehiclePayload({ ...form, seasonal_rates: [{ ...form.seasonal_rates[0]!, description: '  Haute saison  ' }] }).pricing.seasonal_rates;
    expect(rates).toEqual([{ id: 's1', name: 'Fêtes', start_date: '2026-12-15', end_date: '2027-01-05', rate_multiplier: 1.5, description: 'Haute saison' }]);
  });
  it('images: type and 10 MB checks, one primary, the first of an empty set primary', () => {
    expect(imageProblem({ name: 'a.pdf', type: 'application/pdf', size: 10 })).toBe("a.pdf n'est pas une image valide");
    expect(imageProblem({ name: 'b.jpg', type: 'image/jpeg', size: MAX_IMAGE_BYTES + 1 })).toBe('b.jpg est trop volumineux (10 Mo maximum)');
    expect(imageProblem({ name: 'c.jpg', type: 'image/jpeg', size: MAX_IMAGE_BYTES })).toBeNull();
    let imgs = addImages([], [{ id: 'a', url: 'ua', title: 'a' }, { id: 'b', url: 'ub', title: 'b' }]);
    expect(imgs.map((i) => i.is_primary)).toEqual([true, false]);
    imgs = setPrimary(imgs, 'b');
    expect(imgs.map((i) => i.is_primary)).toEqual([false, true]);
    imgs = removeImage(imgs, 'b');
    expect(imgs).toEqual([{ id: 'a', url: 'ua', title: 'a', is_primary: true, order: 0 }]);
  });
});

describe('upload errors', () => {
  it('say why: in French for a storage code we know, else the server message, else the file name alone', () => {
    expect(uploadErrorMessage('photo.png', { name: 'StorageApiError', status: 409, statusCode: '409', code: 'KeyAlreadyExists', message: 'The resource already exists' })).toBe(
      'Erreur de téléversement : photo.png : Un fichier porte déjà ce nom.',
    );
    expect(uploadErrorMessage('photo.png', { status: 403, statusCode: '403', code: 'AccessDenied', message: 'new row violates row-level security policy' })).toBe(
      "Erreur de téléversement : photo.png : Vous n'avez pas les permissions nécessaires pour cette action.",
    );
    expect(uploadErrorMessage('photo.png', { name: 'StorageUnknownError', message: 'Failed to fetch' })).toMatch(/^Erreur de téléversement : photo\.png : Impossible de joindre le serveur/);
    expect(uploadErrorMessage('photo.png', { status: 507, statusCode: '507', code: 'QuotaExceeded', message: 'Quota de stockage dépassé' })).toBe(
      'Erreur de téléversement : photo.png : Quota de stockage dépassé',
    );
    expect(uploadErrorMessage('photo.png', { status: 500, message: '' })).toBe('Erreur de téléversement : photo.png');
    expect(uploadErrorMessage('photo.png', undefined)).toBe('Erreur de téléversement : photo.png');
  });
});

describe('statistics helpers', () => {
  it('growth %: 0 when the previous value is 0', () => {
    expect(growthPercent(150, 100)).toBe(50);
    expect(growthPercent(50, 100)).toBe(-50);
    expect(growthPercent(10, 0)).toBe(0);
    expect(monthComparison(4, 3)).toBe('4 ce mois (+33,3 % vs le mois dernier)');
    expect(monthComparison(2, 0)).toBe('2 ce mois, aucune le mois dernier');
    expect(monthComparison(0, 0)).toBe('aucune ce mois');
    expect(revenueComparison(150, 100)).toBe('+50 % par rapport au mois dernier');
    expect(revenueComparison(150, 0)).toBe('aucun revenu le mois dernier');
    expect(sinceLabel(0)).toBe("Aujourd'hui");
    expect(sinceLabel(1)).toBe('Hier');
    expect(sinceLabel(5)).toBe('Il y a 5 jours');
    expect(growthPercent('110', '100')).toBe(10);
    expect(growthPercent(1, 3)).toBe(-66.7);
    expect(formatGrowth(12.5)).toBe('+12,5 %');
    expect(formatGrowth(0)).toBe('0 %');
  });
  it('average basket: revenue of non-cancelled bookings over all bookings', () => {
    expect(averageBasket([])).toBe(0);
    expect(averageBasket([{ total_amount: 100, booking_status: 'confirmed' }, { total_amount: 50, booking_status: 'cancelled' }])).toBe(50);
  });
  it('retention rate', () => {
    expect(retentionRate(1, 3)).toBe(33.3);
    expect(retentionRate(0, 0)).toBe(0);
  });
  it('utilisation is capped at 100', () => {
    const now = new Date('2026-06-11T00:00:00Z');
    expect(utilisation(2, '2026-06-01T00:00:00Z', now)).toBe(20);
    expect(utilisation(30, '2026-06-01T00:00:00Z', now)).toBe(100);
    expect(utilisation(1, now, now)).toBe(100);
    expect(daysSince('2026-06-08T00:00:00Z', now)).toBe(3);
  });
  it('price preview: weekly from 7 days, monthly from 30, not cumulative', () => {
    expect(pricePreview(100, 6, 10, 20)).toEqual({ total: 600, percent: 0, discounted: 600 });
    expect(pricePreview(100, 7, 10, 20)).toEqual({ total: 700, percent: 10, discounted: 630 });
    expect(pricePreview(100, 30, 10, 20)).toEqual({ total: 3000, percent: 20, discounted: 2400 });
    expect(rentalDayCount('2026-06-01', '2026-06-01')).toBe(1);
    expect(rentalDayCount('2026-06-01', '2026-06-04')).toBe(3);
  });
  it('bars scale to 200 px', () => {
    expect(barHeight(50, 100)).toBe(100);
    expect(barHeight(100, 100)).toBe(200);
    expect(barHeight(3, 0)).toBe(0);
  });
});

describe('labels', () => {
  it('statuses, an unknown one shown as pending', () => {
    expect(bookingStatusLabel('active')).toBe('En cours');
    expect(bookingStatusLabel('weird')).toBe('En attente');
    expect(bookingStatusLabel(null)).toBe('En attente');
    expect(rentalStatusLabels).toEqual({ available: 'Disponible', rented: 'Loué', maintenance: 'Maintenance', retired: 'Retiré' });
  });
  it('categories, others as is, a missing one', () => {
    expect(categoryLabel('economic')).toBe('Économique');
    expect(categoryLabel('utility')).toBe('Utilitaire');
    expect(categoryLabel('boat')).toBe('boat');
    expect(categoryLabel(null)).toBe('Inconnue');
  });
  it('services', () => {
    expect(diagnosticLabels.key_programming).toBe('Programmation des clés de luxe');
    expect(premiumLabels.business_pack).toBe('Pack Business');
    expect(airportLabels.baggage).toBe('Navette aéroport');
    expect(Object.keys(kindLabels)).toEqual(['vehicle', 'airport', 'diagnostic', 'premium']);
  });
});

describe('list filters', () => {
  const booking = (p: Partial<AdminBooking>): AdminBooking => ({
    kind: 'vehicle', id: 'abcdef12-0000', user_id: null, booking_status: 'pending', total_amount: 100, created_at: '2026-06-01T00:00:00Z', updated_at: null,
    customer: { full_name: 'Jean', email: 'jean@x.cd', phone: null, role: 'user' }, subject: 'Hilux', detail: '', date: '2026-06-10', end: '2026-06-12', raw: {}, ...p,
  });
  it('bookings: search by flight number, type, status and start date; average over all bookings', () => {
    const list = [
      booking({}),
      booking({ id: 'x2', kind: 'airport', raw: { flight_number: 'ET863' }, date: '2026-07-01', booking_status: 'cancelled', total_amount: 50 }),
    ];
    expect(filterBookings(list, { ...emptyBookingFilters, search: 'et863' }).map((b) => b.id)).toEqual(['x2']);
    expect(filterBookings(list, { ...emptyBookingFilters, kind: 'vehicle' })).toHaveLength(1);
    expect(filterBookings(list, { ...emptyBookingFilters, status: 'cancelled' })).toHaveLength(1);
    expect(filterBookings(list, { ...emptyBookingFilters, from: '2026-06-15' }).map((b) => b.id)).toEqual(['x2']);
    expect(filterBookings(list, { ...emptyBookingFilters, sort: 'total_amount' }).map((b) => b.total_amount)).toEqual([100, 50]);
    expect(bookingTiles(list)).toEqual({ total: 2, pending: 1, confirmed: 0, active: 0, revenue: 100, average: 50 });
  });
  it('vehicles: search name/make/model/plate, status, sort by price and popularity', () => {
    const v = (p: Partial<AdminVehicle>) => ({ name: 'A', make: 'M', model: 'X', license_plate: null, rental_status: 'available', daily_rate: 10, category: 'suv', created_at: '2026-01-01', bookings: [], ...p }) as AdminVehicle;
    const list = [v({ id: '1', name: 'Corolla', daily_rate: 45 }), v({ id: '2', name: 'Patrol', license_plate: 'KN-1', rental_status: 'rented', daily_rate: 130, bookings: [{ id: 'b', total_amount: 1, created_at: '', booking_status: 'pending' }] })];
    expect(filterVehicles(list, 'kn-1', 'all', 'name').map((x) => x.id)).toEqual(['2']);
    expect(filterVehicles(list, '', 'available', 'name').map((x) => x.id)).toEqual(['1']);
    expect(filterVehicles(list, '', 'all', 'daily_rate').map((x) => x.id)).toEqual(['2', '1']);
    expect(filterVehicles(list, '', 'all', 'booking_count').map((x) => x.id)).toEqual(['2', '1']);
  });
  it('users: role filter and sort by bookings', () => {
    const u = (p: Partial<AdminUser>) => ({ full_name: 'A', email: 'a@x', phone: null, role: 'user', created_at: '2026-01-01', booking_count: 0, ...p }) as AdminUser;
    const list = [u({ id: '1', booking_count: 1 }), u({ id: '2', role: 'admin', booking_count: 3 })];
    expect(filterUsers(list, '', 'admin', 'created_at').map((x) => x.id)).toEqual(['2']);
    expect(filterUsers(list, '', 'all', 'booking_count').map((x) => x.id)).toEqual(['2', '1']);
  });
});

describe('payment recorded with a rental', () => {
  it('reads the method, the bank reference and the mobile-money operator, never card data', () => {
    expect(paymentText({})).toBe('');
    expect(paymentText({ payment_method: 'card' })).toBe('Carte bancaire');
    expect(paymentText({ payment_method: 'bank', payment_reference: 'VIR-AB12CD34' })).toBe('Virement bancaire, référence VIR-AB12CD34');
    expect(paymentText({ payment_method: 'mobile', mobile_money_provider: 'orange', mobile_money_phone: '+243 81 234 5678' })).toBe('Mobile money, Orange Money, +243 81 234 5678');
  });
});
