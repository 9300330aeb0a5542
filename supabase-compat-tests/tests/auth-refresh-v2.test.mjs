// Refresh tokens of algorithm 2 (REFRESH_TOKEN_ALGORITHM_VERSION=2) through the unchanged
// supabase-js auth client: the session's id and a counter signed with the session's key, GoTrue's
// newer format. supabase-js treats refresh tokens as opaque strings, so everything it does must
// work the same: rotation, the auto-refresh event, a lost answer, MFA's aal2, sign-out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, sql } from '../lib/server.mjs';
import { client, email, mail, memoryStorage } from '../lib/auth.mjs';
import { totp } from '../lib/totp.mjs';

let server;
before(async () => {
  server = await startServer({
    REFRESH_TOKEN_ALGORITHM_VERSION: '2',
    REFRESH_TOKEN_REUSE_INTERVAL: '0',
    RATE_LIMIT_TOKEN_REFRESH: '100000',
    RATE_LIMIT_VERIFY: '100000',
    RATE_LIMIT_EMAIL_SENT: '100000',
    SMTP_MAX_FREQUENCY: '0',
  });
});
after(async () => { await server?.stop(); });

async function signedIn(tag) {
  const address = email(tag);
  const password = 'password-1';
  assert.equal((await client(server).auth.signUp({ email: address, password })).error, null);
  const m = await mail(server, address, 'confirmation');
  assert.equal((await client(server).auth.verifyOtp({ token_hash: m.tokenHash, type: 'signup' })).error, null);
  const c = client(server, server.anonKey, { storage: memoryStorage(), persistSession: true });
  const { data, error } = await c.auth.signInWithPassword({ email: address, password });
  assert.equal(error, null);
  return { c, session: data.session };
}

const claims = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url'));

test('sessions of algorithm 2 rotate through supabase-js, with no token rows', async () => {
  const { c, session } = await signedIn('v2-rotate');
  assert.match(session.refresh_token, /^[A-Za-z0-9_-]{51,63}$/, 'a base64url token, not a 32-character row token');
  const events = [];
  c.auth.onAuthStateChange((event) => events.push(event));

  const { data, error } = await c.auth.refreshSession();
  assert.equal(error, null);
  assert.notEqual(data.session.refresh_token, session.refresh_token);
  assert.equal(claims(data.session.access_token).session_id, claims(session.access_token).session_id);
  assert.ok(events.includes('TOKEN_REFRESHED'), events.join());
  const { rows } = await sql(server.dbUrl,
    'select (select count(*)::int from auth.refresh_tokens where session_id = $1) as tokens, ' +
    '(select refresh_token_counter::int from auth.sessions where id = $1) as counter',
    [claims(session.access_token).session_id]);
  assert.deepEqual(rows[0], { tokens: 0, counter: 1 });
});

test('a lost answer is recovered with the previous token; an older one ends the session', async () => {
  const { c, session } = await signedIn('v2-reuse');
  const second = (await c.auth.refreshSession()).data.session.refresh_token;
  const third = (await c.auth.refreshSession()).data.session.refresh_token;

  const again = await client(server).auth.refreshSession({ refresh_token: second });
  assert.equal(again.error, null);
  assert.equal(again.data.session.refresh_token, third);

  const old = await client(server).auth.refreshSession({ refresh_token: session.refresh_token });
  assert.equal(old.error.code, 'refresh_token_already_used');
  assert.equal(old.error.message, 'Invalid Refresh Token: Already Used');
  const current = await client(server).auth.refreshSession({ refresh_token: third });
  assert.equal(current.error.code, 'refresh_token_not_found', 'the session is gone');
});

test('MFA raises the session to aal2 and its next refresh keeps it', async () => {
  const { c } = await signedIn('v2-mfa');
  const enrolled = await c.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone' });
  assert.equal(enrolled.error, null);
  const verified = await c.auth.mfa.challengeAndVerify({ factorId: enrolled.data.id, code: totp(enrolled.data.totp.secret) });
  assert.equal(verified.error, null);
  assert.match(verified.data.refresh_token, /^[A-Za-z0-9_-]{51,63}$/);

  const refreshed = await c.auth.refreshSession();
  assert.equal(refreshed.error, null);
  assert.equal(claims(refreshed.data.session.access_token).aal, 'aal2');
});

test('after sign-out the session\'s token refreshes no more', async () => {
  const { c, session } = await signedIn('v2-logout');
  assert.equal((await c.auth.signOut()).error, null);
  const after = await client(server).auth.refreshSession({ refresh_token: session.refresh_token });
  assert.equal(after.error.code, 'refresh_token_not_found');
});
