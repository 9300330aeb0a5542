import { describe, expect, it } from 'vitest';
import { draftOf, policyFormSchema } from './policy-form';

const base = { name: 'p', command: 'select' as const, roles: 'anon, authenticated', permissive: 'permissive' as const, using: 'true', with_check: 'false' };

describe('the policy form', () => {
  it('sends only the expressions its command takes', () => {
    expect(draftOf('public', 'orders', policyFormSchema.parse(base))).toEqual({
      schema: 'public',
      table: 'orders',
      name: 'p',
      command: 'select',
      roles: ['anon', 'authenticated'],
      permissive: true,
      using: 'true',
      with_check: null,
    });
    const insert = draftOf('public', 'orders', policyFormSchema.parse({ ...base, command: 'insert', permissive: 'restrictive' }));
    expect([insert.using, insert.with_check, insert.permissive]).toEqual([null, 'false', false]);
  });

  it('asks for the expression a command needs', () => {
    expect(policyFormSchema.safeParse({ ...base, using: ' ' }).success).toBe(false);
    expect(policyFormSchema.safeParse({ ...base, command: 'insert', with_check: '' }).success).toBe(false);
    expect(policyFormSchema.safeParse({ ...base, command: 'update', using: '', with_check: 'true' }).success).toBe(true);
    expect(policyFormSchema.safeParse({ ...base, name: '' }).success).toBe(false);
  });
});
