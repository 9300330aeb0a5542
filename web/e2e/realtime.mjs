// End-to-end: the pages that follow the database live through /realtime/v1 (issue #11), in
// Debian's Chromium against the real server (its own, like run.mjs and admin.mjs).
// Usage: npm run build && npm run test:e2e:realtime
//
// A customer and an administrator in two browser contexts: what one does appears on the other's
// page without a reload. Each page waits for its channel to be joined (`data-live="live"`) before
// the change is made, checks that the server sent the change over the WebSocket, and that the
// document it started with is still the one shown (it was not reloaded).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SEED, isoInDays, closeSession, newPageIn, openSession, shot, waitForAppOnVisit } from './harness.mjs';

const ADMIN = { email: process.env.SEED_ADMIN_EMAIL ?? 'admin@kinshasa-auto.test', password: SEED.adminPassword };
const stamp = Date.now();
const customer = { email: `live.${stamp}@example.cd`, password: 'Kinshasa2026', name: 'Lucie Direct', id: '' };
const BOOKING_TABLES = ['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings'];

let stack;
let browser;

/** A flight number of this run: two letters and four digits (the database wants [A-Z0-9]{2,8}). */
let flights = 0;
const flightNumber = () => `LV${String((stamp + flights++) % 10000).padStart(4, '0')}`;

async function api(path, { key, token, method = 'GET', body, headers = {} } = {}) {
  const r = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { apikey: key, Authorization: `Bearer ${token ?? key}`, 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return { body: text ? JSON.parse(text) : null, range: r.headers.get('content-range') };
}
const service = (path, init = {}) => api(path, { ...init, key: stack.serviceKey });
const countAll = async () => {
  const counts = await Promise.all(BOOKING_TABLES.map(async (t) => Number((await service(`/rest/v1/${t}?select=id`, { headers: { Prefer: 'count=exact' } })).range.split('/')[1])));
  return counts.reduce((a, b) => a + b, 0);
};

/** The customer's own access token (password grant), as supabase-js would hold it. */
async function customerToken() {
  return (await api('/auth/v1/token?grant_type=password', { key: stack.anonKey, method: 'POST', body: { email: customer.email, password: customer.password } })).body.access_token;
}

/** A pending airport booking made by the customer through /rest/v1 with their own token (row-level security applies). */
async function bookAirportAsCustomer(flight) {
  const token = await customerToken();
  const { body } = await api('/rest/v1/airport_bookings?select=id', {
    key: stack.anonKey,
    token,
    method: 'POST',
    headers: { Prefer: 'return=representation' },
    body: { user_id: customer.id, service_type: 'vip', flight_date: isoInDays(6), flight_time: '10:15', flight_number: flight, flight_type: 'arrival', passengers: 1 },
  });
  return body[0].id;
}

/** Collects the text frames the page's WebSockets receive (call before the page connects). */
function recordFrames(page) {
  const frames = [];
  page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => frames.push(String(payload))));
  return frames;
}

/** A postgres_changes frame of `type` for the row `id` reached the page. */
const sawChange = (frames, type, id) => frames.some((f) => f.includes('"postgres_changes"') && f.includes(`"${type}"`) && f.includes(id));

/** Marks the document; `assertSameDocument` then proves it was neither reloaded nor replaced. */
const markDocument = (page) => page.evaluate(() => (window.__liveMark = true));
async function assertSameDocument(page, what) {
  assert.equal(await page.evaluate(() => window.__liveMark === true), true, `${what} was reloaded`);
}

/** The page's live query has joined its channel (changes from now on are sent to it). */
const waitLive = (page) => page.locator('[data-live="live"]').waitFor();

async function signIn(page, email, password) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Mot de passe', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
}

/** The administrator signed in at /admin/login, on the dashboard; `frames` records its WebSocket from the start. */
async function adminPage() {
  const page = await newPageIn(browser, { width: 1366, height: 900 });
  const frames = recordFrames(page);
  await page.goto(`${stack.baseUrl}/admin/login`);
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.waitForURL(/\/admin\/dashboard$/);
  return { page, frames };
}

/** The customer signed in at /login, on their profile; `frames` records its WebSocket from the start. */
async function customerPage() {
  const page = await newPageIn(browser, { width: 1280, height: 900 }, { acceptDialogs: true });
  const frames = recordFrames(page);
  await page.goto(`${stack.baseUrl}/login`);
  await signIn(page, customer.email, customer.password);
  await page.waitForURL(/\/profile$/);
  return { page, frames };
}

before(async () => {
  ({ stack, browser } = await openSession());
  assert.ok(stack.serviceKey && stack.anonKey, 'the keys of the server are known');
  // a confirmed customer account, made by the admin API (the sign-up flow is run.mjs's business)
  const { body } = await service('/auth/v1/admin/users', { method: 'POST', body: { email: customer.email, password: customer.password, email_confirm: true, user_metadata: { full_name: customer.name } } });
  customer.id = body.id ?? body.user?.id;
  assert.ok(customer.id, `the customer was created: ${JSON.stringify(body)}`);
});

after(() => closeSession({ stack, browser }));

test('the back office bookings list and dashboard show a customer’s new booking without a reload', async () => {
  const total = await countAll();

  // the administrator: the dashboard in one tab, the bookings list in another, both live
  const { page: dashboard, frames: dashboardFrames } = await adminPage();
  await dashboard.getByRole('heading', { name: 'Tableau de bord administrateur' }).waitFor();
  await waitLive(dashboard);
  assert.equal(await dashboard.getByTestId('tile-bookings-total').textContent(), String(total));
  await markDocument(dashboard);

  const list = waitForAppOnVisit(await dashboard.context().newPage());
  list.setDefaultTimeout(15000);
  const listFrames = recordFrames(list);
  await list.goto(`${stack.baseUrl}/admin/bookings`);
  await list.getByRole('heading', { name: 'Gestion des réservations' }).waitFor();
  await list.getByText(`${total} réservation(s) trouvée(s)`).waitFor();
  await waitLive(list);
  await markDocument(list);

  // the customer books an airport service in their own browser
  const { page: client } = await customerPage();
  const flight = flightNumber();
  await client.goto(`${stack.baseUrl}/airport-service`);
  await client.getByRole('button', { name: 'Réserver Service VIP' }).click();
  const dialog = client.getByRole('dialog');
  await dialog.getByLabel('Date du vol').fill(isoInDays(5));
  await dialog.getByLabel('Heure du vol').fill('14:30');
  await dialog.getByLabel('Numéro de vol').fill(flight);
  await dialog.getByLabel('Passagers').fill('2');
  await dialog.getByRole('button', { name: 'Confirmer la réservation' }).click();
  await client.getByRole('heading', { name: 'Réservation confirmée !' }).waitFor();
  const [{ id }] = (await service(`/rest/v1/airport_bookings?flight_number=eq.${flight}&select=id`)).body;

  // the list counts it and finds it, the dashboard's total follows: no reload on either
  await list.getByText(`${total + 1} réservation(s) trouvée(s)`).waitFor();
  await list.getByLabel('Rechercher').fill(flight);
  await list.getByText('1 réservation(s) trouvée(s)').waitFor();
  await list.getByTestId('booking-row').filter({ hasText: `#${id.slice(0, 8).toUpperCase()}` }).waitFor();
  await shot(list, 'realtime-admin-bookings');
  await dashboard.waitForFunction((n) => document.querySelector('[data-testid="tile-bookings-total"]')?.textContent === String(n), total + 1);
  await shot(dashboard, 'realtime-admin-dashboard');
  await assertSameDocument(list, 'the bookings list');
  await assertSameDocument(dashboard, 'the dashboard');
  assert.ok(sawChange(listFrames, 'INSERT', id), 'the bookings list received the INSERT over /realtime/v1');
  assert.ok(sawChange(dashboardFrames, 'INSERT', id), 'the dashboard received the INSERT over /realtime/v1');

  await client.context().close();
  await dashboard.context().close();
});

test('the customer’s profile shows the status an administrator sets, without a reload', async () => {
  const flight = flightNumber();
  const id = await bookAirportAsCustomer(flight);
  const ref = id.slice(0, 8).toUpperCase();

  // the customer's « Mon compte », live, with the booking pending
  const { page: client, frames } = await customerPage();
  await client.getByRole('heading', { name: 'Mon compte' }).waitFor();
  await waitLive(client);
  const item = client.getByTestId('booking-item').filter({ hasText: `Vol ${flight}` });
  await item.getByText('En attente', { exact: true }).waitFor();
  await markDocument(client);

  // the administrator confirms it in the back office, in another browser context
  const { page: admin } = await adminPage();
  await admin.goto(`${stack.baseUrl}/admin/bookings`);
  await admin.getByLabel('Rechercher').fill(flight);
  await admin.getByText('1 réservation(s) trouvée(s)').waitFor();
  await admin.getByLabel(`Statut de la réservation #${ref}`).selectOption('confirmed');
  await admin.getByText('Statut mis à jour : Confirmée').waitFor();
  assert.equal((await service(`/rest/v1/airport_bookings?id=eq.${id}&select=booking_status`)).body[0].booking_status, 'confirmed');

  // the customer's page shows « Confirmée » by itself
  await item.getByText('Confirmée', { exact: true }).waitFor();
  assert.equal(await item.getByText('En attente', { exact: true }).count(), 0);
  await assertSameDocument(client, 'the profile');
  assert.ok(sawChange(frames, 'UPDATE', id), 'the profile received the UPDATE over /realtime/v1');
  await shot(client, 'realtime-profile');

  // « Mes réservations » (the full list) says the same
  await client.getByRole('tab', { name: 'Mes réservations' }).click();
  await client.getByTestId('booking-item').filter({ hasText: `Vol ${flight}` }).getByText('Confirmée', { exact: true }).waitFor();

  await admin.context().close();
  await client.context().close();
});
