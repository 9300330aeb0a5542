import { describe, expect, it } from 'vitest';
import { bucketFormSchema, bucketSettings } from './bucket-form';

describe('the bucket form', () => {
  it('turns its fields into settings', () => {
    const form = bucketFormSchema.parse({ name: 'media', public: true, size: '5 MB', mimes: 'image/png, image/* ,' });
    expect(bucketSettings(form)).toEqual({ public: true, file_size_limit: 5 * 1024 * 1024, allowed_mime_types: ['image/png', 'image/*'] });
    expect(bucketSettings(bucketFormSchema.parse({ name: 'x', public: false, size: '', mimes: '' }))).toEqual({
      public: false,
      file_size_limit: null,
      allowed_mime_types: null,
    });
  });

  it('refuses what the server would', () => {
    expect(bucketFormSchema.safeParse({ name: 'a/b', public: false, size: '', mimes: '' }).success).toBe(false);
    expect(bucketFormSchema.safeParse({ name: 'ok', public: false, size: 'big', mimes: '' }).success).toBe(false);
    expect(bucketFormSchema.safeParse({ name: 'ok', public: false, size: '', mimes: 'png' }).success).toBe(false);
  });
});
