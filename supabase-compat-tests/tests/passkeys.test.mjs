// Passkeys and WebAuthn MFA factors through supabase-js (auth.passkey.*, auth.admin.passkey.*,
// auth.mfa with factorType 'webauthn'), answered by a software authenticator (lib/authenticator):
// a passkey registered while signed in signs in without a password; a challenge answers once; a
// wrong origin, a wrong challenge, a bad signature or a replayed counter are refused; a user with
// a verified factor manages passkeys only at aal2; a WebAuthn factor raises the session to aal2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../lib/server.mjs';
import { client, email } from '../lib/auth.mjs';
import { SoftAuthenticator, asBrowserCredential } from '../lib/authenticator.mjs';
import { totp } from '../lib/totp.mjs';

const ORIGIN = 'https://app.example.test';
const RP_ID = 'app.example.test';
const PASSWORD = 'passkey-pass-1';
let server;
let off;

before(async () => {
  const webauthn = { WEBAUTHN_RP_ID: RP_ID, WEBAUTHN_RP_ORIGINS: ORIGIN, WEBAUTHN_RP_DISPLAY_NAME: 'Kinshasa Auto' };
  server = await startServer({
    ...webauthn,
    PASSKEY_ENABLED: 'true',
    PASSKEY_MAX_PASSKEYS_PER_USER: '3',
    MFA_WEB_AUTHN_ENROLL_ENABLED: 'true',
    MFA_WEB_AUTHN_VERIFY_ENABLED: 'true',
    RATE_LIMIT_VERIFY: '100000',
    RATE_LIMIT_TOKEN_REFRESH: '100000',
  });
  // Off whatever the project says (the rental project's config.toml turns WebAuthn factors on).
  off = await startServer({ ...webauthn, MFA_WEB_AUTHN_ENROLL_ENABLED: 'false', MFA_WEB_AUTHN_VERIFY_ENABLED: 'false' });
});
after(async () => { await server?.stop(); await off?.stop(); });

async function newUser(tag) {
  const address = email(tag);
  const created = await client(server, server.serviceKey).auth.admin.createUser({ email: address, password: PASSWORD, email_confirm: true });
  assert.equal(created.error, null);
  const c = client(server);
  const { data, error } = await c.auth.signInWithPassword({ email: address, password: PASSWORD });
  assert.equal(error, null);
  return { c, user: data.user, address };
}
const claims = (session) => JSON.parse(Buffer.from(session.access_token.split('.')[1], 'base64url'));

async function registerPasskey(c, device) {
  const start = await c.auth.passkey.startRegistration();
  assert.equal(start.error, null, start.error?.message);
  const { json } = device.create(start.data.options);
  return c.auth.passkey.verifyRegistration({ challengeId: start.data.challenge_id, credential: json });
}

test('a passkey registered while signed in signs in without a password, once per challenge', async () => {
  const { c, user } = await newUser('passkey');
  const device = new SoftAuthenticator(ORIGIN);
  const start = await c.auth.passkey.startRegistration();
  assert.equal(start.error, null);
  assert.equal(start.data.options.rp.id, RP_ID);
  assert.equal(start.data.options.rp.name, 'Kinshasa Auto');
  assert.equal(start.data.options.authenticatorSelection.residentKey, 'required');
  assert.equal(Buffer.from(start.data.options.user.id, 'base64url').toString(), user.id);
  assert.ok(start.data.expires_at > Date.now() / 1000);
  const { json } = device.create(start.data.options);
  const registered = await c.auth.passkey.verifyRegistration({ challengeId: start.data.challenge_id, credential: json });
  assert.equal(registered.error, null, registered.error?.message);
  assert.equal(registered.data.friendly_name, 'Passkey');
  assert.match(registered.data.id, /^[0-9a-f-]{36}$/);

  // the registration challenge was consumed
  const again = await c.auth.passkey.verifyRegistration({ challengeId: start.data.challenge_id, credential: json });
  assert.equal(again.error?.code, 'webauthn_challenge_not_found');

  // sign in on a fresh client, discoverable: the passkey names the user
  const visitor = client(server);
  const options = await visitor.auth.passkey.startAuthentication();
  assert.equal(options.error, null);
  assert.equal(options.data.options.rpId, RP_ID);
  assert.ok(!options.data.options.allowCredentials?.length);
  const assertion = device.get(options.data.options);
  const signedIn = await visitor.auth.passkey.verifyAuthentication({ challengeId: options.data.challenge_id, credential: assertion });
  assert.equal(signedIn.error, null, signedIn.error?.message);
  assert.equal(signedIn.data.user.id, user.id);
  assert.equal(claims(signedIn.data.session).sub, user.id);
  assert.equal(claims(signedIn.data.session).amr[0].method, 'passkey');
  const { data: me } = await visitor.auth.getUser();
  assert.equal(me.user.id, user.id);

  // the same answer again: the challenge is gone
  const replay = await visitor.auth.passkey.verifyAuthentication({ challengeId: options.data.challenge_id, credential: assertion });
  assert.equal(replay.error?.code, 'webauthn_challenge_not_found');

  // list, rename, last use recorded
  const listed = await c.auth.passkey.list();
  assert.equal(listed.error, null);
  assert.equal(listed.data.length, 1);
  assert.equal(listed.data[0].id, registered.data.id);
  assert.ok(listed.data[0].last_used_at);
  const renamed = await c.auth.passkey.update({ passkeyId: registered.data.id, friendlyName: 'Téléphone de Mbuyi' });
  assert.equal(renamed.error, null);
  assert.equal(renamed.data.friendly_name, 'Téléphone de Mbuyi');
  const tooLong = await c.auth.passkey.update({ passkeyId: registered.data.id, friendlyName: 'x'.repeat(121) });
  assert.equal(tooLong.error?.code, 'validation_failed');

  // deleted: it signs in no more
  const deleted = await c.auth.passkey.delete({ passkeyId: registered.data.id });
  assert.equal(deleted.error, null);
  const later = await visitor.auth.passkey.startAuthentication();
  const refused = await visitor.auth.passkey.verifyAuthentication({
    challengeId: later.data.challenge_id, credential: device.get(later.data.options),
  });
  assert.equal(refused.error?.code, 'webauthn_verification_failed');
  assert.equal(refused.error?.status, 400);
});

test('answers from another origin, for another challenge, badly signed or with a replayed counter are refused', async () => {
  const { c } = await newUser('tamper');
  const device = new SoftAuthenticator(ORIGIN);
  for (const [how, expected] of [[{ origin: 'https://evil.example.test' }, 'webauthn_verification_failed'],
    [{ tamper: 'challenge' }, 'webauthn_verification_failed'],
    [{ rpId: 'evil.example.test' }, 'webauthn_verification_failed']]) {
    const start = await c.auth.passkey.startRegistration();
    const { json } = device.create(start.data.options, how);
    const res = await c.auth.passkey.verifyRegistration({ challengeId: start.data.challenge_id, credential: json });
    assert.equal(res.error?.code, expected, JSON.stringify(how));
  }
  device.credentials.length = 0;
  const ok = await registerPasskey(c, device);
  assert.equal(ok.error, null);

  const visitor = client(server);
  for (const how of [{ origin: 'https://evil.example.test' }, { tamper: 'signature' }]) {
    const options = await visitor.auth.passkey.startAuthentication();
    const res = await visitor.auth.passkey.verifyAuthentication({
      challengeId: options.data.challenge_id, credential: device.get(options.data.options, how),
    });
    assert.equal(res.error?.code, 'webauthn_verification_failed', JSON.stringify(how));
  }
  // a counter that does not move on after a sign-in is a cloned key
  const first = await visitor.auth.passkey.startAuthentication();
  const good = await visitor.auth.passkey.verifyAuthentication({ challengeId: first.data.challenge_id, credential: device.get(first.data.options) });
  assert.equal(good.error, null, good.error?.message);
  const second = await visitor.auth.passkey.startAuthentication();
  const cloned = await visitor.auth.passkey.verifyAuthentication({
    challengeId: second.data.challenge_id, credential: device.get(second.data.options, { tamper: 'counter' }),
  });
  assert.equal(cloned.error?.code, 'webauthn_verification_failed');

  // malformed bodies are validation errors, not failures of the server
  const noId = await visitor.auth.passkey.verifyAuthentication({ challengeId: '', credential: {} });
  assert.equal(noId.error?.code, 'validation_failed');
  const badId = await visitor.auth.passkey.verifyAuthentication({ challengeId: 'nope', credential: {} });
  assert.equal(badId.error?.code, 'validation_failed');
  const garbage = await visitor.auth.passkey.startAuthentication();
  const junk = await visitor.auth.passkey.verifyAuthentication({ challengeId: garbage.data.challenge_id, credential: { id: 5 } });
  assert.equal(junk.error?.code, 'webauthn_verification_failed');
});

test('the passkey limit, the admin API, and aal2 for a user with a verified factor', async () => {
  const { c, user } = await newUser('limits');
  const device = new SoftAuthenticator(ORIGIN);
  for (let i = 0; i < 3; i += 1) assert.equal((await registerPasskey(c, device)).error, null);
  const full = await c.auth.passkey.startRegistration();
  assert.equal(full.error?.code, 'too_many_passkeys');

  const admin = client(server, server.serviceKey).auth.admin.passkey;
  const listed = await admin.listPasskeys({ userId: user.id });
  assert.equal(listed.error, null);
  assert.equal(listed.data.length, 3);
  const removed = await admin.deletePasskey({ userId: user.id, passkeyId: listed.data[0].id });
  assert.equal(removed.error, null);
  assert.equal((await admin.listPasskeys({ userId: user.id })).data.length, 2);
  const forbidden = await client(server).auth.admin.passkey.listPasskeys({ userId: user.id });
  assert.ok(forbidden.error);

  // a TOTP factor: passkeys are managed at aal2 only
  const enrolled = await c.auth.mfa.enroll({ factorType: 'totp' });
  const verified = await c.auth.mfa.challengeAndVerify({ factorId: enrolled.data.id, code: totp(enrolled.data.totp.secret) });
  assert.equal(verified.error, null);
  const aal1 = client(server);
  await aal1.auth.signInWithPassword({ email: user.email, password: PASSWORD });
  const refused = await aal1.auth.passkey.startRegistration();
  assert.equal(refused.error?.code, 'insufficient_aal');
  const allowed = await c.auth.passkey.delete({ passkeyId: listed.data[1].id });
  assert.equal(allowed.error, null);
});

test('a WebAuthn MFA factor: enrol with a create ceremony, then each sign-in reaches aal2 with an assertion', async () => {
  const { c, user } = await newUser('mfa-webauthn');
  const device = new SoftAuthenticator(ORIGIN);
  const enrolled = await c.auth.mfa.enroll({ factorType: 'webauthn', friendlyName: 'Clé de sécurité' });
  assert.equal(enrolled.error, null, enrolled.error?.message);
  assert.equal(enrolled.data.type, 'webauthn');

  const create = await c.auth.mfa.challenge({ factorId: enrolled.data.id, webauthn: { rpId: RP_ID, rpOrigins: [ORIGIN] } });
  assert.equal(create.error, null, create.error?.message);
  assert.equal(create.data.webauthn.type, 'create');
  // supabase-js turned the options into ArrayBuffers for the browser; the authenticator reads JSON
  const publicKey = create.data.webauthn.credential_options.publicKey;
  const options = { ...publicKey, challenge: Buffer.from(publicKey.challenge).toString('base64url'), user: { ...publicKey.user, id: Buffer.from(publicKey.user.id).toString('base64url') } };
  const { json } = device.create(options);
  const verified = await c.auth.mfa.verify({
    factorId: enrolled.data.id,
    challengeId: create.data.id,
    webauthn: { type: 'create', rpId: RP_ID, rpOrigins: [ORIGIN], credential_response: asBrowserCredential(json) },
  });
  assert.equal(verified.error, null, verified.error?.message);
  assert.equal(claims(verified.data).aal, 'aal2');
  assert.ok(claims(verified.data).amr.some((m) => m.method === 'mfa/webauthn'));
  const factors = await c.auth.mfa.listFactors();
  assert.equal(factors.data.webauthn?.length ?? factors.data.all.filter((f) => f.factor_type === 'webauthn').length, 1);

  // a new sign-in: aal1, then an assertion by the registered key
  const later = client(server);
  await later.auth.signInWithPassword({ email: user.email, password: PASSWORD });
  const level = await later.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.equal(level.data.nextLevel, 'aal2');
  const request = await later.auth.mfa.challenge({ factorId: enrolled.data.id, webauthn: { rpId: RP_ID, rpOrigins: [ORIGIN] } });
  assert.equal(request.data.webauthn.type, 'request');
  const pk = request.data.webauthn.credential_options.publicKey;
  const requestJson = {
    rpId: pk.rpId,
    challenge: Buffer.from(pk.challenge).toString('base64url'),
    allowCredentials: pk.allowCredentials.map((a) => ({ id: Buffer.from(a.id).toString('base64url') })),
  };
  // a bad signature is refused and spends the challenge
  const bad = await later.auth.mfa.verify({
    factorId: enrolled.data.id, challengeId: request.data.id,
    webauthn: { type: 'request', rpId: RP_ID, credential_response: asBrowserCredential(device.get(requestJson, { tamper: 'signature' })) },
  });
  assert.equal(bad.error?.code, 'webauthn_verification_failed');
  const spent = await later.auth.mfa.verify({
    factorId: enrolled.data.id, challengeId: request.data.id,
    webauthn: { type: 'request', rpId: RP_ID, credential_response: asBrowserCredential(device.get(requestJson)) },
  });
  assert.equal(spent.error?.code, 'mfa_factor_not_found');

  const fresh = await later.auth.mfa.challenge({ factorId: enrolled.data.id, webauthn: { rpId: RP_ID } });
  const fpk = fresh.data.webauthn.credential_options.publicKey;
  const ok = await later.auth.mfa.verify({
    factorId: enrolled.data.id, challengeId: fresh.data.id,
    webauthn: {
      type: 'request', rpId: RP_ID,
      credential_response: asBrowserCredential(device.get({ rpId: fpk.rpId, challenge: Buffer.from(fpk.challenge).toString('base64url'), allowCredentials: fpk.allowCredentials.map((a) => ({ id: Buffer.from(a.id).toString('base64url') })) })),
    },
  });
  assert.equal(ok.error, null, ok.error?.message);
  assert.equal(claims(ok.data).aal, 'aal2');
});

test('switched off, passkeys and WebAuthn factors answer GoTrue\'s disabled errors', async () => {
  const c = client(off);
  const start = await c.auth.passkey.startAuthentication();
  assert.equal(start.error?.code, 'passkey_disabled');
  assert.equal(start.error?.status, 404);
  const address = email('off');
  await client(off, off.serviceKey).auth.admin.createUser({ email: address, password: PASSWORD, email_confirm: true });
  await c.auth.signInWithPassword({ email: address, password: PASSWORD });
  const enrolled = await c.auth.mfa.enroll({ factorType: 'webauthn' });
  assert.equal(enrolled.error?.code, 'mfa_webauthn_enroll_not_enabled');
  assert.equal(enrolled.error?.status, 422);
});
