// Auth settings, mail templates, signing keys and the operator's TOTP in Chromium against the
// real server: sign-ups turned off in Studio are refused by /auth/v1/signup, and work again when
// turned back on; an edited confirmation mail is the one a sign-up receives in the inbox; a
// rotation adds a key to the JWKS; SMTP pointed at a (Node, TCP) mail server in the form carries
// the next recovery mail, its password write-only; an operator enrols TOTP and signs in with a
// code; axe on each screen. Screenshots go to docs/studio/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeClean, DEMO, launchBrowser, startStack, studioApi } from './stack.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const docs = path.resolve(here, '../../docs/studio');

let stack;
let browser;
let page;
let publishable;

const axe = (name) => axeClean(page, name);
const nav = () => page.getByRole('navigation', { name: 'Main' });

/** RFC 6238 (HMAC-SHA1, 30 s, 6 digits) of a base32 secret at time step `step`. */
function totp(secret, step) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** A sign-up through /auth/v1/signup as supabase-js sends it: the status and GoTrue's error code. */
async function signUp(email) {
  return page.evaluate(
    async ({ email, key }) => {
      const res = await fetch('/auth/v1/signup', {
        method: 'POST',
        headers: { apikey: key, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
        body: JSON.stringify({ email, password: 'E2e-Passw0rd-2026' }),
      });
      const body = await res.json();
      return { status: res.status, code: body.code ?? null };
    },
    { email, key: publishable },
  );
}

const inbox = (to) => page.evaluate(async (to) => (await (await fetch(`/inbox/api/messages?to=${encodeURIComponent(to)}`)).json()).messages, to);
const jwksCount = () => page.evaluate(async () => (await (await fetch('/auth/v1/.well-known/jwks.json', { cache: 'no-store' })).json()).keys.length);

async function signIn() {
  await page.getByLabel('E-mail').fill(stack.operator.email);
  await page.getByLabel('Password').fill(stack.operator.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

before(async () => {
  stack = await startStack();
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  page = await context.newPage();
  page.setDefaultTimeout(15000);
  page.on('pageerror', (e) => console.error('[pageerror]', e.message));
  await page.goto(`${stack.baseUrl}/studio`);
  await signIn();
  await nav().waitFor();
  await nav().getByRole('link', { name: 'API & keys' }).click();
  const key = page.getByLabel('Publishable key', { exact: true });
  await key.waitFor();
  publishable = (await key.innerText()).trim();
});

after(async () => {
  await browser?.close();
  await stack?.stop();
});

test('sign-ups turned off in Auth settings are refused at once, and work again when turned back on', async () => {
  await nav().getByRole('link', { name: 'Auth settings' }).click();
  const off = page.getByLabel('Disable new sign-ups');
  await off.waitFor();
  assert.equal(await off.isChecked(), false);
  await axe('auth settings');
  await off.check();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved: DISABLE_SIGNUP' }).waitFor();
  assert.deepEqual(await signUp('refused@e2e.test'), { status: 422, code: 'signup_disabled' });
  await page.getByRole('button', { name: 'Reset DISABLE_SIGNUP to its start-up value' }).waitFor();
  await page.screenshot({ path: path.join(docs, 'auth-settings.png') });

  await page.getByRole('button', { name: 'Reset DISABLE_SIGNUP to its start-up value' }).click();
  await page.getByRole('status').filter({ hasText: 'DISABLE_SIGNUP is back to its start-up value' }).waitFor();
  assert.equal(await off.isChecked(), false);
  assert.equal((await signUp('welcome@e2e.test')).status, 200);
});

/** A mail server on 127.0.0.1 that speaks enough SMTP (EHLO, AUTH PLAIN, MAIL, RCPT, DATA) and keeps what it gets. */
function smtpSink() {
  const sink = { messages: [], logins: [] };
  sink.server = net.createServer((socket) => {
    let data = null;
    let buffered = '';
    socket.write('220 sink.e2e ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      let at;
      while ((at = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 2);
        if (data !== null) {
          if (line === '.') {
            sink.messages.push(data);
            data = null;
            socket.write('250 kept\r\n');
          } else data += `${line}\n`;
          continue;
        }
        const verb = line.split(' ')[0].toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-sink.e2e\r\n250 AUTH PLAIN\r\n');
        else if (verb === 'AUTH') {
          const [, user, pass] = Buffer.from(line.split(' ')[2] ?? '', 'base64').toString('utf8').split('\0');
          sink.logins.push(`${user}:${pass}`);
          socket.write('235 authenticated\r\n');
        } else if (verb === 'DATA') {
          data = '';
          socket.write('354 go on\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => {});
  });
  return new Promise((resolve) => sink.server.listen(0, '127.0.0.1', () => resolve({ ...sink, port: sink.server.address().port })));
}

test('SMTP set in Auth settings carries the next recovery mail, its password write-only', async () => {
  const sink = await smtpSink();
  try {
    await nav().getByRole('link', { name: 'Auth settings' }).click();
    const host = page.locator('#setting-SMTP_HOST');
    await host.waitFor();
    await host.fill('127.0.0.1');
    await page.locator('#setting-SMTP_PORT').fill(String(sink.port));
    await page.locator('#setting-SMTP_TLS').fill('none');
    await page.locator('#setting-SMTP_USER').fill('mailer');
    await page.locator('#secret-SMTP_PASS').fill('e2e-smtp-pass');
    await page.locator('#setting-SMTP_SENDER_NAME').fill('Kinshasa Auto desk');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: SMTP_HOST' }).waitFor();
    await page.getByRole('button', { name: 'Remove the secret SMTP_PASS' }).waitFor();
    assert.equal(await page.locator('#secret-SMTP_PASS').inputValue(), '', 'the password is not shown again');
    assert.match(await page.locator('#secret-SMTP_PASS').getAttribute('placeholder'), /set; type to replace/);
    await page.getByRole('heading', { name: 'SMTP (outgoing mail)' }).scrollIntoViewIfNeeded();
    await axe('auth settings, SMTP');
    await page.screenshot({ path: path.join(docs, 'auth-settings-smtp.png') });

    const settings = await page.evaluate(async () => (await fetch('/studio/api/auth/settings')).text());
    assert.ok(!settings.includes('e2e-smtp-pass'), 'the browser never receives the password');
    const status = await page.evaluate(async (email) => {
      const res = await fetch('/auth/v1/recover', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
      return res.status;
    }, DEMO.email);
    assert.equal(status, 200);
    for (let i = 0; i < 50 && !sink.messages.length; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(sink.messages.length, 1, 'the mail reached the SMTP server set in the form');
    assert.match(sink.messages[0], /From: "Kinshasa Auto desk"/);
    assert.deepEqual(sink.logins, ['mailer:e2e-smtp-pass']);

    // Back to the environment: the development inbox.
    await page.getByRole('button', { name: 'Reset SMTP_HOST to its start-up value' }).click();
    await page.getByRole('status').filter({ hasText: 'SMTP_HOST is back to its start-up value' }).waitFor();
    assert.equal(await host.inputValue(), '');
  } finally {
    sink.server.close();
    const smtp = ['SMTP_HOST', 'SMTP_PORT', 'SMTP_TLS', 'SMTP_USER', 'SMTP_SENDER_NAME'];
    await studioApi(page, stack, 'PUT', '/auth/settings', { settings: Object.fromEntries(smtp.map((n) => [n, null])), secrets: { SMTP_PASS: null } });
  }
});

test('the confirmation mail edited in Studio is the one a sign-up receives in the inbox', async () => {
  await nav().getByRole('link', { name: 'Mail templates' }).click();
  await page.getByRole('button', { name: 'Confirm sign-up' }).waitFor();
  await page.getByLabel('Subject').fill('Welcome to Kinshasa Auto');
  await page.getByLabel('HTML body').fill('<h2>Hello {{ .Email }}</h2><p><a href="{{ .ConfirmationURL }}">Confirm your rental account</a></p>');
  await page.getByTestId('preview-subject').filter({ hasText: 'Welcome to Kinshasa Auto' }).waitFor();
  const frame = page.frameLocator('iframe[title="Rendered mail"]');
  await frame.getByText(`Hello ${stack.operator.email}`).waitFor();
  await axe('mail templates');
  await page.screenshot({ path: path.join(docs, 'auth-templates.png') });
  await page.getByRole('button', { name: 'Save template' }).click();
  await page.getByRole('status').filter({ hasText: 'Saved: the next mail uses it.' }).waitFor();

  assert.equal((await signUp('guest@e2e.test')).status, 200);
  const [mail] = await inbox('guest@e2e.test');
  assert.equal(mail.subject, 'Welcome to Kinshasa Auto');
  assert.ok(mail.html.includes('Hello guest@e2e.test') && mail.text.includes('Confirm your rental account'), mail.text);

  await page.getByLabel('Send a test to').fill('checker@e2e.test');
  await page.getByRole('button', { name: 'Send test' }).click();
  await page.getByRole('status').filter({ hasText: 'Test sent to checker@e2e.test' }).waitFor();
  const [test] = await inbox('checker@e2e.test');
  assert.equal(test.subject, 'Welcome to Kinshasa Auto');
});

test('rotating the signing keys adds a key to the JWKS', async () => {
  await nav().getByRole('link', { name: 'Signing keys' }).click();
  await page.getByRole('cell', { name: 'current' }).waitFor();
  const before = await jwksCount();
  await page.getByRole('button', { name: 'Rotate keys' }).click();
  await page.getByRole('status').filter({ hasText: 'now signs new tokens' }).waitFor();
  assert.equal(await jwksCount(), before + 1);
  await page.getByRole('cell', { name: 'previous' }).waitFor();
  assert.match(await page.getByLabel('JWKS', { exact: true }).innerText(), /"kty": "EC"/);
  await axe('signing keys');
  await page.screenshot({ path: path.join(docs, 'auth-signing-keys.png') });
});

test('an operator enrols TOTP, and the next sign-in asks for a code', async () => {
  await page.getByRole('link', { name: stack.operator.email }).click();
  await page.getByRole('button', { name: 'Set up TOTP' }).click();
  const secret = (await page.getByLabel('TOTP secret').innerText()).trim();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  await axe('operator TOTP enrolment');
  await page.screenshot({ path: path.join(docs, 'operator-totp.png') });
  const step = Math.floor(Date.now() / 1000 / 30);
  await page.getByLabel('Code from your authenticator app').fill(totp(secret, step));
  await page.getByRole('button', { name: 'Verify and turn on' }).click();
  await page.getByRole('status').filter({ hasText: 'Two-factor sign-in is on' }).waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await signIn();
  const code = page.getByLabel('Authentication code');
  await code.waitFor();
  await axe('sign-in code');
  // The next step's code (accepted for clock drift): the one just used is not accepted twice.
  await code.fill(totp(secret, step + 1));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await nav().waitFor();
});
