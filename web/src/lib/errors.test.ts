import { describe, expect, it } from 'vitest';
import { AppError, errorCode, toAppError, toFrenchMessage } from './errors';

describe('toFrenchMessage', () => {
  it('maps GoTrue codes, never the English text', () => {
    expect(toFrenchMessage({ code: 'invalid_credentials', message: 'Invalid login credentials' })).toBe('Email ou mot de passe incorrect');
    expect(toFrenchMessage({ code: 'email_not_confirmed', message: 'Email not confirmed' })).toBe(
      'Veuillez confirmer votre email avant de vous connecter',
    );
    expect(toFrenchMessage({ code: 'user_already_exists' })).toBe('Un compte existe déjà avec cet email');
    expect(toFrenchMessage({ code: 'email_exists' })).toBe('Un compte existe déjà avec cet email');
    expect(toFrenchMessage({ code: 'weak_password' })).toMatch(/au moins 8 caractères/);
    expect(toFrenchMessage({ code: 'over_email_send_rate_limit' })).toMatch(/patienter/);
    expect(toFrenchMessage({ code: 'over_request_rate_limit' })).toMatch(/Trop de tentatives/);
    expect(toFrenchMessage({ code: 'otp_expired' })).toMatch(/expiré/);
    expect(toFrenchMessage({ code: 'validation_failed' })).toBe('Les informations saisies sont invalides.');
  });

  it('maps PostgREST and PostgreSQL codes', () => {
    expect(toFrenchMessage({ code: 'PGRST116', message: 'JSON object requested, multiple (or no) rows returned' })).toBe('Élément introuvable.');
    expect(toFrenchMessage({ code: '42501', message: 'permission denied' })).toMatch(/permissions/);
    expect(toFrenchMessage({ code: '23505' })).toBe('Cet élément existe déjà.');
    expect(toFrenchMessage({ code: 'PT409' })).toMatch(/déjà réservé/);
  });

  it('recognises network failures', () => {
    expect(errorCode({ name: 'AuthRetryableFetchError', message: 'Failed to fetch', status: 0 })).toBe('network');
    expect(errorCode({ message: 'TypeError: Failed to fetch', code: '' })).toBe('network');
    expect(toFrenchMessage(new TypeError('Failed to fetch'))).toMatch(/Impossible de joindre le serveur/);
  });

  it('keeps the French message our SQL raises with code 22023', () => {
    expect(toFrenchMessage({ code: '22023', message: 'La date de début ne peut pas être dans le passé' })).toBe(
      'La date de début ne peut pas être dans le passé',
    );
  });

  it('uses the fallback for unknown codes and never echoes English', () => {
    expect(toFrenchMessage({ code: 'something_new', message: 'Some English' }, 'Erreur lors de la réservation')).toBe(
      'Erreur lors de la réservation',
    );
    expect(toFrenchMessage(undefined)).toBe('Une erreur inattendue est survenue.');
  });

  it('wraps into AppError once', () => {
    const e = toAppError({ code: 'invalid_credentials' });
    expect(e).toBeInstanceOf(AppError);
    expect(e.code).toBe('invalid_credentials');
    expect(toAppError(e)).toBe(e);
  });
});
