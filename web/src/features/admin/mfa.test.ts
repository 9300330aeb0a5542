import { describe, expect, it } from 'vitest';
import { errorMessages, toFrenchMessage } from '@/lib/errors';
import { FACTOR_NAME_MESSAGE, MFA_CODE_MESSAGE, factorNameSchema, mfaCodeSchema } from './schemas/mfa-schema';
import { guardDecision, type GuardInput } from './lib/guard';
import { qrImageSrc } from './lib/qr';

describe('mfaCodeSchema', () => {
  it('accepts six digits, spaces removed', () => {
    expect(mfaCodeSchema.parse('123456')).toBe('123456');
    expect(mfaCodeSchema.parse(' 123 456 ')).toBe('123456');
    expect(mfaCodeSchema.parse('000000')).toBe('000000');
  });
  it.each(['', '12345', '1234567', '12a456', '12-456', '１２３４５６'])('refuses %j in French', (v) => {
    const r = mfaCodeSchema.safeParse(v);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe(MFA_CODE_MESSAGE);
  });
});

describe('factorNameSchema', () => {
  it('trims and bounds the device name', () => {
    expect(factorNameSchema.parse('  Téléphone  ')).toBe('Téléphone');
    expect(factorNameSchema.safeParse(' a ').error?.issues[0]?.message).toBe(FACTOR_NAME_MESSAGE);
    expect(factorNameSchema.safeParse('x'.repeat(41)).success).toBe(false);
  });
});

describe('guardDecision', () => {
  const admin: GuardInput = { loading: false, signedIn: true, isAdmin: true, aal: { currentLevel: 'aal1', nextLevel: 'aal1' } };
  it('waits for the session, the profile and the level', () => {
    expect(guardDecision({ ...admin, loading: true })).toBe('loading');
    expect(guardDecision({ ...admin, aal: null })).toBe('loading');
  });
  it('sends a signed-out visitor to sign in', () => {
    expect(guardDecision({ ...admin, signedIn: false, isAdmin: false, aal: null })).toBe('sign-in');
  });
  it('denies a customer whatever their level', () => {
    expect(guardDecision({ ...admin, isAdmin: false, aal: null })).toBe('denied');
    expect(guardDecision({ ...admin, isAdmin: false, aal: { currentLevel: 'aal2', nextLevel: 'aal2' } })).toBe('denied');
  });
  it('challenges an administrator with a verified factor at aal1', () => {
    expect(guardDecision({ ...admin, aal: { currentLevel: 'aal1', nextLevel: 'aal2' } })).toBe('challenge');
  });
  it('shows the pages at aal2, and at aal1 without a factor', () => {
    expect(guardDecision({ ...admin, aal: { currentLevel: 'aal2', nextLevel: 'aal2' } })).toBe('pages');
    expect(guardDecision(admin)).toBe('pages');
  });
});

describe('MFA errors in French, by GoTrue code', () => {
  it('maps the verification and aal codes', () => {
    expect(toFrenchMessage({ code: 'mfa_verification_failed', message: 'Invalid TOTP code entered' })).toBe('Code invalide ou expiré');
    expect(toFrenchMessage({ code: 'mfa_challenge_expired', message: 'expired' })).toBe('Code invalide ou expiré');
    expect(toFrenchMessage({ code: 'insufficient_aal', message: 'AAL2 required' })).toBe(errorMessages.insufficient_aal);
    expect(errorMessages.insufficient_aal).toMatch(/deux étapes/);
  });
});

describe('qrImageSrc', () => {
  it('encodes the raw SVG supabase-js puts after the data: prefix', () => {
    const src = qrImageSrc('data:image/svg+xml;utf-8,<svg fill="#000"><path d="M0 0"/></svg>');
    expect(src.startsWith('data:image/svg+xml;charset=utf-8,%3Csvg')).toBe(true);
    expect(src).not.toContain('#');
    expect(decodeURIComponent(src.slice(src.indexOf(',') + 1))).toBe('<svg fill="#000"><path d="M0 0"/></svg>');
  });
  it('leaves an already encoded image alone', () => {
    expect(qrImageSrc('data:image/svg+xml;base64,PHN2Zz4=')).toBe('data:image/svg+xml;base64,PHN2Zz4=');
  });
});

describe('passkey errors', () => {
  it('speak French for the server and for the browser ceremony', () => {
    expect(toFrenchMessage({ code: 'webauthn_verification_failed' })).toBe(errorMessages.webauthn_verification_failed);
    expect(toFrenchMessage({ code: 'mfa_webauthn_enroll_not_enabled' })).toMatch(/clés d'accès ne sont pas activées/);
    // supabase-js's WebAuthnError carries its own code
    expect(toFrenchMessage({ name: 'WebAuthnError', code: 'ERROR_CEREMONY_ABORTED' })).toBe("L'opération a été annulée.");
    expect(toFrenchMessage({ name: 'WebAuthnError', code: 'ERROR_PASSTHROUGH_SEE_CAUSE_PROPERTY' }, 'repli')).toBe('repli');
  });
});
