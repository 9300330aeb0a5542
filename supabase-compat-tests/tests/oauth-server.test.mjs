// The OAuth 2.1 server (round 3, item 9) through supabase-js itself: the admin API registers and
// manages a third-party app (`auth.admin.oauth.*`), a signed-in user's consent page reads and
// answers the request (`auth.oauth.getAuthorizationDetails` / `approveAuthorization` /
// `denyAuthorization`), the app exchanges its code with PKCE S256 at /oauth/token, and the user
// lists and revokes the grant (`auth.oauth.listGrants` / `revokeGrant`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startServer } from '../lib/server.mjs';
import { client, email } from '../lib/auth.mjs';

const REDIRECT = 'https://app.example.test/callback';
const VERIFIER = crypto.randomBytes(32).toString('base64url');
const CHALLENGE = crypto.createHash('sha256').update(VERIFIER).digest('base64url');
let server;
let admin;

before(async () => {
  server = await startServer({ OAUTH_SERVER_ENABLED: 'true', OAUTH_SERVER_AUTHORIZATION_PATH: '/oauth/consent' });
  admin = client(server, server.serviceKey).auth.admin;
});
after(async () => { await server?.stop(); });

async function signedIn() {
  const address = email('oauth');
  const created = await admin.createUser({ email: address, password: 'password-oauth-1', email_confirm: true });
  assert.equal(created.error, null);
  const c = client(server);
  const { data, error } = await c.auth.signInWithPassword({ email: address, password: 'password-oauth-1' });
  assert.equal(error, null);
  return { c, user: data.user };
}

/** The app sends the user to /oauth/authorize: the id of the request the consent page gets. */
async function authorize(clientId) {
  const query = new URLSearchParams({
    client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid email', state: 's1',
    code_challenge: CHALLENGE, code_challenge_method: 'S256',
  });
  const res = await fetch(`${server.url}/auth/v1/oauth/authorize?${query}`, { redirect: 'manual' });
  assert.equal(res.status, 302);
  const location = new URL(res.headers.get('location'));
  assert.equal(location.pathname, '/oauth/consent');
  return location.searchParams.get('authorization_id');
}

async function exchange(clientId, secret, form) {
  const res = await fetch(`${server.url}/auth/v1/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: await res.json() };
}

test('the admin API registers, lists, updates, regenerates and deletes a client', async () => {
  const created = await admin.oauth.createClient({ client_name: 'Carnet', redirect_uris: [REDIRECT] });
  assert.equal(created.error, null);
  const { client_id: id, client_secret: secret } = created.data;
  assert.ok(secret);
  assert.deepEqual(created.data.grant_types, ['authorization_code', 'refresh_token']);
  assert.deepEqual(created.data.response_types, ['code']);

  const got = await admin.oauth.getClient(id);
  assert.equal(got.error, null);
  assert.equal(got.data.client_secret, undefined);
  const listed = await admin.oauth.listClients();
  assert.ok(listed.data.clients.some((c) => c.client_id === id));
  const updated = await admin.oauth.updateClient(id, { logo_uri: 'https://app.example.test/logo.png' });
  assert.equal(updated.data.logo_uri, 'https://app.example.test/logo.png');
  assert.equal(updated.data.client_name, 'Carnet');
  const regenerated = await admin.oauth.regenerateClientSecret(id);
  assert.notEqual(regenerated.data.client_secret, secret);

  const refused = await admin.oauth.createClient({ client_name: 'Nothing', redirect_uris: [] });
  assert.match(refused.error.message, /redirect_uris is required/);
  assert.equal((await admin.oauth.deleteClient(id)).error, null);
  const gone = await admin.oauth.getClient(id);
  assert.equal(gone.data, null);
  assert.equal(gone.error.code, 'oauth_client_not_found');
});

test('a user approves on the consent page, the app exchanges its code with PKCE, the user revokes the grant', async () => {
  const { data: app } = await admin.oauth.createClient({ client_name: 'Carnet', redirect_uris: [REDIRECT] });
  const { c, user } = await signedIn();
  const authorizationId = await authorize(app.client_id);

  const details = await c.auth.oauth.getAuthorizationDetails(authorizationId);
  assert.equal(details.error, null);
  assert.equal(details.data.client.name, 'Carnet');
  assert.equal(details.data.user.id, user.id);
  assert.equal(details.data.scope, 'openid email');
  const approved = await c.auth.oauth.approveAuthorization(authorizationId, { skipBrowserRedirect: true });
  assert.equal(approved.error, null);
  const back = new URL(approved.data.redirect_url);
  assert.equal(back.searchParams.get('state'), 's1');
  const code = back.searchParams.get('code');

  const wrong = await exchange(app.client_id, app.client_secret, { grant_type: 'authorization_code', code, code_verifier: 'x'.repeat(43) });
  assert.equal(wrong.body.error, 'invalid_grant');
  const tokens = await exchange(app.client_id, app.client_secret, { grant_type: 'authorization_code', code, code_verifier: VERIFIER });
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  const claims = JSON.parse(Buffer.from(tokens.body.access_token.split('.')[1], 'base64url'));
  assert.equal(claims.sub, user.id);
  assert.equal(claims.client_id, app.client_id);
  const reused = await exchange(app.client_id, app.client_secret, { grant_type: 'authorization_code', code, code_verifier: VERIFIER });
  assert.equal(reused.body.error, 'invalid_grant');
  const refreshed = await exchange(app.client_id, app.client_secret, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token });
  assert.equal(refreshed.status, 200);

  const grants = await c.auth.oauth.listGrants();
  assert.equal(grants.error, null);
  assert.deepEqual(grants.data.map((g) => g.client.id), [app.client_id]);
  assert.deepEqual(grants.data[0].scopes, ['openid', 'email']);
  assert.equal((await c.auth.oauth.revokeGrant({ clientId: app.client_id })).error, null);
  assert.deepEqual((await c.auth.oauth.listGrants()).data, []);
  const after = await exchange(app.client_id, app.client_secret, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token });
  assert.equal(after.status, 400);
});

test('a user who denies is sent back to the app with access_denied', async () => {
  const { data: app } = await admin.oauth.createClient({ client_name: 'Carnet', redirect_uris: [REDIRECT] });
  const { c } = await signedIn();
  const authorizationId = await authorize(app.client_id);
  // nobody opened it yet: not the user's to answer
  const early = await c.auth.oauth.denyAuthorization(authorizationId, { skipBrowserRedirect: true });
  assert.equal(early.error.code, 'oauth_authorization_not_found');
  assert.equal((await c.auth.oauth.getAuthorizationDetails(authorizationId)).error, null);
  const denied = await c.auth.oauth.denyAuthorization(authorizationId, { skipBrowserRedirect: true });
  assert.equal(denied.error, null);
  const back = new URL(denied.data.redirect_url);
  assert.equal(back.searchParams.get('error'), 'access_denied');
  assert.equal(back.searchParams.get('code'), null);
});
