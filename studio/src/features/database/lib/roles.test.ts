import { describe, expect, it } from 'vitest';
import type { Role } from '../api/database';
import { attributesOf, roleFormDefaults, roleFormSchema } from './roles';

const role: Role = {
  name: 'reporter',
  superuser: false,
  inherit: true,
  create_role: false,
  create_db: false,
  can_login: true,
  replication: false,
  bypass_rls: false,
  connection_limit: 3,
  valid_until: null,
  system: false,
  member_of: [],
  connections: 0,
  protected: null,
};

describe('attributesOf', () => {
  it('sends every attribute of a new role, the password only when typed', () => {
    const v = { ...roleFormDefaults(), name: 'r' };
    expect(attributesOf(v)).toEqual({ login: true, inherit: true, create_db: false, create_role: false, bypass_rls: false, connection_limit: -1 });
    expect(attributesOf({ ...v, password: 'pw', valid_until: '2030-01-01' })).toMatchObject({ password: 'pw', valid_until: '2030-01-01' });
  });

  it('sends only what changed on an existing role', () => {
    const v = roleFormDefaults(role);
    expect(attributesOf(v, role)).toEqual({});
    expect(attributesOf({ ...v, login: false, connection_limit: '-1' }, role)).toEqual({ login: false, connection_limit: -1 });
    expect(attributesOf({ ...v, clear_password: true }, role)).toEqual({ clear_password: true });
    expect(attributesOf({ ...v, password: 'x', clear_password: true }, role)).toEqual({ password: 'x' });
  });
});

describe('roleFormSchema', () => {
  it('refuses reserved names and bad limits', () => {
    const ok = { ...roleFormDefaults(), name: 'app' };
    expect(roleFormSchema.safeParse(ok).success).toBe(true);
    expect(roleFormSchema.safeParse({ ...ok, name: 'pg_x' }).success).toBe(false);
    expect(roleFormSchema.safeParse({ ...ok, name: 'supabase_x' }).success).toBe(false);
    expect(roleFormSchema.safeParse({ ...ok, connection_limit: '-2' }).success).toBe(false);
    expect(roleFormSchema.safeParse({ ...ok, name: 'é'.repeat(32) }).success).toBe(false);
  });
});
