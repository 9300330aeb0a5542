// An administrator who enrolled a TOTP factor is an administrator only at aal2 (V45): through
// supabase-js, an aal1 session is refused every admin read and write, the same user after
// challenge + verify gets them, and removing the factor restores aal1 access.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../lib/server.mjs';
import { client } from '../lib/auth.mjs';
import { totp } from '../lib/totp.mjs';

const EMAIL = 'mfa-admin@example.cd';
const PASSWORD = 'password-mfa-1';
let server;
let vehicleId;

before(async () => {
  server = await startServer({ RATE_LIMIT_VERIFY: '100000', RATE_LIMIT_TOKEN_REFRESH: '100000' });
  const service = client(server, server.serviceKey);
  const created = await service.auth.admin.createUser({ email: EMAIL, password: PASSWORD, email_confirm: true });
  assert.equal(created.error, null);
  const promoted = await service.from('profiles').update({ role: 'admin' }).eq('user_id', created.data.user.id).select('role').single();
  assert.equal(promoted.error, null);
  assert.equal(promoted.data.role, 'admin');
  const vehicle = await service.from('vehicles')
    .insert({ name: 'Suzuki Swift', make: 'Suzuki', model: 'Swift', year: 2021, category: 'economic', daily_rate: 40 })
    .select('id').single();
  assert.equal(vehicle.error, null);
  vehicleId = vehicle.data.id;
});
after(async () => { await server?.stop(); });

async function signIn() {
  const c = client(server);
  const { data, error } = await c.auth.signInWithPassword({ email: EMAIL, password: PASSWORD });
  assert.equal(error, null, error?.message);
  return { c, session: data.session };
}
const aal = (session) => JSON.parse(Buffer.from(session.access_token.split('.')[1], 'base64url')).aal;

/** Whether this client can do the admin read and the admin write. */
async function adminAccess(c, rate) {
  const users = await c.rpc('admin_users');
  const update = await c.from('vehicles').update({ daily_rate: rate }).eq('id', vehicleId).select('id');
  return { users, update };
}

test('a verified factor makes aal2 required for admin reads and writes; unenrolling restores aal1 access', async () => {
  // no factor yet: aal1 is enough.
  const first = await signIn();
  assert.equal(aal(first.session), 'aal1');
  const open = await adminAccess(first.c, 41);
  assert.equal(open.users.error, null);
  assert.ok(open.users.data.length >= 1);
  assert.equal(open.update.error, null);
  assert.equal(open.update.data.length, 1);

  // enrol and verify (this session becomes aal2).
  const enrolled = await first.c.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Téléphone' });
  assert.equal(enrolled.error, null);
  const { id: factorId, totp: { secret } } = enrolled.data;
  const verified = await first.c.auth.mfa.challengeAndVerify({ factorId, code: totp(secret) });
  assert.equal(verified.error, null);
  assert.equal(aal(verified.data), 'aal2');

  // a new sign-in is aal1 and is refused: the password alone no longer makes an administrator.
  const second = await signIn();
  assert.equal(aal(second.session), 'aal1');
  const level = await second.c.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.deepEqual([level.data.currentLevel, level.data.nextLevel], ['aal1', 'aal2']);
  const closed = await adminAccess(second.c, 42);
  assert.equal(closed.users.error?.code, '42501');
  assert.equal(closed.update.error, null);
  assert.equal(closed.update.data.length, 0, 'the vehicle update affects no row at aal1');
  const stats = await second.c.rpc('admin_statistics');
  assert.equal(stats.error?.code, '42501');
  const own = await second.c.from('profiles').select('role').single();
  assert.equal(own.data?.role, 'admin', 'the own profile (and its role) stays readable at aal1');

  // a wrong code is refused with GoTrue's code; the right one upgrades the session.
  const challenge = await second.c.auth.mfa.challenge({ factorId });
  const wrong = await second.c.auth.mfa.verify({ factorId, challengeId: challenge.data.id, code: totp(secret) === '000000' ? '111111' : '000000' });
  assert.equal(wrong.error?.code, 'mfa_verification_failed');
  const upgraded = await second.c.auth.mfa.challengeAndVerify({ factorId, code: totp(secret) });
  assert.equal(upgraded.error, null);
  assert.equal(aal(upgraded.data), 'aal2');
  const reopened = await adminAccess(second.c, 43);
  assert.equal(reopened.users.error, null);
  assert.equal(reopened.update.data.length, 1);

  // unenrolling needs aal2 (refused from an aal1 session), then aal1 is enough again.
  const third = await signIn();
  const refused = await third.c.auth.mfa.unenroll({ factorId });
  assert.equal(refused.error?.code, 'insufficient_aal');
  const removed = await second.c.auth.mfa.unenroll({ factorId });
  assert.equal(removed.error, null);
  const after = await adminAccess(third.c, 44);
  assert.equal(after.users.error, null);
  assert.equal(after.update.data.length, 1);
  const fourth = await signIn();
  const restored = await fourth.c.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.deepEqual([restored.data.currentLevel, restored.data.nextLevel], ['aal1', 'aal1']);
});
