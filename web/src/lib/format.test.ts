import { afterEach, describe, expect, it } from 'vitest';
import { addDaysIso, apiAssetUrl, bookingReference, formatDate, formatDays, formatMoney, formatPercent, formatPrice, frenchTypography, priceDisplay, setDisplayCurrency, thumbnailUrl } from './format';

/** Intl's french grouping and the space before the symbol are no-break spaces: show them as spaces. */
const plain = (s: string | null) => s?.replace(/[\u202f\u00a0]/g, ' ') ?? s;

describe('formatPrice', () => {
  afterEach(() => setDisplayCurrency('USD', 1));

  it('shows dollars in French: grouped thousands, a decimal comma, the symbol after', () => {
    expect(plain(formatPrice(150))).toBe('150,00 $');
    expect(plain(formatPrice(1065))).toBe('1 065,00 $');
    expect(plain(formatPrice('65.00'))).toBe('65,00 $');
    expect(plain(formatPrice(null))).toBe('0,00 $');
    expect(plain(formatPrice('abc'))).toBe('0,00 $');
  });

  it('converts to the display currency the settings chose', () => {
    setDisplayCurrency('CDF', 2800);
    expect(plain(formatPrice(1065))).toBe('2 982 000 FC');
    setDisplayCurrency('EUR', 0.92);
    expect(plain(formatPrice(1065))).toBe('979,80 €');
    setDisplayCurrency('USD', 2800);
    expect(plain(formatPrice(10))).toBe('10,00 $');
  });

  it('formats an amount already in a currency', () => {
    expect(plain(formatMoney(1234.5, 'USD'))).toBe('1 234,50 $');
    expect(plain(formatMoney(2982000.4, 'CDF'))).toBe('2 982 000 FC');
  });
});

describe('dates', () => {
  it('formats in French', () => {
    expect(formatDate('2026-11-22')).toBe('22 novembre 2026');
    expect(formatDate('2026-02-01T10:00:00Z')).toMatch(/février 2026/);
    expect(formatDate(null)).toBe('—');
  });
  it('adds days to an ISO date', () => {
    expect(addDaysIso('2026-12-31', 1)).toBe('2027-01-01');
  });
  it('says jour or jours', () => {
    expect(formatDays(1)).toBe('1 jour');
    expect(formatDays(7)).toBe('7 jours');
  });
});

describe('priceDisplay', () => {
  it('strikes the base price only with a discount', () => {
    const shown = (q: Parameters<typeof priceDisplay>[0]) => {
      const p = priceDisplay(q);
      return { ...p, total: plain(p.total), base: plain(p.base), saving: plain(p.saving) };
    };
    expect(shown({ base_total: 700, total: 630, discount_percent: 10 })).toEqual({
      total: '630,00 $',
      base: '700,00 $',
      badge: '-10\u00a0%',
      saving: '70,00 $',
    });
    expect(shown({ base_total: '90.00', total: '90.00', discount_percent: '0' })).toEqual({
      total: '90,00 $',
      base: null,
      badge: null,
      saving: null,
    });
  });
});

describe('helpers', () => {
  it('takes the first 8 characters of an id as reference', () => {
    expect(bookingReference('5eed0000-0000-4000-8000-00000000b001')).toBe('5EED0000');
  });
  it('prefixes storage paths with the API URL', () => {
    expect(apiAssetUrl('http://x:1/', '/storage/v1/object/public/vehicles/a.svg')).toBe('http://x:1/storage/v1/object/public/vehicles/a.svg');
    expect(apiAssetUrl('http://x:1', 'https://cdn/a.png')).toBe('https://cdn/a.png');
    expect(apiAssetUrl('http://x:1', null)).toBeNull();
  });
});

describe('thumbnailUrl', () => {
  it('asks the server for a cropped thumbnail of a raster picture of a public bucket', () => {
    expect(thumbnailUrl('http://x:1/storage/v1/object/public/vehicles/vehicle-images/a.JPG', 800, 480)).toBe(
      'http://x:1/storage/v1/render/image/public/vehicles/vehicle-images/a.JPG?width=800&height=480&resize=cover&quality=75',
    );
    expect(thumbnailUrl('/storage/v1/object/public/vehicles/b.webp', 320, 224)).toBe(
      '/storage/v1/render/image/public/vehicles/b.webp?width=320&height=224&resize=cover&quality=75',
    );
  });
  it('leaves SVGs, other hosts and nothing as they are', () => {
    expect(thumbnailUrl('http://x:1/storage/v1/object/public/vehicles/land-cruiser.svg', 800, 480)).toBe('http://x:1/storage/v1/object/public/vehicles/land-cruiser.svg');
    expect(thumbnailUrl('https://cdn.example/a.png', 800, 480)).toBe('https://cdn.example/a.png');
    expect(thumbnailUrl(null, 800, 480)).toBeNull();
  });
});

describe('French typography', () => {
  it('writes a percentage with a non-breaking space before « % » and a decimal comma', () => {
    expect(formatPercent(-10)).toBe('-10\u00a0%');
    expect(formatPercent(12.5)).toBe('12,5\u00a0%');
    expect(formatPercent(33.333, { signed: true })).toBe('+33,3\u00a0%');
    expect(formatPercent(0, { signed: true })).toBe('0\u00a0%');
    expect(formatPercent(Number.NaN)).toBe('0\u00a0%');
  });

  it('puts a non-breaking space before « : ; ! ? % », replacing a plain one', () => {
    expect(frenchTypography('Protection incluse: Assurance')).toBe('Protection incluse\u00a0: Assurance');
    expect(frenchTypography('Protection incluse : Assurance')).toBe('Protection incluse\u00a0: Assurance');
    expect(frenchTypography('Vraiment? Oui! Bon; ok')).toBe('Vraiment\u00a0? Oui\u00a0! Bon\u00a0; ok');
    expect(frenchTypography('remise de -10%')).toBe('remise de -10\u00a0%');
    expect(frenchTypography('Quoi?!')).toBe('Quoi\u00a0?!');
  });

  it('puts non-breaking spaces inside guillemets', () => {
    expect(frenchTypography('le bouton «Reçu» ou « Annuler »')).toBe('le bouton «\u00a0Reçu\u00a0» ou «\u00a0Annuler\u00a0»');
  });

  it('leaves times, addresses and text without punctuation alone', () => {
    expect(frenchTypography('Départ à 14:30, voir https://example.cd')).toBe('Départ à 14:30, voir https://example.cd');
    expect(frenchTypography('Sans ponctuation')).toBe('Sans ponctuation');
    expect(frenchTypography('Déjà\u00a0: bon')).toBe('Déjà\u00a0: bon');
  });
});
