import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { User } from '@supabase/supabase-js';
import { fetchOwnProfile, updateOwnProfile } from './profile-api';

// The one supabase client, faked: records the profile update and the account update.
const calls: unknown[][] = [];
let profileAnswer: { data: unknown; error: unknown };
let accountAnswer: { data: unknown; error: unknown };
let readAnswer: { data: unknown; error: unknown };
let sessionUserId: string | null;
// data through supabase() (PostgREST), the account through the full client (supabaseClient()).
vi.mock('./supabase', () => ({
  supabaseClient: async () => ({
    auth: {
      getSession: async () => ({ data: { session: sessionUserId ? { user: { id: sessionUserId } } : null }, error: null }),
      updateUser: async (attributes: unknown) => {
        calls.push(['updateUser', attributes]);
        return accountAnswer;
      },
    },
  }),
  supabase: () => ({
    from: (table: string) => ({
      select: () => ({
        eq: (column: string, value: unknown) => ({
          maybeSingle: async () => {
            calls.push(['select', table, column, value]);
            return readAnswer;
          },
        }),
      }),
      insert: (row: unknown) => ({
        select: () => ({
          single: async () => {
            calls.push(['insert', table, row]);
            return { data: { ...PROFILE, ...(row as object) }, error: null };
          },
        }),
      }),
      update: (row: unknown) => ({
        eq: (column: string, value: unknown) => ({
          select: () => ({
            single: async () => {
              calls.push(['update', table, row, column, value]);
              return profileAnswer;
            },
          }),
        }),
      }),
    }),
  }),
}));

const PROFILE = { id: 'p1', user_id: 'u1', full_name: 'Jeanne Mbuyi', phone: '+243 81 111 2222' };

beforeEach(() => {
  calls.length = 0;
  profileAnswer = { data: PROFILE, error: null };
  accountAnswer = { data: { user: { id: 'u1' } }, error: null };
  readAnswer = { data: PROFILE, error: null };
  sessionUserId = 'u1';
});

describe('fetchOwnProfile', () => {
  const user = { id: 'u1', email: 'jeanne@example.cd', user_metadata: { full_name: 'Jeanne Mbuyi' } } as unknown as User;

  it('returns the row the database has', async () => {
    expect(await fetchOwnProfile(user)).toEqual(PROFILE);
    expect(calls).toEqual([['select', 'profiles', 'user_id', 'u1']]);
  });

  it('creates the missing row of a user still signed in', async () => {
    readAnswer = { data: null, error: null };
    await fetchOwnProfile(user);
    expect(calls[1]).toEqual(['insert', 'profiles', { user_id: 'u1', username: 'jeanne', email: 'jeanne@example.cd', full_name: 'Jeanne Mbuyi', role: 'user' }]);
  });

  it('creates nothing once the session has ended (the confirmation page signs out at once)', async () => {
    readAnswer = { data: null, error: null };
    sessionUserId = null;
    await expect(fetchOwnProfile(user)).rejects.toThrow('Votre session a expiré. Veuillez vous reconnecter.');
    expect(calls.map((c) => c[0])).toEqual(['select']);
  });
});

describe('updateOwnProfile', () => {
  it('updates the profile row, then the account metadata, with the same trimmed values', async () => {
    expect(await updateOwnProfile('u1', { full_name: ' Jeanne Mbuyi ', phone: ' +243 81 111 2222 ' })).toEqual(PROFILE);
    expect(calls).toEqual([
      ['update', 'profiles', { full_name: 'Jeanne Mbuyi', phone: '+243 81 111 2222' }, 'user_id', 'u1'],
      ['updateUser', { data: { full_name: 'Jeanne Mbuyi', phone: '+243 81 111 2222' } }],
    ]);
  });

  it('an empty phone is null in both', async () => {
    await updateOwnProfile('u1', { full_name: 'Jeanne', phone: '  ' });
    expect(calls.map((c) => (c[0] === 'update' ? c[2] : c[1]))).toEqual([{ full_name: 'Jeanne', phone: null }, { data: { full_name: 'Jeanne', phone: null } }]);
  });

  it('a refused profile update stops there, in French', async () => {
    profileAnswer = { data: null, error: { code: '42501', message: 'permission denied' } };
    await expect(updateOwnProfile('u1', { full_name: 'Jeanne', phone: '' })).rejects.toThrow("Vous n'avez pas les permissions nécessaires pour cette action.");
    expect(calls.map((c) => c[0])).toEqual(['update']);
  });

  it('a refused account update is an error too', async () => {
    accountAnswer = { data: { user: null }, error: { name: 'AuthApiError', code: 'session_not_found', status: 403, message: 'Session not found' } };
    await expect(updateOwnProfile('u1', { full_name: 'Jeanne', phone: '' })).rejects.toThrow('Votre session a expiré. Veuillez vous reconnecter.');
    accountAnswer = { data: { user: null }, error: { name: 'AuthApiError', code: 'something_new', status: 500, message: 'Boom' } };
    await expect(updateOwnProfile('u1', { full_name: 'Jeanne', phone: '' })).rejects.toThrow('Erreur lors de la mise à jour du compte');
  });
});
