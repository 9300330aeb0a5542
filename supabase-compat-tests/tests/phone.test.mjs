// Phone sign-in through supabase-js, with codes read from the development inbox: signUp({phone,
// password}) then verifyOtp({type: 'sms'}), signInWithOtp({phone}), signInWithPassword({phone}),
// updateUser({phone}) then verifyOtp({type: 'phone_change'}). Numbers are DRC mobiles (+243).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../lib/server.mjs';
import { client } from '../lib/auth.mjs';

let server;
before(async () => {
  server = await startServer({ EXTERNAL_PHONE_ENABLED: 'true', MFA_PHONE_ENROLL_ENABLED: 'true', MFA_PHONE_VERIFY_ENABLED: 'true' });
});
after(async () => { await server?.stop(); });

/** The newest code texted to `phone` (`+243…`), waiting up to 5 s. */
async function code(phone, kind = 'sms') {
  const deadline = Date.now() + 5000;
  for (;;) {
    const res = await fetch(`${server.url}/inbox/api/messages?to=${encodeURIComponent(phone)}`);
    const found = (await res.json()).messages.find((m) => m.kind === kind);
    if (found) return found.text.match(/(\d{6})$/)[1];
    if (Date.now() > deadline) throw new Error(`no ${kind} text for ${phone}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a phone sign-up is confirmed with the texted code, then signs in with its password', async () => {
  const supabase = client(server);
  const phone = '+243811000001';
  const signUp = await supabase.auth.signUp({ phone, password: 'secret-123' });
  assert.equal(signUp.error, null);
  assert.equal(signUp.data.session, null);
  assert.equal(signUp.data.user.phone, '243811000001');

  const verified = await supabase.auth.verifyOtp({ phone, token: await code(phone), type: 'sms' });
  assert.equal(verified.error, null);
  assert.ok(verified.data.session.access_token);

  const signIn = await client(server).auth.signInWithPassword({ phone, password: 'secret-123' });
  assert.equal(signIn.error, null);
  assert.equal(signIn.data.user.id, verified.data.user.id);
});

test('signInWithOtp({phone}) texts a code that verifyOtp turns into a session; the number can change', async () => {
  const supabase = client(server);
  const phone = '+243 822 000 002';
  const sent = await supabase.auth.signInWithOtp({ phone });
  assert.equal(sent.error, null);
  const { data, error } = await supabase.auth.verifyOtp({ phone, token: await code('+243822000002'), type: 'sms' });
  assert.equal(error, null);
  assert.equal(data.user.phone, '243822000002');

  const change = await supabase.auth.updateUser({ phone: '+243822000003' });
  assert.equal(change.error, null);
  assert.equal(change.data.user.new_phone, '243822000003');
  const changed = await supabase.auth.verifyOtp({
    phone: '+243822000003', token: await code('+243822000003', 'phone_change'), type: 'phone_change',
  });
  assert.equal(changed.error, null);
  assert.equal(changed.data.user.phone, '243822000003');

  const wrong = await client(server).auth.verifyOtp({ phone: '+243822000003', token: '000000', type: 'sms' });
  assert.equal(wrong.error.code, 'otp_expired');
});

test('a phone number as second factor: mfa.enroll, challenge by SMS, verify raises the session to aal2', async () => {
  const supabase = client(server);
  const phone = '+243833000004';
  await supabase.auth.signUp({ phone, password: 'secret-123' });
  const signedIn = await supabase.auth.verifyOtp({ phone, token: await code(phone), type: 'sms' });
  assert.equal(signedIn.error, null);
  const second = '+243833000005';
  const enrolled = await supabase.auth.mfa.enroll({ factorType: 'phone', phone: second });
  assert.equal(enrolled.error, null);
  assert.equal(enrolled.data.type, 'phone');
  const challenge = await supabase.auth.mfa.challenge({ factorId: enrolled.data.id });
  assert.equal(challenge.error, null);
  const verified = await supabase.auth.mfa.verify({
    factorId: enrolled.data.id, challengeId: challenge.data.id, code: await code(second, 'mfa'),
  });
  assert.equal(verified.error, null);
  const { data: aal } = await supabase.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.equal(aal.currentLevel, 'aal2');
});
