// Anonymous sign-ins through supabase-js: signInAnonymously() gives a session whose user and
// claims say is_anonymous, and the user becomes permanent by confirming an address with
// updateUser() and verifyOtp(), keeping its id; with the setting off, GoTrue's error code.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, sql } from '../lib/server.mjs';
import { client, email, mail } from '../lib/auth.mjs';

let server;
let closed;
before(async () => {
  server = await startServer({ EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true' });
  closed = await startServer();
});
after(async () => { await server?.stop(); await closed?.stop(); });

test('signInAnonymously() returns an anonymous session that can be made permanent', async () => {
  const supabase = client(server);
  const { data, error } = await supabase.auth.signInAnonymously({ options: { data: { nickname: 'guest' } } });
  assert.equal(error, null);
  assert.equal(data.user.is_anonymous, true);
  assert.equal(data.user.user_metadata.nickname, 'guest');
  const claims = JSON.parse(Buffer.from(data.session.access_token.split('.')[1], 'base64url'));
  assert.equal(claims.is_anonymous, true);
  const id = data.user.id;

  const refused = await supabase.auth.updateUser({ password: 'secret-123' });
  assert.equal(refused.error?.status, 422);

  const address = email('guest');
  const pending = await supabase.auth.updateUser({ email: address });
  assert.equal(pending.error, null);
  assert.equal(pending.data.user.new_email, address);
  const { tokenHash } = await mail(server, address, 'email_change');
  const verified = await supabase.auth.verifyOtp({ token_hash: tokenHash, type: 'email_change' });
  assert.equal(verified.error, null);
  const { data: after } = await supabase.auth.getUser();
  assert.equal(after.user.id, id);
  assert.equal(after.user.is_anonymous, false);
  assert.equal(after.user.email, address);
});

test('with anonymous sign-ins off, the error is anonymous_provider_disabled', async () => {
  const { data, error } = await client(closed).auth.signInAnonymously();
  assert.equal(data.session, null);
  assert.equal(error.code, 'anonymous_provider_disabled');
  assert.equal(error.status, 422);
});

test("an anonymous user can enrol no MFA factor (GoTrue's 403 no_authorization) and book nothing in the rental app", async () => {
  const supabase = client(server);
  const { error } = await supabase.auth.signInAnonymously();
  assert.equal(error, null);
  const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' });
  assert.equal(enrolled.error?.status, 403);
  assert.equal(enrolled.error?.code, 'no_authorization');
  assert.equal(enrolled.error?.message, 'Anonymous user not allowed to perform these actions');
  await sql(server.dbUrl, `insert into public.vehicles (id, name, make, model, year, category, daily_rate)
    values ('44444444-0000-4000-8000-00000000000d', 'Toyota Hilux', 'Toyota', 'Hilux', 2023, 'suv', 90) on conflict do nothing`);
  const { data: vehicles } = await supabase.from('vehicles').select('id');
  assert.equal(vehicles.length, 1, 'an anonymous user may look around');
  const day = (n) => new Date(Date.now() + n * 86400000).toISOString().slice(0, 10);
  const booked = await supabase.rpc('book_vehicle', {
    vehicle_id: vehicles[0].id, start_date: day(10), end_date: day(12), pickup_location: 'Gombe', dropoff_location: 'Gombe',
    customer_name: 'Invité', customer_email: 'invite@example.cd', customer_phone: '+243810000009', driver_license_number: 'kin-9', special_requests: null,
  });
  assert.equal(booked.error?.code, '42501', JSON.stringify(booked.error));
});
