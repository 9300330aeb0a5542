// /auth/v1 through the unchanged supabase-js auth client: sign-up and confirmation through the
// development inbox, sign-in, refresh-token rotation and reuse, sign-out scopes, recovery, e-mail
// change, PKCE, the admin API, errors, rate limits and real SMTP delivery.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, sql } from '../lib/server.mjs';
import { signJwt } from '../lib/jwt.mjs';
import { client, email, fragment, mail, memoryStorage, startSmtpSink } from '../lib/auth.mjs';
import { totp } from '../lib/totp.mjs';

const SITE = 'http://localhost:3000';
const relaxed = {
  SITE_URL: SITE,
  URI_ALLOW_LIST: 'http://app.test/**',
  REFRESH_TOKEN_REUSE_INTERVAL: '1',
  SMTP_MAX_FREQUENCY: '0',
  RATE_LIMIT_TOKEN_REFRESH: '100000',
  RATE_LIMIT_VERIFY: '100000',
  RATE_LIMIT_OTP: '100000',
  RATE_LIMIT_EMAIL_SENT: '100000',
};

let server;
before(async () => { server = await startServer(relaxed); });
after(async () => { await server?.stop(); });

/** Sign up, confirm through the inbox, return the address and password. */
async function confirmedUser(tag = 'confirmed', password = 'password-1') {
  const address = email(tag);
  const { error } = await client(server).auth.signUp({ email: address, password });
  assert.equal(error, null);
  const m = await mail(server, address, 'confirmation');
  const { error: verifyError } = await client(server).auth.verifyOtp({ token_hash: m.tokenHash, type: 'signup' });
  assert.equal(verifyError, null);
  return { address, password };
}

async function signIn(address, password) {
  const c = client(server);
  const { data, error } = await c.auth.signInWithPassword({ email: address, password });
  assert.equal(error, null, error?.message);
  return { c, session: data.session };
}

describe('sign-up and confirmation', () => {
  test('sign-up returns the user without a session and mails a confirmation', async () => {
    const address = email('signup');
    const { data, error } = await client(server).auth.signUp({
      email: address, password: 'password-1', options: { data: { full_name: 'Ada' } },
    });
    assert.equal(error, null);
    assert.equal(data.session, null);
    assert.equal(data.user.email, address);
    assert.equal(data.user.user_metadata.full_name, 'Ada');
    assert.equal(data.user.email_confirmed_at, undefined);
    assert.ok(data.user.confirmation_sent_at);
    assert.deepEqual(data.user.app_metadata, { provider: 'email', providers: ['email'] });
    assert.equal(data.user.identities.length, 1);
    const m = await mail(server, address, 'confirmation');
    assert.match(m.link, /\/auth\/v1\/verify\?token=[0-9a-f]{56}&type=signup&redirect_to=/);
    assert.match(m.code, /^\d{6}$/);
  });

  test('verifyOtp with the token hash confirms and signs in', async () => {
    const address = email('hash');
    await client(server).auth.signUp({ email: address, password: 'password-1' });
    const m = await mail(server, address, 'confirmation');
    const { data, error } = await client(server).auth.verifyOtp({ token_hash: m.tokenHash, type: 'signup' });
    assert.equal(error, null);
    assert.ok(data.session.access_token);
    assert.equal(data.user.email, address);
    assert.ok(data.user.email_confirmed_at);
    const again = await client(server).auth.verifyOtp({ token_hash: m.tokenHash, type: 'signup' });
    assert.equal(again.error.code, 'otp_expired');
    assert.equal(again.error.status, 403);
  });

  test('verifyOtp with the six-digit code and the address works too', async () => {
    const address = email('code');
    await client(server).auth.signUp({ email: address, password: 'password-1' });
    const m = await mail(server, address, 'confirmation');
    const { data, error } = await client(server).auth.verifyOtp({ email: address, token: m.code, type: 'email' });
    assert.equal(error, null);
    assert.equal(data.user.email, address);
  });

  test('the GET link redirects with the session in the fragment', async () => {
    const address = email('link');
    await client(server).auth.signUp({ email: address, password: 'password-1', options: { emailRedirectTo: 'http://app.test/welcome' } });
    const m = await mail(server, address, 'confirmation');
    const res = await fetch(m.link, { redirect: 'manual' });
    assert.equal(res.status, 303);
    const location = res.headers.get('location');
    assert.ok(location.startsWith('http://app.test/welcome#'), location);
    const f = fragment(location);
    assert.equal(f.token_type, 'bearer');
    assert.equal(f.type, 'signup');
    assert.equal(f.expires_in, '3600');
    assert.ok(Number(f.expires_at) > Date.now() / 1000);
    const { data, error } = await client(server).auth.getUser(f.access_token);
    assert.equal(error, null);
    assert.equal(data.user.email, address);
    const reused = await fetch(m.link, { redirect: 'manual' });
    const err = fragment(reused.headers.get('location'));
    assert.equal(err.error, 'access_denied');
    assert.equal(err.error_code, 'otp_expired');
    assert.equal(err.error_description, 'Email link is invalid or has expired');
  });

  test('a redirect outside SITE_URL and the allow list falls back to SITE_URL', async () => {
    const address = email('evil');
    await client(server).auth.signUp({ email: address, password: 'password-1', options: { emailRedirectTo: 'http://evil.test/' } });
    const m = await mail(server, address, 'confirmation');
    const res = await fetch(m.link, { redirect: 'manual' });
    assert.ok(res.headers.get('location').startsWith(`${SITE}#access_token=`));
  });

  test('signing up again with a confirmed address looks like a new sign-up', async () => {
    const { address } = await confirmedUser('again');
    const { data, error } = await client(server).auth.signUp({ email: address, password: 'another-1' });
    assert.equal(error, null);
    assert.equal(data.session, null);
    assert.equal(data.user.email, address);
    assert.deepEqual(data.user.identities, []);
  });

  test('a short password is refused as weak with its reasons', async () => {
    const { error } = await client(server).auth.signUp({ email: email('weak'), password: '123' });
    assert.equal(error.name, 'AuthWeakPasswordError');
    assert.equal(error.code, 'weak_password');
    assert.equal(error.status, 422);
    assert.deepEqual(error.reasons, ['length']);
  });

  test('anonymous sign-ins are refused as GoTrue does when they are off', async () => {
    const { error } = await client(server).auth.signInAnonymously();
    assert.equal(error.code, 'anonymous_provider_disabled');
    assert.equal(error.status, 422);
  });

  test('an invalid address is refused with validation_failed', async () => {
    const { error } = await client(server).auth.signUp({ email: 'not-an-address', password: 'password-1' });
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.status, 400);
  });

  test('a trigger on auth.users sees raw_user_meta_data, as on Supabase', async () => {
    await sql(server.dbUrl, `
      create table if not exists public.trigger_probe (id uuid primary key, full_name text);
      create or replace function public.probe_new_user() returns trigger language plpgsql security definer
        set search_path = '' as $$
      begin
        insert into public.trigger_probe (id, full_name) values (new.id, new.raw_user_meta_data ->> 'full_name');
        return new;
      end $$;
      drop trigger if exists probe_on_user_created on auth.users;
      create trigger probe_on_user_created after insert on auth.users for each row execute procedure public.probe_new_user();
    `);
    const { data } = await client(server).auth.signUp({
      email: email('trigger'), password: 'password-1', options: { data: { full_name: 'Grace' } },
    });
    const { rows } = await sql(server.dbUrl, 'select full_name from public.trigger_probe where id = $1', [data.user.id]);
    assert.equal(rows[0].full_name, 'Grace');
  });
});

describe('sign-in', () => {
  test('password sign-in returns a GoTrue session and getUser reads the user', async () => {
    const { address, password } = await confirmedUser('signin');
    const { c, session } = await signIn(address, password);
    assert.equal(session.token_type, 'bearer');
    assert.equal(session.expires_in, 3600);
    assert.ok(session.refresh_token.length >= 12);
    const claims = JSON.parse(Buffer.from(session.access_token.split('.')[1], 'base64url'));
    assert.equal(claims.sub, session.user.id);
    assert.equal(claims.aud, 'authenticated');
    assert.equal(claims.role, 'authenticated');
    assert.equal(claims.email, address);
    assert.equal(claims.aal, 'aal1');
    assert.equal(claims.amr[0].method, 'password');
    assert.equal(claims.is_anonymous, false);
    assert.ok(claims.session_id);
    assert.equal(claims.iss, `${server.url}/auth/v1`);
    const { data, error } = await c.auth.getUser(session.access_token);
    assert.equal(error, null);
    assert.equal(data.user.id, session.user.id);
    assert.ok(data.user.last_sign_in_at);
  });

  test('a wrong password and an unknown user give the same error', async () => {
    const { address } = await confirmedUser('wrong');
    const wrong = await client(server).auth.signInWithPassword({ email: address, password: 'nope-nope' });
    const unknown = await client(server).auth.signInWithPassword({ email: email('ghost'), password: 'nope-nope' });
    for (const { error } of [wrong, unknown]) {
      assert.equal(error.code, 'invalid_credentials');
      assert.equal(error.message, 'Invalid login credentials');
      assert.equal(error.status, 400);
    }
  });

  test('an unconfirmed user with the right password gets email_not_confirmed', async () => {
    const address = email('unconfirmed');
    await client(server).auth.signUp({ email: address, password: 'password-1' });
    const { error } = await client(server).auth.signInWithPassword({ email: address, password: 'password-1' });
    assert.equal(error.code, 'email_not_confirmed');
    assert.equal(error.message, 'Email not confirmed');
    const wrong = await client(server).auth.signInWithPassword({ email: address, password: 'bad-password' });
    assert.equal(wrong.error.code, 'invalid_credentials');
  });

  test('the user token runs /rest/v1 as authenticated with auth.uid() = the user', async () => {
    await sql(server.dbUrl, `
      create or replace function public.whoami() returns json language sql stable
        as $$ select json_build_object('uid', auth.uid(), 'role', current_user) $$;
      notify pgrst, 'reload schema';
    `);
    const { address, password } = await confirmedUser('rest');
    const { c, session } = await signIn(address, password);
    let result;
    for (let i = 0; i < 50; i += 1) {
      result = await c.rpc('whoami');
      if (!result.error) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(result.error, null);
    assert.deepEqual(result.data, { uid: session.user.id, role: 'authenticated' });
  });
});

describe('refresh tokens', () => {
  test('refresh rotates; reuse inside the interval returns the current token; outside it revokes the session', async () => {
    const { address, password } = await confirmedUser('refresh');
    const { c, session } = await signIn(address, password);
    const first = session.refresh_token;
    const { data, error } = await c.auth.refreshSession({ refresh_token: first });
    assert.equal(error, null);
    const second = data.session.refresh_token;
    assert.notEqual(second, first);
    const reuse = await client(server).auth.refreshSession({ refresh_token: first });
    assert.equal(reuse.error, null);
    assert.equal(reuse.data.session.refresh_token, second);
    await new Promise((r) => setTimeout(r, 2100));
    const late = await client(server).auth.refreshSession({ refresh_token: first });
    assert.equal(late.error.code, 'refresh_token_already_used');
    assert.equal(late.error.message, 'Invalid Refresh Token: Already Used');
    const family = await client(server).auth.refreshSession({ refresh_token: second });
    assert.ok(family.error, 'the current token of the session is revoked too');
  });

  test('an unknown refresh token is refresh_token_not_found', async () => {
    const { error } = await client(server).auth.refreshSession({ refresh_token: 'not-a-token' });
    assert.equal(error.code, 'refresh_token_not_found');
    assert.equal(error.status, 400);
  });
});

describe('sign-out', () => {
  async function threeSessions() {
    const { address, password } = await confirmedUser('logout');
    return Promise.all([signIn(address, password), signIn(address, password), signIn(address, password)]);
  }
  const refreshes = async ({ session }) => !(await client(server).auth.refreshSession({ refresh_token: session.refresh_token })).error;

  test('scope others ends the other sessions only', async () => {
    const [a, b, cc] = await threeSessions();
    await a.c.auth.setSession({ access_token: a.session.access_token, refresh_token: a.session.refresh_token });
    const { error } = await a.c.auth.signOut({ scope: 'others' });
    assert.equal(error, null);
    assert.equal(await refreshes(b), false);
    assert.equal(await refreshes(cc), false);
    assert.equal(await refreshes(a), true);
  });

  test('scope local ends this session only', async () => {
    const [a, b] = await threeSessions();
    const res = await fetch(`${server.url}/auth/v1/logout?scope=local`, {
      method: 'POST', headers: { apikey: server.anonKey, Authorization: `Bearer ${a.session.access_token}` },
    });
    assert.equal(res.status, 204);
    assert.equal(await refreshes(a), false);
    assert.equal(await refreshes(b), true);
    const { error } = await client(server).auth.getUser(a.session.access_token);
    assert.equal(error.name, 'AuthSessionMissingError');
  });

  test('scope global ends every session', async () => {
    const [a, b, cc] = await threeSessions();
    await a.c.auth.setSession({ access_token: a.session.access_token, refresh_token: a.session.refresh_token });
    const { error } = await a.c.auth.signOut({ scope: 'global' });
    assert.equal(error, null);
    for (const s of [a, b, cc]) assert.equal(await refreshes(s), false);
  });
});

describe('recovery, e-mail change, magic link, PKCE', () => {
  test('resetPasswordForEmail then updateUser({password})', async () => {
    const { address } = await confirmedUser('recover');
    const { error } = await client(server).auth.resetPasswordForEmail(address, { redirectTo: 'http://app.test/reset' });
    assert.equal(error, null);
    const m = await mail(server, address, 'recovery');
    assert.match(m.link, /type=recovery/);
    const c = client(server);
    const verified = await c.auth.verifyOtp({ token_hash: m.tokenHash, type: 'recovery' });
    assert.equal(verified.error, null);
    await c.auth.setSession(verified.data.session);
    const { error: updateError } = await c.auth.updateUser({ password: 'brand-new-password' });
    assert.equal(updateError, null);
    await signIn(address, 'brand-new-password');
    const old = await client(server).auth.signInWithPassword({ email: address, password: 'password-1' });
    assert.equal(old.error.code, 'invalid_credentials');
  });

  test('recovery for an unknown address answers the same and sends nothing', async () => {
    const { error } = await client(server).auth.resetPasswordForEmail(email('nobody'));
    assert.equal(error, null);
  });

  test('e-mail change needs the links mailed to both addresses (secure e-mail change)', async () => {
    const { address, password } = await confirmedUser('change');
    const { c, session } = await signIn(address, password);
    await c.auth.setSession(session);
    const target = email('changed');
    const { data, error } = await c.auth.updateUser({ email: target });
    assert.equal(error, null);
    assert.equal(data.user.new_email, target);
    assert.equal(data.user.email, address);
    const toNew = await mail(server, target, 'email_change');
    const toCurrent = await mail(server, address, 'email_change');
    assert.notEqual(toNew.tokenHash, toCurrent.tokenHash);
    const first = await client(server).auth.verifyOtp({ token_hash: toNew.tokenHash, type: 'email_change' });
    assert.equal(first.error, null);
    assert.equal(first.data.session, null, 'the first link only records the confirmation');
    assert.equal((await c.auth.getUser()).data.user.email, address);
    const res = await fetch(toCurrent.link, { redirect: 'manual' });
    const f = fragment(res.headers.get('location'));
    assert.ok(f.access_token, JSON.stringify(f));
    const { data: after } = await client(server).auth.getUser(f.access_token);
    assert.equal(after.user.email, target);
    await signIn(target, password);
  });

  test('updateUser({data}) merges user metadata', async () => {
    const { address, password } = await confirmedUser('meta');
    const { c, session } = await signIn(address, password);
    await c.auth.setSession(session);
    const { data, error } = await c.auth.updateUser({ data: { theme: 'dark' } });
    assert.equal(error, null);
    assert.equal(data.user.user_metadata.theme, 'dark');
  });

  test('a magic link signs a confirmed user in with the mailed code', async () => {
    const { address } = await confirmedUser('magic');
    const { error } = await client(server).auth.signInWithOtp({ email: address, options: { shouldCreateUser: false } });
    assert.equal(error, null);
    const m = await mail(server, address, 'magic_link');
    const { data, error: verifyError } = await client(server).auth.verifyOtp({ email: address, token: m.code, type: 'email' });
    assert.equal(verifyError, null);
    assert.equal(data.user.email, address);
    assert.equal(data.session.token_type, 'bearer');
  });

  test('PKCE: the link redirects with ?code= and exchangeCodeForSession signs in', async () => {
    const c = client(server, server.anonKey, { flowType: 'pkce', storage: memoryStorage() });
    const address = email('pkce');
    const { error } = await c.auth.signUp({ email: address, password: 'password-1', options: { emailRedirectTo: 'http://app.test/cb' } });
    assert.equal(error, null);
    const m = await mail(server, address, 'confirmation');
    assert.match(m.link, /token=pkce_/);
    const res = await fetch(m.link, { redirect: 'manual' });
    const location = new URL(res.headers.get('location'));
    assert.equal(`${location.origin}${location.pathname}`, 'http://app.test/cb');
    const code = location.searchParams.get('code');
    assert.ok(code);
    const { data, error: exchangeError } = await c.auth.exchangeCodeForSession(code);
    assert.equal(exchangeError, null);
    assert.equal(data.user.email, address);
    assert.ok(data.session.access_token);
    const again = await client(server, server.anonKey, { flowType: 'pkce', storage: memoryStorage() });
    const replay = await fetch(`${server.url}/auth/v1/token?grant_type=pkce`, {
      method: 'POST', headers: { apikey: server.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ auth_code: code, code_verifier: 'x'.repeat(43) }),
    });
    assert.equal(replay.status, 404);
    assert.ok(again);
  });
});

describe('admin API', () => {
  test('the service key creates, lists, updates and deletes users', async () => {
    const admin = client(server, server.serviceKey).auth.admin;
    const address = email('admin');
    const created = await admin.createUser({ email: address, password: 'password-1', email_confirm: true, user_metadata: { a: 1 } });
    assert.equal(created.error, null);
    assert.equal(created.data.user.email, address);
    assert.ok(created.data.user.email_confirmed_at);
    await signIn(address, 'password-1');
    await admin.createUser({ email: email('admin-other'), password: 'password-1' });
    const listed = await admin.listUsers({ page: 1, perPage: 1 });
    assert.equal(listed.error, null);
    assert.equal(listed.data.users.length, 1);
    assert.ok(listed.data.total >= 2);
    assert.equal(listed.data.nextPage, 2);
    const fetched = await admin.getUserById(created.data.user.id);
    assert.equal(fetched.data.user.email, address);
    const updated = await admin.updateUserById(created.data.user.id, { user_metadata: { b: 2 }, app_metadata: { plan: 'pro' } });
    assert.equal(updated.error, null);
    assert.deepEqual(updated.data.user.user_metadata, { a: 1, b: 2 });
    assert.equal(updated.data.user.app_metadata.plan, 'pro');
    const deleted = await admin.deleteUser(created.data.user.id);
    assert.equal(deleted.error, null);
    const gone = await admin.getUserById(created.data.user.id);
    assert.equal(gone.error.status, 404);
    const dup = await admin.createUser({ email: listed.data.users[0].email, password: 'password-1' });
    assert.equal(dup.error.code, 'email_exists');
  });

  test('users imported with a bcrypt hash sign in with their password', async () => {
    const admin = client(server, server.serviceKey).auth.admin;
    const address = email('bcrypt');
    // bcrypt("password-1", cost 4), made with libxcrypt's crypt(3)
    const hash = '$2b$04$abcdefghijklmnopqrstuuFrlO0nAajs7p0jHkZhhNQMFirfg0xcG';
    const { error } = await admin.createUser({ email: address, password_hash: hash, email_confirm: true });
    assert.equal(error, null);
    await signIn(address, 'password-1');
    const wrong = await client(server).auth.signInWithPassword({ email: address, password: 'password-2' });
    assert.equal(wrong.error.code, 'invalid_credentials');
  });

  test('generate_link and invite', async () => {
    const admin = client(server, server.serviceKey).auth.admin;
    const address = email('invite');
    const invited = await admin.inviteUserByEmail(address);
    assert.equal(invited.error, null);
    const m = await mail(server, address, 'invite');
    assert.match(m.link, /type=invite/);
    const link = await admin.generateLink({ type: 'magiclink', email: address });
    assert.equal(link.error, null);
    assert.equal(link.data.properties.verification_type, 'magiclink');
    const { data, error } = await client(server).auth.verifyOtp({ token_hash: link.data.properties.hashed_token, type: 'magiclink' });
    assert.equal(error, null);
    assert.equal(data.user.email, address);
  });

  test('the anon key and user tokens are refused with not_admin', async () => {
    const anon = await client(server).auth.admin.listUsers();
    assert.equal(anon.error.status, 403);
    assert.equal(anon.error.code, 'not_admin');
    const { address, password } = await confirmedUser('notadmin');
    const { session } = await signIn(address, password);
    const res = await fetch(`${server.url}/auth/v1/admin/users`, { headers: { Authorization: `Bearer ${session.access_token}` } });
    assert.equal(res.status, 403);
  });
});

describe('MFA (TOTP)', () => {
  test('enroll, challenge and verify upgrade the session to aal2; unenroll needs aal2', async () => {
    const { address, password } = await confirmedUser('mfa');
    const { c } = await signIn(address, password);
    const enrolled = await c.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone' });
    assert.equal(enrolled.error, null);
    assert.equal(enrolled.data.type, 'totp');
    assert.match(enrolled.data.totp.secret, /^[A-Z2-7]{32}$/);
    assert.match(enrolled.data.totp.uri, /^otpauth:\/\/totp\//);
    assert.match(enrolled.data.totp.qr_code, /^data:image\/svg\+xml/);
    const factorId = enrolled.data.id;

    const wrongChallenge = await c.auth.mfa.challenge({ factorId });
    const wrong = await c.auth.mfa.verify({ factorId, challengeId: wrongChallenge.data.id, code: '000000' === totp(enrolled.data.totp.secret) ? '111111' : '000000' });
    assert.equal(wrong.error.code, 'mfa_verification_failed');

    const before = await c.auth.mfa.getAuthenticatorAssuranceLevel();
    assert.equal(before.data.currentLevel, 'aal1');
    const { data, error } = await c.auth.mfa.challengeAndVerify({ factorId, code: totp(enrolled.data.totp.secret) });
    assert.equal(error, null);
    const claims = JSON.parse(Buffer.from(data.access_token.split('.')[1], 'base64url'));
    assert.equal(claims.aal, 'aal2');
    assert.ok(claims.amr.some((a) => a.method === 'totp'));
    const after = await c.auth.mfa.getAuthenticatorAssuranceLevel();
    assert.equal(after.data.currentLevel, 'aal2');
    assert.equal(after.data.nextLevel, 'aal2');

    const refreshed = await c.auth.refreshSession();
    assert.equal(JSON.parse(Buffer.from(refreshed.data.session.access_token.split('.')[1], 'base64url')).aal, 'aal2');

    const factors = await c.auth.mfa.listFactors();
    assert.equal(factors.data.totp.length, 1);
    assert.equal(factors.data.totp[0].status, 'verified');

    const other = await signIn(address, password);
    const refused = await other.c.auth.mfa.unenroll({ factorId });
    assert.equal(refused.error.code, 'insufficient_aal');
    const removed = await c.auth.mfa.unenroll({ factorId });
    assert.equal(removed.error, null);
    const { rows } = await sql(server.dbUrl, "select count(*)::int as n from auth.audit_log_entries where payload->>'action' = 'factor_in_progress'");
    assert.ok(rows[0].n >= 1);
  });
});

describe('tokens and errors', () => {
  test('a tampered JWT is refused by /auth/v1/user (403 bad_jwt, as GoTrue) and /rest/v1 (401)', async () => {
    const { address, password } = await confirmedUser('tamper');
    const { session } = await signIn(address, password);
    const [h, p, s] = session.access_token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url'));
    claims.role = 'service_role';
    const tampered = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    const { error } = await client(server).auth.getUser(tampered);
    assert.equal(error.status, 403);
    assert.equal(error.code, 'bad_jwt');
    const rest = await fetch(`${server.url}/rest/v1/`, { headers: { apikey: server.anonKey, Authorization: `Bearer ${tampered}` } });
    assert.equal(rest.status, 401);
  });

  test('an expired JWT is refused by /auth/v1/user and /rest/v1', async () => {
    const expired = signJwt({ sub: '00000000-0000-4000-8000-000000000001', role: 'authenticated', exp: 1000 }, server.jwtSecret);
    const { error } = await client(server).auth.getUser(expired);
    assert.equal(error.code, 'bad_jwt');
    const rest = await fetch(`${server.url}/rest/v1/`, { headers: { apikey: server.anonKey, Authorization: `Bearer ${expired}` } });
    assert.equal(rest.status, 401);
  });

  test('errors use {code, message} with the API version header, {code, error_code, msg} without', async () => {
    const body = JSON.stringify({ email: email('shape'), password: 'whatever-1' });
    const v2024 = await fetch(`${server.url}/auth/v1/token?grant_type=password`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' }, body,
    });
    assert.equal(v2024.headers.get('x-supabase-api-version'), '2024-01-01');
    assert.deepEqual(await v2024.json(), { code: 'invalid_credentials', message: 'Invalid login credentials' });
    const legacy = await fetch(`${server.url}/auth/v1/token?grant_type=password`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body,
    });
    assert.equal(legacy.headers.get('x-supabase-api-version'), null);
    assert.deepEqual(await legacy.json(), { code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
    const bad = await fetch(`${server.url}/auth/v1/signup`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' }, body: '{nope',
    });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).code, 'bad_json');
  });

  test('settings, health and the audit log', async () => {
    const settings = await (await fetch(`${server.url}/auth/v1/settings`)).json();
    assert.equal(settings.external.email, true);
    assert.equal(settings.disable_signup, false);
    const health = await fetch(`${server.url}/auth/v1/health`);
    assert.equal(health.status, 200);
    const { rows } = await sql(server.dbUrl, "select count(*)::int as n from auth.audit_log_entries where payload->>'action' in ('login', 'user_signedup', 'login_failed')");
    assert.ok(rows[0].n > 0);
  });
});

describe('limits and switches', () => {
  test('the token endpoint is rate limited per IP', async () => {
    const limited = await startServer({ RATE_LIMIT_TOKEN_REFRESH: '3' });
    try {
      const c = client(limited);
      const codes = [];
      for (let i = 0; i < 4; i += 1) {
        const { error } = await c.auth.signInWithPassword({ email: 'x@example.test', password: 'password-1' });
        codes.push(error.code);
      }
      assert.deepEqual(codes, ['invalid_credentials', 'invalid_credentials', 'invalid_credentials', 'over_request_rate_limit']);
    } finally {
      await limited.stop();
    }
  });

  test('mails to one user are spaced (over_email_send_rate_limit) and sign-ups can be disabled', async () => {
    const spaced = await startServer({ SMTP_MAX_FREQUENCY: '60' });
    try {
      const address = email('spaced');
      await client(spaced).auth.signUp({ email: address, password: 'password-1' });
      const { error } = await client(spaced).auth.resend({ type: 'signup', email: address });
      assert.equal(error.code, 'over_email_send_rate_limit');
      assert.equal(error.status, 429);
    } finally {
      await spaced.stop();
    }
    const closed = await startServer({ DISABLE_SIGNUP: 'true' });
    try {
      const { error } = await client(closed).auth.signUp({ email: email('closed'), password: 'password-1' });
      assert.equal(error.code, 'signup_disabled');
    } finally {
      await closed.stop();
    }
  });

  test('MAILER_AUTOCONFIRM signs up with a session', async () => {
    const auto = await startServer({ MAILER_AUTOCONFIRM: 'true' });
    try {
      const { data, error } = await client(auto).auth.signUp({ email: email('auto'), password: 'password-1' });
      assert.equal(error, null);
      assert.ok(data.session.access_token);
      assert.ok(data.user.email_confirmed_at);
    } finally {
      await auto.stop();
    }
  });
});

describe('SMTP', () => {
  test('with SMTP_HOST set, the confirmation mail is delivered over SMTP', async () => {
    const sink = await startSmtpSink();
    // Phone sign-in off (the rental project turns it on, and texts without a provider keep the inbox).
    const smtp = await startServer({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(sink.port), SMTP_ADMIN_EMAIL: 'auth@site.test', SMTP_SENDER_NAME: 'Site', EXTERNAL_PHONE_ENABLED: 'false' });
    try {
      const address = email('smtp');
      const { error } = await client(smtp).auth.signUp({ email: address, password: 'password-1' });
      assert.equal(error, null);
      assert.equal(sink.messages.length, 1);
      const [message] = sink.messages;
      assert.match(message.from, /auth@site\.test/);
      assert.match(message.to[0], new RegExp(address.replace(/[.]/g, '\\.')));
      // The rental project's subject (web/supabase/config.toml), which the server runs here.
      assert.match(message.data, /Subject: Confirmez votre adresse e-mail/);
      assert.match(message.data, /auth\/v1\/verify\?token=/);
      const inbox = await fetch(`${smtp.url}/inbox/api/messages`);
      assert.equal(inbox.status, 404);
    } finally {
      await smtp.stop();
      await sink.close();
    }
  });
});
