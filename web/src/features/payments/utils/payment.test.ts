import { describe, expect, it } from 'vitest';
import { detectCardType, feeLabel, formatExpiry, generateTransferReference, paymentFee } from './payment';

describe('payment fees (section 7)', () => {
  it('charges nothing for card, bank transfer and wallet', () => {
    for (const m of ['card', 'bank', 'digital_wallet'] as const) expect(paymentFee(630, m)).toEqual({ percent: 0, fee: 0, total: 630 });
  });
  it('adds 1 % for mobile money, in cents', () => {
    expect(paymentFee(630, 'mobile')).toEqual({ percent: 1, fee: 6.3, total: 636.3 });
    expect(paymentFee('99.99', 'mobile')).toEqual({ percent: 1, fee: 1, total: 100.99 });
    expect(paymentFee('1080.00', 'mobile')).toEqual({ percent: 1, fee: 10.8, total: 1090.8 });
  });
  it('treats a missing total as zero', () => {
    expect(paymentFee('abc', 'mobile')).toEqual({ percent: 1, fee: 0, total: 0 });
  });
  it('labels each method', () => {
    expect(feeLabel('card')).toBe('Sans frais');
    expect(feeLabel('mobile')).toBe('Frais 1 %');
  });
});

describe('card input', () => {
  it.each([
    ['4242 4242 4242 4242', 'visa'],
    ['5555 5555 5555 4444', 'mastercard'],
    ['2223 0031 2200 3222', 'mastercard'],
    ['3782 822463 10005', 'amex'],
    ['6011 1111 1111 1117', 'discover'],
    ['9999', null],
  ])('detects the network of %s', (n, t) => expect(detectCardType(n)).toBe(t));
  it('inserts the slash of MM/YY as one types', () => {
    expect(formatExpiry('1')).toBe('1');
    expect(formatExpiry('12')).toBe('12');
    expect(formatExpiry('122')).toBe('12/2');
    expect(formatExpiry('12/278')).toBe('12/27');
  });
});

describe('bank transfer reference', () => {
  it('is VIR- and 8 unambiguous characters', () => {
    for (let i = 0; i < 50; i++) expect(generateTransferReference()).toMatch(/^VIR-[A-HJ-NP-Z2-9]{8}$/);
  });
  it('maps random bytes onto the alphabet', () => {
    expect(generateTransferReference((b) => b.fill(0))).toBe('VIR-AAAAAAAA');
    expect(generateTransferReference((b) => b.fill(31))).toBe('VIR-99999999');
  });
});
