import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { registerSchema, resetPasswordSchema, signInSchema, forgotPasswordSchema } from './auth/schemas/auth-schemas';
import { detailsSchema, searchSchema } from './booking/schemas/booking-schemas';
import { airportSchema, parsePassengers } from './airport/schemas/airport-schema';
import { canSubmitDiagnostic, diagnosticSchema } from './diagnostics/schemas/diagnostic-schema';
import { premiumSchema } from './premium/schemas/premium-schema';
import { contactSchema } from './contact/schemas/contact-schema';
import { cardSchema, clampDuration, expiryValid, formatCardNumber, luhnValid, reservationSchema } from './payments/schemas/payment-schemas';
import { paymentStepSchema, initialPayment } from './payments/schemas/payment-step-schema';
import { bookingStepSchema } from './booking/schemas/reservation-schemas';
import { fieldErrors, isValidPhone } from '@/lib/validation';

const TODAY = '2026-11-22';

function errorsOf(schema: z.ZodType, value: unknown): Record<string, string | undefined> {
  const r = schema.safeParse(value);
  return r.success ? {} : fieldErrors<string>(r.error);
}

describe('sign-in', () => {
  it('lower-cases and trims the email', () => {
    const r = signInSchema.parse({ email: '  Jean@Example.COM ', password: 'secret1' });
    expect(r.email).toBe('jean@example.com');
  });
  it('requires an email and 6-character password', () => {
    expect(errorsOf(signInSchema, { email: '', password: '12345' })).toEqual({
      email: "L'email est requis",
      password: 'Le mot de passe doit contenir au moins 6 caractères',
    });
  });
});

describe('register', () => {
  const ok = { fullName: '', email: 'a@b.cd', password: 'Abcdefg1', confirmPassword: 'Abcdefg1' };
  it('accepts a valid form with an optional name', () => {
    expect(registerSchema.safeParse(ok).success).toBe(true);
  });
  it('requires a well-formed email', () => {
    expect(errorsOf(registerSchema, { ...ok, email: '' }).email).toBe("L'email est requis");
    expect(errorsOf(registerSchema, { ...ok, email: 'pas-un-email' }).email).toBe("Format d'email invalide");
  });
  it.each(['abcdefg1', 'ABCDEFG1', 'Abcdefgh', 'Abc1'])('refuses the weak password %s', (password) => {
    expect(errorsOf(registerSchema, { ...ok, password, confirmPassword: password }).password).toBe(
      'Le mot de passe doit contenir au moins 8 caractères, une majuscule, une minuscule et un chiffre',
    );
  });
  it('requires an equal confirmation', () => {
    expect(errorsOf(registerSchema, { ...ok, confirmPassword: 'Abcdefg2' }).confirmPassword).toBe('Les mots de passe ne correspondent pas');
    expect(errorsOf(registerSchema, { ...ok, confirmPassword: '' }).confirmPassword).toBe('Veuillez confirmer le mot de passe');
  });
  it('applies the same rules to a reset and a forgotten password', () => {
    expect(errorsOf(resetPasswordSchema, { password: 'Abcdefg1', confirmPassword: 'x' }).confirmPassword).toBe('Les mots de passe ne correspondent pas');
    expect(errorsOf(forgotPasswordSchema, { email: 'x' }).email).toBe("Format d'email invalide");
  });
});

describe('phone pattern', () => {
  it.each(['06 12 34 56 78', '+33 6 12 34 56 78', '+243 81 234 5678', '00243812345678'])('accepts %s', (p) => expect(isValidPhone(p)).toBe(true));
  it.each(['', '123', '06 12', 'abc', '+2'])('refuses %s', (p) => expect(isValidPhone(p)).toBe(false));
});

describe('public booking', () => {
  const s = searchSchema(TODAY);
  it('defaults the filters and accepts today → tomorrow', () => {
    const r = s.parse({ startDate: TODAY, endDate: '2026-11-23' });
    expect(r).toMatchObject({ maxPrice: 1000, minSeats: 0, category: '', transmission: '', fuelType: '' });
  });
  it('refuses a start in the past and an end before the start', () => {
    expect(errorsOf(s, { startDate: '2026-11-21', endDate: '2026-11-23' }).startDate).toBe('La date de début ne peut pas être dans le passé');
    expect(errorsOf(s, { startDate: TODAY, endDate: '2026-11-21' }).endDate).toMatch(/date de fin/);
  });
  it('keeps the maximum price between 0 and 1000 and seats in the list', () => {
    expect(errorsOf(s, { startDate: TODAY, endDate: TODAY, maxPrice: 1001 }).maxPrice).toMatch(/entre 0 et 1000/);
    expect(errorsOf(s, { startDate: TODAY, endDate: TODAY, maxPrice: -1 }).maxPrice).toMatch(/entre 0 et 1000/);
    expect(s.safeParse({ startDate: TODAY, endDate: TODAY, minSeats: 3 }).success).toBe(false);
    expect(s.safeParse({ startDate: TODAY, endDate: TODAY, minSeats: '7' }).success).toBe(true);
  });
  const details = { fullName: 'Jean Mukendi', email: 'jean@example.cd', phone: '+243 81 234 5678', licenseNumber: 'KIN-123456', specialRequests: '' };
  it('checks every detail', () => {
    expect(detailsSchema.safeParse(details).success).toBe(true);
    expect(errorsOf(detailsSchema, { ...details, fullName: '' }).fullName).toBe('Veuillez remplir tous les champs obligatoires');
    expect(errorsOf(detailsSchema, { ...details, email: 'x@' }).email).toBe("Format d'email invalide");
    expect(errorsOf(detailsSchema, { ...details, phone: '12' }).phone).toBe('Numéro de téléphone invalide');
    expect(errorsOf(detailsSchema, { ...details, licenseNumber: '' }).licenseNumber).toBe('Veuillez remplir tous les champs obligatoires');
    expect(errorsOf(detailsSchema, { ...details, licenseNumber: '#!' }).licenseNumber).toBe('Numéro de permis invalide');
  });
});

describe('airport', () => {
  const s = airportSchema(TODAY);
  const ok = { serviceType: 'vip', flightType: 'arrival', date: TODAY, time: '14:30', flightNumber: 'et863', passengers: 2, notes: '' };
  it('upper-cases the flight number', () => {
    expect(s.parse(ok).flightNumber).toBe('ET863');
  });
  it('gives every message of section 5', () => {
    expect(errorsOf(s, { ...ok, date: '', time: '', flightNumber: '', passengers: 0 })).toEqual({
      date: 'La date est requise',
      time: "L'heure est requise",
      flightNumber: 'Le numéro de vol est requis',
      passengers: 'Au moins un passager est requis',
    });
    expect(errorsOf(s, { ...ok, date: '2026-11-21' }).date).toBe('La date ne peut pas être dans le passé');
  });
  it.each(['E', 'ET-863', 'ABCDEFGH9', 'ET 863'])('refuses the flight number %s', (flightNumber) => {
    expect(errorsOf(s, { ...ok, flightNumber }).flightNumber).toBe('Format de numéro de vol invalide');
  });
  it.each(['AF', 'ET863', 'ABCDEFG8'])('accepts the flight number %s', (flightNumber) => {
    expect(s.safeParse({ ...ok, flightNumber }).success).toBe(true);
  });
  it('turns a non-numeric passenger count into 0', () => {
    expect(parsePassengers('abc')).toBe(0);
    expect(parsePassengers('3')).toBe(3);
  });
});

describe('diagnostics', () => {
  const s = diagnosticSchema(TODAY);
  const ok = { serviceType: 'mechanical', vehicleType: 'Toyota Corolla', email: 'a@b.cd', phone: '0612345678', date: TODAY, time: '09:00', notes: '' };
  it('accepts the offered times only', () => {
    expect(s.safeParse(ok).success).toBe(true);
    expect(errorsOf(s, { ...ok, time: '12:00' }).time).toBe("L'heure est requise");
  });
  it('requires vehicle, date not in the past', () => {
    expect(errorsOf(s, { ...ok, vehicleType: ' ' }).vehicleType).toMatch(/véhicule est requis/);
    expect(errorsOf(s, { ...ok, date: '2026-01-01' }).date).toBe('La date ne peut pas être dans le passé');
  });
  it('enables submit only with a valid email and phone', () => {
    expect(canSubmitDiagnostic('a@b.cd', '0612345678')).toBe(true);
    expect(canSubmitDiagnostic('a@b', '0612345678')).toBe(false);
    expect(canSubmitDiagnostic('a@b.cd', '06')).toBe(false);
  });
});

describe('premium', () => {
  const s = premiumSchema(TODAY);
  const ok = { serviceType: 'private_driver', name: 'Jean', email: 'a@b.cd', phone: '+243812345678', startDate: TODAY, duration: '7', requirements: '' };
  it('accepts durations of the list only', () => {
    expect(s.parse(ok).duration).toBe(7);
    expect(errorsOf(s, { ...ok, duration: 5 }).duration).toBe('Choisissez une durée dans la liste');
  });
  it('requires name, email, phone and start date', () => {
    const e = errorsOf(s, { ...ok, name: '', email: '', phone: '', startDate: '' });
    expect(Object.keys(e).sort()).toEqual(['email', 'name', 'phone', 'startDate']);
  });
});

describe('contact', () => {
  const ok = { name: 'Jean', email: 'a@b.cd', subject: 'information', message: 'Bonjour' };
  it('requires name, email, message and a known subject', () => {
    expect(contactSchema.safeParse(ok).success).toBe(true);
    expect(errorsOf(contactSchema, { ...ok, name: '' }).name).toBe('Veuillez remplir tous les champs obligatoires.');
    expect(errorsOf(contactSchema, { ...ok, message: '' }).message).toBe('Veuillez remplir tous les champs obligatoires.');
    expect(errorsOf(contactSchema, { ...ok, email: 'nope' }).email).toBe('Veuillez entrer une adresse email valide.');
    expect(contactSchema.safeParse({ ...ok, subject: 'spam' }).success).toBe(false);
  });
});

describe('card payment', () => {
  const now = new Date(2026, 10, 22);
  const s = cardSchema(now);
  const ok = { number: '4242 4242 4242 4242', expiry: '12/27', cvv: '123', name: 'jean mukendi', type: 'visa' };
  it('checks Luhn', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(luhnValid('abcd')).toBe(false);
  });
  it('groups the number by 4, at most 19 characters', () => {
    expect(formatCardNumber('42424242424242429999')).toBe('4242 4242 4242 4242');
  });
  it('accepts a valid card and upper-cases the holder', () => {
    expect(s.parse(ok).name).toBe('JEAN MUKENDI');
  });
  it('gives each message', () => {
    expect(errorsOf(s, { ...ok, number: '4242 4242 4242 4241' }).number).toBe('Numéro de carte invalide');
    expect(errorsOf(s, { ...ok, number: '4242' }).number).toBe('Numéro de carte invalide');
    expect(errorsOf(s, { ...ok, expiry: '13/27' }).expiry).toBe("Date d'expiration invalide");
    expect(errorsOf(s, { ...ok, cvv: '12' }).cvv).toBe('Code CVV invalide');
    expect(errorsOf(s, { ...ok, name: 'J3an' }).name).toBe('Nom invalide (lettres uniquement)');
    expect(errorsOf(s, { ...ok, type: 'jcb' }).type).toBe('Champ invalide');
  });
  it('refuses an expiry in the past and accepts the current month', () => {
    expect(expiryValid('10/26', now)).toBe(false);
    expect(expiryValid('11/26', now)).toBe(true);
    expect(expiryValid('1126', now)).toBe(false);
  });
});

describe('reservation dialog', () => {
  const s = reservationSchema(TODAY);
  it('clamps the duration to 1–30 days', () => {
    expect(clampDuration(0)).toBe(1);
    expect(clampDuration(45)).toBe(30);
    expect(clampDuration(Number.NaN)).toBe(1);
  });
  it('gives each message', () => {
    expect(errorsOf(s, { name: '', email: 'x', phone: '1', date: '2026-01-01', time: '', duration: 31, guests: 0 })).toEqual({
      name: 'Le nom est requis',
      email: 'Email invalide',
      phone: 'Numéro de téléphone invalide',
      date: 'La date ne peut pas être dans le passé',
      time: "L'heure est requise",
      duration: 'La durée maximale est de 30 jours',
      guests: 'Au moins une personne est requise',
    });
  });
  it('reads the booking step as its inputs hold it: the duration and the count as typed', () => {
    const step = bookingStepSchema(TODAY);
    const typed = { date: '2026-11-30', time: '09:30', duration: '7', guests: '3', specialRequests: '  siège enfant ' };
    expect(step.parse(typed)).toEqual({ ...typed, duration: 7, guests: 3, specialRequests: 'siège enfant' });
    expect(errorsOf(step, { ...typed, duration: '', guests: '' })).toEqual({ duration: 'La durée maximale est de 30 jours', guests: 'Au moins une personne est requise' });
    expect(errorsOf(step, { ...typed, duration: '2.5' })).toEqual({ duration: expect.any(String) });
  });
  it('checks only the chosen payment method’s details, on their fields', () => {
    const now = new Date('2026-11-22T12:00:00Z');
    const step = paymentStepSchema(now);
    const blank = initialPayment('', 'VIR-ABCDEFGH');
    expect(errorsOf(step, blank)).toEqual({ card: 'Numéro de carte invalide' });
    const r = step.safeParse(blank);
    expect(r.success ? [] : r.error.issues.map((i) => i.path.join('.'))).toEqual(['card.number', 'card.expiry', 'card.cvv', 'card.name']);
    expect(step.safeParse({ ...blank, card: { number: '4242 4242 4242 4242', expiry: '12/30', cvv: '123', name: 'AWA' } }).success).toBe(true);
    const mobile = step.safeParse({ ...blank, method: 'mobile' });
    expect(mobile.success ? [] : mobile.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual(['mobile.provider: Champ invalide', 'mobile.phone: Numéro de téléphone invalide']);
    expect(step.safeParse({ ...blank, method: 'mobile', mobile: { provider: 'mpesa', phone: '+243 81 234 5678' } }).success).toBe(true);
    expect(step.safeParse({ ...blank, method: 'bank' }).success).toBe(true);
  });
});
