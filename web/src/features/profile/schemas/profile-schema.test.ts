import { describe, expect, it } from 'vitest';
import { changeDatesMessages, changeDatesSchema, profileMessages, profileSchema } from './profile-schema';

const first = (r: { success: boolean; error?: { issues: Array<{ message: string; path: PropertyKey[] }> } }) => r.error?.issues[0];

describe('the profile tab', () => {
  it('wants a name of 2 characters and an empty or valid phone, keeping the values as typed', () => {
    expect(first(profileSchema.safeParse({ fullName: ' a ', phone: '' }))?.message).toBe(profileMessages.fullName);
    expect(first(profileSchema.safeParse({ fullName: 'Aline', phone: '12' }))?.message).toBe(profileMessages.phone);
    expect(profileSchema.parse({ fullName: ' Aline ', phone: '   ' })).toEqual({ fullName: ' Aline ', phone: '   ' });
  });
});

describe('« Modifier les dates »', () => {
  const s = changeDatesSchema('2026-12-06');
  it('says each rule under the end date', () => {
    for (const [v, m] of [
      [{ start: '', end: '2026-12-10' }, changeDatesMessages.both],
      [{ start: '2026-12-01', end: '2026-12-10' }, changeDatesMessages.past],
      [{ start: '2026-12-10', end: '2026-12-08' }, changeDatesMessages.order],
    ] as const) {
      const issue = first(s.safeParse(v));
      expect(issue?.message).toBe(m);
      expect(issue?.path).toEqual(['end']);
    }
    expect(s.safeParse({ start: '2026-12-06', end: '2026-12-06' }).success).toBe(true);
  });
});
