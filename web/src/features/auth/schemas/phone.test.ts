import { describe, expect, it } from 'vitest';
import { phoneMessages, phoneSchema, smsCodeSchema, toE164 } from './auth-schemas';

describe('numbers for a sign-in by SMS', () => {
  it('reads a DRC mobile written nationally as +243', () => {
    expect(toE164('081 234 5678')).toBe('+243812345678');
    expect(toE164('0991234567')).toBe('+243991234567');
    expect(toE164('081-234-56-78')).toBe('+243812345678');
  });

  it('keeps an international number as typed, with + or 00', () => {
    expect(toE164('+243 81 234 5678')).toBe('+243812345678');
    expect(toE164('00243812345678')).toBe('+243812345678');
    expect(toE164('+33 6 12 34 56 78')).toBe('+33612345678');
  });

  it('refuses what is not a phone number', () => {
    for (const bad of ['', '12345', '0712345678', '+0243812345678', 'téléphone', '+243 81 234 5678 9999 99']) {
      expect(toE164(bad), bad).toBeNull();
    }
    const r = phoneSchema.safeParse({ phone: '12345' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe(phoneMessages.phoneInvalid);
  });

  it('wants six digits for the code', () => {
    expect(smsCodeSchema.safeParse({ code: ' 123456 ' }).success).toBe(true);
    expect(smsCodeSchema.safeParse({ code: '12345' }).success).toBe(false);
    expect(smsCodeSchema.safeParse({ code: '12345a' }).success).toBe(false);
  });
});
