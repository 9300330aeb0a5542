import { describe, expect, it } from 'vitest';
import { decimalsMessage, hasAtMostDecimals } from './validation';

describe('hasAtMostDecimals', () => {
  it('accepts multiples of the step, whatever the float error', () => {
    expect(hasAtMostDecimals(12, 1)).toBe(true);
    expect(hasAtMostDecimals(12.5, 1)).toBe(true);
    expect(hasAtMostDecimals(0.1 + 0.2, 1)).toBe(true);
    expect(hasAtMostDecimals(1.1 * 3, 1)).toBe(true);
    expect(hasAtMostDecimals(19.99, 2)).toBe(true);
    expect(hasAtMostDecimals(1.005, 3)).toBe(true);
    expect(hasAtMostDecimals(9999999.99, 2)).toBe(true);
    expect(hasAtMostDecimals(-0.7, 1)).toBe(true);
  });
  it('refuses one decimal too many, and what is not a number', () => {
    expect(hasAtMostDecimals(12.35, 1)).toBe(false);
    expect(hasAtMostDecimals(0.05, 1)).toBe(false);
    expect(hasAtMostDecimals(19.999, 2)).toBe(false);
    expect(hasAtMostDecimals(80.005, 2)).toBe(false);
    expect(hasAtMostDecimals(9999999.995, 2)).toBe(false);
    expect(hasAtMostDecimals(Number.NaN, 2)).toBe(false);
    expect(hasAtMostDecimals(Number.POSITIVE_INFINITY, 2)).toBe(false);
  });
  it('says so in French', () => {
    expect(decimalsMessage(1)).toBe('au plus une décimale');
    expect(decimalsMessage(2)).toBe('au plus deux décimales');
  });
});
