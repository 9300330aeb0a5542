import { describe, expect, it } from 'vitest';
import { expressionsOf, fillTemplate, ownerColumns, TEMPLATES } from './templates';

describe('policy templates', () => {
  it('write the owner check against the chosen uuid column, quoted', () => {
    const t = fillTemplate('owner-all', 'orders', 'customer');
    expect(t).toEqual({
      name: 'Owners manage their orders',
      command: 'all',
      roles: ['authenticated'],
      using: '(select auth.uid()) = "customer"',
      with_check: '(select auth.uid()) = "customer"',
    });
    expect(fillTemplate('owner-read', 't', 'we"ird').using).toBe('(select auth.uid()) = "we""ird"');
  });

  it('fill only the expressions their command takes', () => {
    for (const { id } of TEMPLATES) {
      const t = fillTemplate(id, 't', 'owner');
      const takes = expressionsOf(t.command);
      if (!takes.using) expect(t.using, id).toBe('');
      if (!takes.withCheck) expect(t.with_check, id).toBe('');
      expect(t.using || t.with_check, id).not.toBe('');
    }
    expect(fillTemplate('public-read', 't').roles).toEqual(['public']);
  });

  it('offer likely owner columns first', () => {
    const cols = [
      { name: 'id', type: 'integer' },
      { name: 'ref', type: 'uuid' },
      { name: 'customer', type: 'uuid' },
      { name: 'title', type: 'text' },
    ];
    expect(ownerColumns(cols)).toEqual(['customer', 'ref']);
  });
});
