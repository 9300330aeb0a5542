// End-to-end flows of the back office (/admin) against the real server, in Debian's Chromium.
// Its own server (harness.mjs) like run.mjs. Usage: npm run build && npm run test:e2e:admin
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { AxeBuilder } from '@axe-core/playwright';
import { SEED, closeSession, newPageIn, openSession, shot, waitForMail } from './harness.mjs';
import { pdfText } from './pdf-text.mjs';
import { totp } from '../../supabase-compat-tests/lib/totp.mjs';
const ADMIN = { email: process.env.SEED_ADMIN_EMAIL ?? 'admin@kinshasa-auto.test', password: SEED.adminPassword };
const DEMO = { email: process.env.SEED_DEMO_EMAIL ?? 'client@kinshasa-auto.test', password: SEED.demoPassword };

let stack;
let browser;

const newPage = (viewport = { width: 1366, height: 900 }) => newPageIn(browser, viewport);


async function adminPage() {
  const page = await newPage();
  await page.goto(`${stack.baseUrl}/admin/login`);
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Mot de passe', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.waitForURL(/\/admin\/dashboard$/);
  return page;
}

/** Through the service key (bypasses row-level security): what the database holds. */
async function service(pathAndQuery, init = {}) {
  const r = await fetch(`${stack.apiUrl}/rest/v1/${pathAndQuery}`, {
    ...init,
    headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) },
  });
  const body = await r.text();
  if (!r.ok) throw new Error(`${r.status} ${body}`);
  return { body: body ? JSON.parse(body) : null, range: r.headers.get('content-range') };
}
const count = async (table, filter = '') => Number((await service(`${table}?select=id${filter}`, { headers: { Prefer: 'count=exact' } })).range.split('/')[1]);

async function axe(page, name) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`), [], `axe on ${name}`);
}

before(async () => {
  ({ stack, browser } = await openSession());
});

after(() => closeSession({ stack, browser }));

test('the home page loads no back-office code', async () => {
  const page = await newPage();
  const scripts = [];
  page.on('response', (r) => {
    if (r.url().endsWith('.js')) scripts.push(r.url());
  });
  await page.goto(`${stack.baseUrl}/`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.waitForLoadState('networkidle');
  for (const url of scripts) {
    const js = await (await fetch(url)).text();
    assert.ok(!js.includes('Gestion des réservations') && !js.includes('admin_delete_users'), `${url} holds admin code`);
  }
  await page.context().close();
});

test('a visitor is sent to /admin/login; a customer gets Accès refusé', async () => {
  const page = await newPage();
  await page.goto(`${stack.baseUrl}/admin/bookings`);
  await page.waitForURL(/\/admin\/login\?redirect=/);
  await page.getByRole('heading', { name: 'Administration' }).waitFor();
  await axe(page, '/admin/login');
  await shot(page, 'admin-login');

  // the demo customer signs in on the admin page: refused, and /admin refuses too.
  await page.getByLabel('Email').fill(DEMO.email);
  await page.getByLabel('Mot de passe', { exact: true }).fill(DEMO.password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.getByText("Accès refusé - Vous n'avez pas les permissions nécessaires.").waitFor();
  await page.goto(`${stack.baseUrl}/admin`);
  await page.getByRole('heading', { name: "Accès refusé - Vous n'avez pas les permissions nécessaires." }).waitFor();
  assert.equal(await page.getByRole('navigation', { name: 'Administration' }).count(), 0);
  await shot(page, 'admin-denied');
  await page.context().close();
});

test('the administrator signs in at /admin/login and sees the dashboard figures of the seed', async () => {
  const expected = {
    users: await count('profiles'),
    vehicles: await count('vehicles'),
    total: (await Promise.all(['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings'].map((t) => count(t)))).reduce((a, b) => a + b, 0),
    active: (await Promise.all(['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings'].map((t) => count(t, '&booking_status=in.(pending,confirmed,active)')))).reduce((a, b) => a + b, 0),
  };
  assert.ok(expected.total >= 9 && expected.vehicles >= 16, JSON.stringify(expected));
  const page = await adminPage();
  await page.getByRole('heading', { name: 'Tableau de bord administrateur' }).waitFor();
  assert.equal(await page.getByTestId('tile-users-value').textContent(), String(expected.users));
  assert.equal(await page.getByTestId('tile-vehicles-value').textContent(), String(expected.vehicles));
  assert.equal(await page.getByTestId('tile-bookings-value').textContent(), String(expected.active));
  assert.equal(await page.getByTestId('tile-bookings-total').textContent(), String(expected.total));
  await page.getByRole('link', { name: 'Voir tout' }).waitFor();
  await axe(page, '/admin/dashboard');
  await shot(page, 'admin-dashboard');
  // /admin shows the dashboard too
  await page.goto(`${stack.baseUrl}/admin`);
  await page.getByRole('heading', { name: 'Tableau de bord administrateur' }).waitFor();
  await page.context().close();
});

test('bookings: filter, change a status inline (kept after reload), edit a booking', async () => {
  const page = await adminPage();
  await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Réservations' }).click();
  await page.getByRole('heading', { name: 'Gestion des réservations' }).waitFor();
  const total = await count('bookings') + await count('airport_bookings') + await count('diagnostic_bookings') + await count('premium_service_bookings');
  await page.getByText(`${total} réservation(s) trouvée(s)`).waitFor();
  await axe(page, '/admin/bookings');
  await shot(page, 'admin-bookings');

  // filters: a flight number, then a type, then nothing matches
  await page.getByLabel('Rechercher').fill('ET863');
  await page.getByText('1 réservation(s) trouvée(s)').waitFor();
  await page.getByLabel('Rechercher').fill('');
  await page.getByLabel('Type', { exact: true }).selectOption('diagnostic');
  await page.getByText(`${await count('diagnostic_bookings')} réservation(s) trouvée(s)`).waitFor();
  await page.getByLabel('Rechercher').fill('zzz-rien');
  await page.getByText('Aucune réservation trouvée').waitFor();
  await page.getByText('Aucune réservation ne correspond à vos critères.').waitFor();
  await page.getByLabel('Rechercher').fill('');
  await page.getByLabel('Type', { exact: true }).selectOption('all');

  // inline status: the pending rental of the seed becomes confirmed, and stays so after a reload
  const ref = '5EEDB002';
  const id = '5eedb002-0000-4000-8000-000000000000';
  await page.getByLabel('Rechercher').fill(id);
  await page.getByText('1 réservation(s) trouvée(s)').waitFor();
  await page.getByLabel(`Statut de la réservation #${ref}`).selectOption('confirmed');
  await page.getByText('Statut mis à jour : Confirmée').waitFor();
  assert.equal((await service(`bookings?id=eq.${id}&select=booking_status`)).body[0].booking_status, 'confirmed');
  // the customer hears of it, in french, with the receipt attached: a PDF the outbox had the
  // booking-receipt function make (the first call starts Deno and fetches pdf-lib from npm)
  const confirmed = await mailTo(DEMO.email, `Réservation confirmée #${ref}`, 120_000);
  assert.match(confirmed.text, /Bonne nouvelle : votre réservation est confirmée/);
  assert.match(confirmed.text, /Votre bon de réservation est joint à ce message \(PDF\)\./);
  assert.match(confirmed.text, /Statut : Confirmée/);
  assert.deepEqual(confirmed.attachments.map((a) => [a.filename, a.content_type]), [[`recu-${ref}.pdf`, 'application/pdf']]);
  const pdf = Buffer.from(await (await fetch(`${stack.baseUrl}${confirmed.attachments[0].url}`)).arrayBuffer());
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  const receipt = pdfText(pdf).map((line) => line.replace(/[\u00a0\u202f]/g, ' '));
  for (const expected of ['Bon de réservation', `Référence : #${ref}`]) {
    assert.ok(receipt.includes(expected), `the attached receipt shows « ${expected} »: ${JSON.stringify(receipt)}`);
  }
  await page.reload();
  await page.getByLabel('Rechercher').fill(id);
  await page.getByText('1 réservation(s) trouvée(s)').waitFor();
  assert.equal(await page.getByLabel(`Statut de la réservation #${ref}`).inputValue(), 'confirmed');

  // details, then edit: a new pick-up place
  await page.getByRole('button', { name: `Voir les détails de #${ref}` }).click();
  const details = page.getByRole('dialog', { name: `Détails de la réservation #${ref.toUpperCase()}` });
  await details.waitFor();
  await details.getByRole('button', { name: 'Modifier' }).click();
  const edit = page.getByRole('dialog', { name: `Modifier la réservation #${ref}` });
  await edit.waitFor();
  await edit.getByLabel('Lieu de prise en charge').fill('Hôtel Pullman, Gombe');
  await shot(page, 'admin-booking-edit');
  await edit.getByRole('button', { name: 'Sauvegarder' }).click();
  await edit.waitFor({ state: 'hidden' });
  await page.getByText(`Réservation #${ref} mise à jour`).first().waitFor();
  assert.equal((await service(`bookings?id=eq.${id}&select=pickup_location`)).body[0].pickup_location, 'Hôtel Pullman, Gombe');
  await page.getByRole('button', { name: `Voir les détails de #${ref}` }).click();
  await page.getByRole('dialog').getByText('Hôtel Pullman, Gombe').waitFor();
  await page.context().close();
});

// a 2x2 PNG, enough for an <img> to decode.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==', 'base64');

test('vehicles: the six-step wizard with an uploaded photo, found on /fleet; bulk status change', async () => {
  const page = await adminPage();
  await page.goto(`${stack.baseUrl}/admin/vehicles`);
  await page.getByRole('heading', { name: 'Gestion des véhicules' }).waitFor();
  await page.getByText(`${await count('vehicles')} véhicule(s) trouvé(s)`).waitFor();
  await axe(page, '/admin/vehicles');
  await shot(page, 'admin-vehicles');

  await page.getByRole('button', { name: 'Ajouter un véhicule' }).click();
  const wizard = page.getByRole('dialog', { name: 'Enregistrer un nouveau véhicule' });
  await wizard.waitFor();
  await wizard.getByText('Étape 1 sur 6').waitFor();
  const next = wizard.getByRole('button', { name: 'Suivant' });
  assert.equal(await next.isDisabled(), true, 'step 1 is incomplete');
  await wizard.getByLabel('Nom du véhicule').fill('Kia Sportage E2E');
  await wizard.getByLabel('Marque').fill('Kia');
  await wizard.getByLabel('Modèle').fill('Sportage');
  await wizard.getByLabel('Immatriculation').fill('ke-2026-x');
  await wizard.getByLabel('Numéro VIN').fill('knapx81abk7000001');
  await wizard.getByLabel('Tarif journalier ($)').fill('95');
  await axe(page, 'vehicle wizard');
  // an out-of-range year stops the step it is typed in
  await wizard.getByLabel('Année').fill('1985');
  await next.click();
  await wizard.getByText(/^Année entre 1990 et \d{4}$/).waitFor();
  await wizard.getByText('Étape 1 sur 6').waitFor();
  await wizard.getByLabel('Année').fill('2024');
  await next.click();
  await wizard.getByText('Étape 2 sur 6').waitFor();
  await wizard.getByLabel('Transmission').selectOption('Automatique');
  await next.click();
  await wizard.getByText('Étape 3 sur 6').waitFor();
  await wizard.getByText('Total : 665,00\u00a0$').waitFor(); // 7 days x 95, before the 10 % weekly discount
  await wizard.getByText('598,50\u00a0$').waitFor();
  // and a 60 % discount the pricing step
  await wizard.getByLabel('Remise 7 jours et plus (%)').fill('60');
  await next.click();
  await wizard.getByText('Remise entre 0 et 50 %').waitFor();
  await wizard.getByText('Étape 3 sur 6').waitFor();
  await wizard.getByLabel('Remise 7 jours et plus (%)').fill('10');
  await wizard.getByRole('button', { name: 'Ajouter un tarif saisonnier' }).click();
  const season = wizard.getByTestId('seasonal-rate');
  await season.getByLabel('Nom', { exact: true }).fill('Fêtes');
  await season.getByLabel('Multiplicateur').fill('1.5');
  await season.getByLabel('Description', { exact: true }).fill("Fin d'année");
  await next.click();
  await wizard.getByText('Étape 4 sur 6').waitFor();
  await wizard.getByLabel('Nouvelle caractéristique').fill('Caméra 360°');
  await wizard.getByLabel("Police d'assurance").fill('SONAS-2026-0042');
  await wizard.getByRole('button', { name: 'Ajouter', exact: true }).click();
  await next.click();
  await wizard.getByText('Étape 5 sur 6').waitFor();
  assert.equal(await next.isDisabled(), true, 'a photo is required');
  await wizard.locator('input[type=file]').setInputFiles({ name: 'kia.png', mimeType: 'image/png', buffer: PNG });
  await wizard.getByRole('list', { name: 'Photos du véhicule' }).getByRole('img', { name: 'kia.png' }).waitFor();
  await next.click();
  await wizard.getByText('Étape 6 sur 6').waitFor();
  await wizard.getByTestId('wizard-review').getByText('Non spécifiée').first().waitFor();
  await wizard.getByText('1 photo(s)').waitFor();
  await shot(page, 'admin-vehicle-wizard-review');
  await wizard.getByRole('button', { name: 'Enregistrer le véhicule' }).click();
  await wizard.waitFor({ state: 'hidden' });
  await page.getByText('Kia Sportage E2E ajouté à la flotte').waitFor();
  const saved = (await service('vehicles?name=eq.Kia%20Sportage%20E2E&select=id,license_plate,daily_rate,primary_image,images,rental_status,pricing')).body[0];
  assert.equal(saved.license_plate, 'KE-2026-X');
  assert.deepEqual(
    saved.pricing.seasonal_rates.map(({ name, rate_multiplier, description }) => ({ name, rate_multiplier, description })),
    [{ name: 'Fêtes', rate_multiplier: 1.5, description: "Fin d'année" }],
  );
  assert.equal(saved.rental_status, 'available');
  assert.match(saved.primary_image, /\/storage\/v1\/object\/public\/vehicles\/vehicle-images\/\d+-0-\w+\.png$/);
  assert.equal(saved.images.length, 1);
  // the VIN and the insurance policy are kept apart, for administrators only (V47)
  const record = (await service(`vehicle_records?vehicle_id=eq.${saved.id}&select=vin,insurance_policy`)).body;
  assert.deepEqual(record, [{ vin: 'KNAPX81ABK7000001', insurance_policy: 'SONAS-2026-0042' }]);
  const asVisitor = await fetch(`${stack.apiUrl}/rest/v1/vehicle_records?select=vin`, { headers: { apikey: stack.anonKey, Authorization: `Bearer ${stack.anonKey}` } });
  assert.deepEqual(await asVisitor.json(), [], 'a visitor reads no vehicle record');

  // editing reads the record back in place and saves both in one call (V48)
  await page.getByRole('button', { name: 'Modifier Kia Sportage E2E' }).click();
  const edit = page.getByRole('dialog', { name: 'Modifier le véhicule' });
  assert.equal(await edit.getByLabel('Numéro VIN').inputValue(), 'KNAPX81ABK7000001');
  for (let step = 2; step <= 4; step++) {
    await edit.getByRole('button', { name: 'Suivant' }).click();
    await edit.getByText(`Étape ${step} sur 6`).waitFor();
  }
  await edit.getByLabel("Police d'assurance").fill('SONAS-2027-0001');
  for (let step = 5; step <= 6; step++) {
    await edit.getByRole('button', { name: 'Suivant' }).click();
    await edit.getByText(`Étape ${step} sur 6`).waitFor();
  }
  await edit.getByRole('button', { name: 'Mettre à jour' }).click();
  await edit.waitFor({ state: 'hidden' });
  await page.getByText('Kia Sportage E2E mis à jour').waitFor();
  const updated = (await service(`vehicle_records?vehicle_id=eq.${saved.id}&select=vin,insurance_policy`)).body;
  assert.deepEqual(updated, [{ vin: 'KNAPX81ABK7000001', insurance_policy: 'SONAS-2027-0001' }]);
  assert.equal((await service('vehicles?name=eq.Kia%20Sportage%20E2E&select=id')).body.length, 1, 'still one vehicle');

  // the customer site shows it, with its photo
  const visitor = await newPage();
  await visitor.goto(`${stack.baseUrl}/fleet`);
  const card = visitor.locator('article', { hasText: 'Kia Sportage E2E' });
  await card.waitFor();
  const img = card.locator('img').first();
  await img.waitFor();
  await visitor.waitForFunction((el) => el.complete && el.naturalWidth > 0, await img.elementHandle());
  // a thumbnail the server made (not the full upload), and it decoded
  assert.match(await img.evaluate((el) => el.currentSrc), /\/storage\/v1\/render\/image\/public\/vehicles\/vehicle-images\/.+\?width=800&height=480&resize=cover/);
  assert.equal(await img.evaluate((el) => el.naturalWidth), 800);
  await visitor.context().close();

  // bulk: two vehicles to maintenance
  await page.getByLabel('Sélectionner Toyota Yaris').check();
  await page.getByLabel('Sélectionner Suzuki Swift').check();
  await page.getByLabel('Changer le statut (2)').selectOption('maintenance');
  await page.getByText('2 véhicule(s) : Maintenance').waitFor();
  const statuses = (await service('vehicles?name=in.(%22Toyota%20Yaris%22,%22Suzuki%20Swift%22)&select=rental_status')).body.map((v) => v.rental_status);
  assert.deepEqual(statuses, ['maintenance', 'maintenance']);
  await page.getByLabel('Statut', { exact: true }).selectOption('maintenance');
  await page.getByText('3 véhicule(s) trouvé(s)').waitFor(); // with the Range Rover of the seed

  // a vehicle with rentals cannot be deleted: the dialog says why
  await page.getByLabel('Statut', { exact: true }).selectOption('all');
  await page.getByRole('button', { name: 'Supprimer Toyota Land Cruiser 300' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirmer la suppression' });
  await confirm.getByText('Êtes-vous sûr de vouloir supprimer ce véhicule ? Cette action est irréversible.').waitFor();
  await confirm.getByRole('button', { name: 'Supprimer' }).click();
  await confirm.getByText(/a des réservations/).waitFor();
  await confirm.getByRole('button', { name: 'Annuler' }).click();
  await page.context().close();
});

test('users: edit a name, the add button explains, delete deletes the account', async () => {
  // an account to delete, created through the admin API
  const email = `a.supprimer.${Date.now()}@example.cd`;
  const created = await fetch(`${stack.apiUrl}/auth/v1/admin/users`, {
    method: 'POST',
    headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: 'Kinshasa2026', email_confirm: true, user_metadata: { full_name: 'Compte Jetable' } }),
  }).then((r) => r.json());
  assert.ok(created.id, JSON.stringify(created));

  const page = await adminPage();
  await page.goto(`${stack.baseUrl}/admin/users`);
  await page.getByRole('heading', { name: 'Gestion des utilisateurs' }).waitFor();
  await page.getByText('3 utilisateur(s) trouvé(s)').waitFor();
  await axe(page, '/admin/users');
  await shot(page, 'admin-users');

  await page.getByRole('button', { name: 'Ajouter un utilisateur' }).click();
  const add = page.getByRole('dialog', { name: 'Ajouter un utilisateur' });
  await add.getByRole('button', { name: 'Sauvegarder' }).click();
  await add.getByText('Nom et email sont requis').waitFor();
  await add.getByLabel('Nom complet').fill('Nouveau');
  await add.getByLabel('Email').fill('nouveau@example.cd');
  await add.getByRole('button', { name: 'Sauvegarder' }).click();
  await add.getByText("La création d'utilisateurs nécessite une implémentation d'authentification avancée").waitFor();
  await add.getByRole('button', { name: 'Annuler' }).click();

  await page.getByRole('button', { name: 'Modifier Client Démo' }).click();
  const edit = page.getByRole('dialog', { name: "Modifier l'utilisateur" });
  assert.equal(await edit.getByLabel('Email').isDisabled(), true);
  await edit.getByText("L'email ne peut pas être modifié").waitFor();
  await edit.getByLabel('Nom complet').fill('Client Démo Renommé');
  await edit.getByLabel('Téléphone').fill('+243 81 555 0000');
  await edit.getByRole('button', { name: 'Sauvegarder' }).click();
  await edit.waitFor({ state: 'hidden' });
  await page.getByText('Client Démo Renommé').waitFor();
  const demo = (await service(`profiles?email=eq.${encodeURIComponent(DEMO.email)}&select=full_name,phone`)).body[0];
  assert.deepEqual(demo, { full_name: 'Client Démo Renommé', phone: '+243 81 555 0000' });

  // one's own row cannot be deleted
  assert.equal(await page.getByRole('button', { name: 'Supprimer Administrateur' }).isDisabled(), true);
  await page.getByRole('button', { name: 'Supprimer Compte Jetable' }).click();
  const confirm = page.getByRole('dialog', { name: 'Confirmer la suppression' });
  await confirm.getByText('Êtes-vous sûr de vouloir supprimer cet utilisateur ? Cette action est irréversible.').waitFor();
  await confirm.getByRole('button', { name: 'Supprimer' }).click();
  await page.getByText('1 utilisateur(s) supprimé(s)').waitFor();
  const gone = await fetch(`${stack.apiUrl}/auth/v1/admin/users/${created.id}`, { headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}` } });
  assert.equal(gone.status, 404, 'the account itself is deleted');
  await page.getByText('2 utilisateur(s) trouvé(s)').waitFor();
  await page.context().close();
});

test('settings: a value out of range is refused; a saved value is there after reload', async () => {
  const page = await adminPage();
  await page.goto(`${stack.baseUrl}/admin/settings`);
  await page.getByRole('heading', { name: 'Paramètres système' }).waitFor();
  await axe(page, '/admin/settings');
  await page.getByRole('tab', { name: 'Système' }).click();
  const timeout = page.getByLabel("Délai d'expiration de session (minutes)");
  await timeout.fill('2000');
  await page.getByRole('button', { name: 'Sauvegarder' }).click();
  await page.getByText('Erreur lors de la sauvegarde : Délai de session : entre 5 et 1440').waitFor();
  await timeout.fill('45');
  await page.getByRole('tab', { name: 'Business' }).click();
  await page.getByLabel('Frais de retard (%)').fill('12.5');
  await page.getByRole('button', { name: 'Sauvegarder' }).click();
  await page.getByText('Paramètres sauvegardés avec succès').waitFor();
  await shot(page, 'admin-settings');
  const rows = (await service('app_settings?select=section,value')).body;
  assert.equal(rows.find((r) => r.section === 'system').value.sessionTimeout, 45);
  assert.equal(rows.find((r) => r.section === 'business').value.lateFeePercentage, 12.5);
  await page.reload();
  await page.getByRole('tab', { name: 'Système' }).click();
  assert.equal(await page.getByLabel("Délai d'expiration de session (minutes)").inputValue(), '45');
  await page.context().close();
});

/** The newest message of the development inbox to `to` whose subject starts with `subject`. */
function mailTo(to, subject, timeoutMs) {
  return waitForMail(stack.baseUrl, to, (x) => x.subject.startsWith(subject), `mail « ${subject} »`, timeoutMs);
}

const setSettings = async (section, patch) => {
  const [row] = (await service(`app_settings?section=eq.${section}&select=value`)).body;
  await service(`app_settings?section=eq.${section}`, { method: 'PATCH', body: JSON.stringify({ value: { ...row.value, ...patch } }) });
};

test('settings take effect: sign-ups closed, maintenance mode, prices in Congolese francs', async () => {
  const admin = await adminPage();
  await admin.goto(`${stack.baseUrl}/admin/settings`);
  await admin.getByRole('tab', { name: 'Système' }).click();
  await admin.getByLabel('Autoriser les inscriptions').uncheck();
  await admin.getByRole('button', { name: 'Sauvegarder' }).click();
  await admin.getByText('Paramètres sauvegardés avec succès').waitFor();
  try {
    // sign-ups off: the page says so, and the auth server refuses (signup_disabled)
    const visitor = await newPage({ width: 1280, height: 900 });
    await visitor.goto(`${stack.baseUrl}/register`);
    await visitor.getByText('Les inscriptions sont fermées pour le moment').waitFor();
    // the form cannot be filled in, and the refusal is said once (not again in a toast or below)
    for (const label of ['Email', 'Confirmer le mot de passe']) assert.equal(await visitor.getByLabel(label).isDisabled(), true, `${label} disabled`);
    assert.equal(await visitor.getByLabel('Mot de passe', { exact: true }).isDisabled(), true);
    assert.equal(await visitor.getByRole('button', { name: "S'inscrire" }).isDisabled(), true);
    assert.equal(await visitor.getByText(/inscriptions sont (fermées|momentanément fermées)/).count(), 1, 'one message');
    await visitor.context().close();
    // the auth server refuses anyway (signup_disabled), whatever a page shows
    const r = await fetch(`${stack.apiUrl}/auth/v1/signup`, { method: 'POST', headers: { apikey: stack.anonKey, 'Content-Type': 'application/json' }, body: JSON.stringify({ email: `ferme.${Date.now()}@example.cd`, password: 'Kinshasa2026' }) });
    const refusal = await r.json();
    assert.equal(refusal.error_code ?? refusal.code, 'signup_disabled', JSON.stringify(refusal));
  } finally {
    await setSettings('system', { allowRegistrations: true });
  }

  await setSettings('system', { maintenanceMode: true });
  try {
    const visitor = await newPage({ width: 1280, height: 900 });
    await visitor.goto(`${stack.baseUrl}/fleet`);
    const closed = visitor.getByTestId('maintenance');
    await closed.getByRole('heading', { name: 'Site en maintenance' }).waitFor();
    await closed.getByRole('link', { name: '+243 81 000 0000' }).waitFor();
    await shot(visitor, 'maintenance');
    // on a phone the number stays whole on one line
    await visitor.setViewportSize({ width: 390, height: 844 });
    const phone = await closed.getByTestId('company-phone').evaluate((el) => ({ lines: el.getClientRects().length, right: el.getBoundingClientRect().right }));
    assert.deepEqual(phone.lines, 1, 'the phone number wraps at 390 px');
    assert.ok(phone.right <= 390, `the phone number ends at ${phone.right} px`);
    await visitor.context().close();
    // the administrator still sees the site
    await admin.goto(`${stack.baseUrl}/fleet`);
    await admin.locator('article h3').first().waitFor();
    assert.equal(await admin.getByTestId('maintenance').count(), 0);
  } finally {
    await setSettings('system', { maintenanceMode: false });
  }
  const visitor = await newPage({ width: 1280, height: 900 });
  await visitor.goto(`${stack.baseUrl}/fleet`);
  await visitor.locator('article h3').first().waitFor();

  // the display currency: francs at the rate of the settings, stored amounts unchanged
  await setSettings('general', { currency: 'CDF', exchangeRates: { USD: 1, CDF: 2800, EUR: 0.92 } });
  try {
    await visitor.goto(`${stack.baseUrl}/fleet`);
    const card = visitor.locator('article').filter({ hasText: 'Toyota Corolla' });
    await card.getByText('126\u202f000\u00a0FC').waitFor(); // 45 $ a day x 2 800
    await shot(visitor, 'fleet-cdf');
  } finally {
    await setSettings('general', { currency: 'USD' });
  }
  await visitor.context().close();
  await admin.context().close();
});

test('messages: the unread count, a message opened, answered by mail and archived', async () => {
  const sender = `question.${Date.now()}@example.cd`;
  await service('contact_messages', {
    method: 'POST',
    body: JSON.stringify({ name: 'Marie Kabila', email: sender, phone: '+243 81 000 0005', subject: 'information', message: 'Bonjour,\nfaites-vous la livraison du véhicule à l’aéroport ?' }),
  });
  const page = await adminPage();
  const unreadBefore = Number(await page.getByTestId('unread-count').textContent());
  assert.ok(unreadBefore >= 1, `unread: ${unreadBefore}`);
  await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: /Messages/ }).click();
  await page.getByRole('heading', { name: 'Messages' }).waitFor();
  await page.getByTestId('message-item').filter({ hasText: 'Marie Kabila' }).click();
  const detail = page.getByRole('article', { name: 'Message de Marie Kabila' });
  await detail.getByTestId('message-body').getByText('faites-vous la livraison').waitFor();
  // opened: one unread less in the menu
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid=unread-count]')?.textContent ?? 0) === n, unreadBefore - 1);
  await axe(page, '/admin/messages');
  await detail.getByLabel('Votre réponse').fill('Bonjour Marie,\noui : nous livrons à N’djili sans frais.');
  await detail.getByRole('button', { name: `Envoyer la réponse à ${sender}` }).click();
  await page.getByText(`Réponse envoyée à ${sender}`).first().waitFor();
  await detail.getByTestId('message-reply').getByText('nous livrons à N’djili sans frais').waitFor();
  await shot(page, 'admin-messages');
  const mail = await mailTo(sender, 'Réponse à votre demande d’information'.replace('’', "'"));
  assert.match(mail.text, /^Bonjour Marie Kabila,\n\nBonjour Marie,\noui : nous livrons à N’djili sans frais\./);
  assert.match(mail.text, /> faites-vous la livraison du véhicule à l’aéroport \?/);
  await detail.getByRole('button', { name: 'Archiver' }).click();
  await page.getByText('Message archivé').first().waitFor();
  await page.getByTestId('message-item').filter({ hasText: 'Marie Kabila' }).waitFor({ state: 'detached' });
  await page.getByRole('tab', { name: 'Archivés' }).click();
  await page.getByTestId('message-item').filter({ hasText: 'Marie Kabila' }).waitFor();
  const [row] = (await service(`contact_messages?email=eq.${encodeURIComponent(sender)}&select=handled,read_at,replied_at,archived_at`)).body;
  assert.ok(row.handled && row.read_at && row.replied_at && row.archived_at, JSON.stringify(row));
  await page.context().close();
});

test('calendar: the fleet by day, a pending request on a confirmed rental flagged, a bar opens its booking', async () => {
  const day = (n) => new Date(Date.now() + n * 86400000).toISOString().slice(0, 10);
  const prado = '5eed0000-0000-4000-8000-000000000010';
  const contact = { customer_name: 'Client Calendrier', customer_email: 'cal@example.cd', customer_phone: '+243810000088', driver_license_number: 'KIN-CAL' };
  const confirmed = (await service('bookings', { method: 'POST', headers: { Prefer: 'return=representation' }, body: JSON.stringify({ vehicle_id: prado, start_date: day(4), end_date: day(7), booking_status: 'confirmed', ...contact }) })).body[0];
  const pending = (await service('bookings', { method: 'POST', headers: { Prefer: 'return=representation' }, body: JSON.stringify({ vehicle_id: prado, start_date: day(6), end_date: day(9), ...contact }) })).body[0];
  const page = await adminPage();
  await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Calendrier' }).click();
  await page.getByRole('heading', { name: 'Calendrier de la flotte' }).waitFor();
  await page.getByTestId('clash-summary').waitFor();
  const ref = pending.id.slice(0, 8).toUpperCase();
  const bar = page.getByRole('button', { name: new RegExp(`^Réservation #${ref} en attente de Client Calendrier, .*, en conflit$`) });
  await bar.waitFor();
  assert.equal(await bar.getAttribute('data-clash'), 'true');
  const other = page.getByRole('button', { name: new RegExp(`^Réservation #${confirmed.id.slice(0, 8).toUpperCase()} confirmée de Client Calendrier`) });
  assert.equal(await other.getAttribute('data-status'), 'confirmed');
  await axe(page, '/admin/calendar');
  await shot(page, 'admin-calendar');
  await bar.click();
  const details = page.getByRole('dialog', { name: `Détails de la réservation #${ref}` });
  await details.waitFor();
  // the licence number the visitor had to type is there for the staff
  await details.getByText('Permis de conduire').waitFor();
  await details.getByText('KIN-CAL', { exact: true }).waitFor();
  await page.context().close();
  // leave the prado as it was for the other tests
  await service(`bookings?id=in.(${pending.id},${confirmed.id})`, { method: 'PATCH', body: JSON.stringify({ booking_status: 'cancelled' }) });
});

test('layout: the back-office tables show their last column at 1024 and 1280 px; narrower, they scroll with their identity column kept in view, and no page overflows', async () => {
  const page = await adminPage();
  // the path and the column (1-based) that says what a row is
  const tables = [
    ['/admin/bookings', 1],
    ['/admin/vehicles', 2],
    ['/admin/users', 2],
  ];
  const measure = (column) =>
    page.evaluate((column) => {
      const box = document.querySelector('[data-testid=admin-table]');
      const rect = box.getBoundingClientRect();
      const scrolls = box.scrollWidth - box.clientWidth;
      const lastBefore = document.querySelector('tbody tr td:last-child').getBoundingClientRect().right;
      box.scrollLeft = box.scrollWidth;
      const identity = document.querySelector(`tbody tr td:nth-child(${column})`).getBoundingClientRect();
      const last = document.querySelector('tbody tr td:last-child').getBoundingClientRect();
      return {
        page: document.documentElement.scrollWidth - window.innerWidth,
        table: scrolls,
        identityLeft: Math.round(identity.left - rect.left),
        lastBefore: Math.round(lastBefore),
        lastRight: Math.round(last.right),
        boxRight: Math.round(rect.right),
      };
    }, column);
  for (const [width, height] of [[1280, 900], [1024, 800], [390, 844]]) {
    await page.setViewportSize({ width, height });
    for (const [path, column] of tables) {
      await page.goto(`${stack.baseUrl}${path}`);
      await page.locator('tbody tr').first().waitFor();
      const m = await measure(column);
      assert.ok(m.page <= 0, `${path} at ${width} px: the page overflows by ${m.page} px`);
      if (width >= 1024) {
        // the actions column is in view as the page opens, without scrolling the table
        assert.ok(m.table <= 0, `${path} at ${width} px: the table scrolls by ${m.table} px`);
        assert.ok(m.lastBefore <= Math.min(width, m.boxRight), `${path} at ${width} px: the actions end at ${m.lastBefore} px`);
      } else {
        // scrolled to its end, the actions are in view and the row's identity is still at the table's left edge
        assert.ok(m.lastRight <= width, `${path} at ${width} px: the actions end at ${m.lastRight} px`);
        if (m.table > 0) assert.ok(m.identityLeft >= 0 && m.identityLeft <= 60, `${path} at ${width} px: the identity column is at ${m.identityLeft} px`);
      }
    }
    await shot(page, `admin-users-${width}`);
  }
  await page.context().close();
});

/** Elements among `selector` whose text does not fit their box: [{ text, scroll, client }]. */
const overflowing = (page, selector) =>
  page.evaluate((selector) => [...document.querySelectorAll(selector)].filter((el) => el.scrollWidth > el.clientWidth).map((el) => ({ text: el.textContent, scroll: el.scrollWidth, client: el.clientWidth })), selector);

/**
 * Selects too narrow for one of their choices: the text's width (the select's own font) plus its
 * padding and the arrow against the box's inner width.
 */
const cutSelects = (page, selector) =>
  page.evaluate((selector) => {
    const ctx = document.createElement('canvas').getContext('2d');
    const cut = [];
    for (const el of document.querySelectorAll(selector)) {
      const cs = getComputedStyle(el);
      ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20; // Chromium's arrow
      for (const o of el.options) if (ctx.measureText(o.text).width > room) cut.push(`« ${o.text} » in ${Math.round(room)} px`);
    }
    return cut;
  }, selector);

test('layout at 1024, 1280 and 390 px: tiles, filters, e-mails, the sidebar, the dashboard rows and the calendar', async () => {
  const page = await adminPage();
  // a calendar bar long enough to show a name
  const day = (n) => new Date(Date.now() + n * 86400000).toISOString().slice(0, 10);
  const contact = { customer_name: 'Mireille Kabasele', customer_email: 'mireille.kabasele@example.cd', customer_phone: '+243810000066', driver_license_number: 'KIN-LAY' };
  const booked = (await service('bookings', { method: 'POST', headers: { Prefer: 'return=representation' }, body: JSON.stringify({ vehicle_id: '5eed0000-0000-4000-8000-000000000016', start_date: day(1), end_date: day(3), booking_status: 'confirmed', ...contact }) })).body[0];
  try {
    for (const [width, height] of [[1280, 700], [1024, 700], [390, 844]]) {
      await page.setViewportSize({ width, height });
      const at = `at ${width} px`;

      // bookings: the tiles' figures (« Revenus ») and the filters' choices and dates fit their boxes
      await page.goto(`${stack.baseUrl}/admin/bookings`);
      await page.locator('tbody tr').first().waitFor();
      assert.deepEqual(await overflowing(page, '[data-testid^=bk-] [data-testid$=-value]'), [], `bookings tiles ${at}`);
      assert.deepEqual(await cutSelects(page, 'section[aria-label=Filtres] select'), [], `bookings filters ${at}`);
      const dates = await page.locator('section[aria-label=Filtres] input[type=date]').evaluateAll((els) => els.map((el) => el.clientWidth));
      assert.ok(dates.every((w) => w >= 140), `date filters ${at}: ${dates}`);
      // e-mails wrap only before their « @ »: each line of an address is a whole part of it
      const emails = await page.locator('tbody tr td:nth-child(2) p[title]').evaluateAll((els) =>
        els.map((el) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          return { email: el.title, lines: tops.size };
        }),
      );
      assert.ok(emails.length > 0, 'the bookings list shows e-mail addresses');
      assert.ok(emails.every((e) => e.lines <= 2), `e-mails ${at}: ${JSON.stringify(emails)}`);
      if (width >= 1024) {
        // the dark sidebar runs the page's full height (a full-page screenshot too), and at the
        // bottom of a long page its navigation is still in view
        const side = await page.evaluate(() => {
          window.scrollTo(0, document.documentElement.scrollHeight);
          const aside = document.querySelector('[data-testid=admin-sidebar]');
          const nav = aside.querySelector('nav').getBoundingClientRect();
          return { height: aside.offsetHeight, page: document.documentElement.scrollHeight, inner: window.innerHeight, navTop: nav.top, navBottom: nav.bottom };
        });
        assert.ok(side.page > 1.5 * side.inner, 'the bookings page is long');
        assert.ok(side.height >= side.page, `the sidebar ${at} is ${side.height} px high on a ${side.page} px page`);
        assert.ok(side.navTop >= 0 && side.navBottom <= side.inner, `the navigation ${at} at ${side.navTop}..${side.navBottom} of ${side.inner}`);
      }

      // vehicles and users: their filters' choices fit
      for (const path of ['/admin/vehicles', '/admin/users']) {
        await page.goto(`${stack.baseUrl}${path}`);
        await page.locator('tbody tr').first().waitFor();
        assert.deepEqual(await cutSelects(page, 'section[aria-label=Filtres] select'), [], `${path} filters ${at}`);
      }

      // dashboard: each tile's figure fits, and recent bookings' amounts and badges line up
      await page.goto(`${stack.baseUrl}/admin/dashboard`);
      await page.getByTestId('recent-booking').nth(1).waitFor();
      assert.deepEqual(await overflowing(page, '[data-testid^=tile-] [data-testid$=-value]'), [], `dashboard tiles ${at}`);
      if (width >= 1024) {
        const rows = await page.getByTestId('recent-booking').evaluateAll((els) =>
          els.map((li) => ({ amount: Math.round(li.querySelector('[data-testid=recent-amount]').getBoundingClientRect().right), badge: Math.round(li.querySelector('[data-testid=recent-status]').getBoundingClientRect().left) })),
        );
        assert.equal(new Set(rows.map((r) => r.amount)).size, 1, `amounts aligned ${at}: ${JSON.stringify(rows)}`);
        assert.equal(new Set(rows.map((r) => r.badge)).size, 1, `badges aligned ${at}: ${JSON.stringify(rows)}`);
      }
      await shot(page, `admin-dashboard-${width}`);

      // calendar: whole vehicle names, days named unambiguously, bars that say who
      await page.goto(`${stack.baseUrl}/admin/calendar`);
      await page.getByTestId('calendar-row').first().waitFor();
      assert.deepEqual(await overflowing(page, '[data-testid=calendar-vehicle]'), [], `vehicle names ${at}`);
      const heads = await page.getByTestId('fleet-calendar').evaluate((el) => [...el.querySelectorAll('[data-testid=calendar-day]')].map((d) => d.textContent.replace(/\d+$/, '')));
      assert.ok(heads.length >= 7, `${heads.length} days`);
      assert.equal(new Set(heads.slice(0, 7)).size, 7, `seven distinct day names: ${heads.slice(0, 7)}`);
      const bar = page.getByRole('button', { name: new RegExp(`^Réservation #${booked.id.slice(0, 8).toUpperCase()} `) });
      assert.match(await bar.innerText(), /^Mireille Kabasele/, 'the bar names the customer first');
      if (width < 640) {
        // a week in view without scrolling sideways, and every entry of the menu in view
        const cal = await page.getByTestId('fleet-calendar').evaluate((el) => el.scrollWidth - el.clientWidth);
        assert.ok(cal <= 0, `the calendar scrolls by ${cal} px ${at}`);
        const links = await page.getByRole('navigation', { name: 'Administration' }).getByRole('link').evaluateAll((els) => els.map((a) => ({ text: a.textContent, right: a.getBoundingClientRect().right })));
        assert.deepEqual(links.filter((l) => l.right > 390).map((l) => l.text), [], 'menu entries cut at 390 px');
      }
      await shot(page, `admin-calendar-${width}`);
    }
  } finally {
    await service(`bookings?id=eq.${booked.id}`, { method: 'PATCH', body: JSON.stringify({ booking_status: 'cancelled' }) });
    await page.context().close();
  }
});

test("the company's name and contact details follow the settings: the back office's sidebar and the public pages", async () => {
  const company = { companyName: 'Mbote Location Kin', companyPhone: '+243 99 123 4567', companyEmail: 'bonjour@mbote-location.cd', companyAddress: 'Avenue du Commerce 12, Kinshasa' };
  const [before] = (await service('app_settings?section=eq.general&select=value')).body;
  await setSettings('general', company);
  try {
    const admin = await adminPage();
    await admin.setViewportSize({ width: 1280, height: 800 });
    await admin.goto(`${stack.baseUrl}/admin/settings`);
    await admin.getByTestId('admin-company').getByText(company.companyName).waitFor();
    // a French-only site offers no other language
    assert.equal(await admin.locator('option', { hasText: 'Anglais' }).count(), 0);
    await admin.context().close();

    const visitor = await newPage({ width: 1280, height: 900 });
    for (const path of ['/', '/contact', '/about', '/support']) {
      await visitor.goto(`${stack.baseUrl}${path}`);
      await visitor.getByTestId('company-phone').first().getByText(company.companyPhone).waitFor();
      const phones = await visitor.getByTestId('company-phone').allTextContents();
      assert.ok(phones.every((t) => t.endsWith(company.companyPhone)), `${path}: ${phones}`);
      const emails = await visitor.getByTestId('company-email').allTextContents();
      assert.ok(emails.length > 0 && emails.every((t) => t === company.companyEmail), `${path}: ${emails}`);
      const text = await visitor.locator('body').innerText();
      for (const placeholder of ['+243 81 000 0000', 'contact@example.cd', 'Kinshasa Prestige Auto']) assert.ok(!text.includes(placeholder), `${path} still shows ${placeholder}`);
      assert.ok(text.includes(company.companyAddress), `${path} shows the address`);
      assert.match(await visitor.title(), new RegExp(`${company.companyName}$`));
    }
    await visitor.context().close();
  } finally {
    await service('app_settings?section=eq.general', { method: 'PATCH', body: JSON.stringify({ value: before.value }) });
  }
});

test('reports: the period analytics with the chart toggle', async () => {
  const page = await adminPage();
  await page.goto(`${stack.baseUrl}/admin/reports`);
  await page.getByRole('heading', { name: 'Rapports & Analyses' }).waitFor();
  await page.getByTestId('rp-bookings-value').waitFor();
  const total = await count('bookings') + await count('airport_bookings') + await count('diagnostic_bookings') + await count('premium_service_bookings');
  assert.equal(await page.getByTestId('rp-bookings-value').textContent(), String(total));
  await page.getByRole('list', { name: 'Revenus par mois' }).waitFor();
  await page.getByRole('button', { name: 'Réservations', exact: true }).click();
  await page.getByRole('list', { name: 'Réservations par mois' }).waitFor();
  await page.getByRole('heading', { name: 'Véhicules les plus demandés' }).waitFor();
  await axe(page, '/admin/reports');
  await shot(page, 'admin-reports');
  await page.context().close();
});

test('an administrator browsing the public blog sees no draft', async () => {
  const slug = `brouillon-${Date.now()}`;
  await service('blog_posts', { method: 'POST', body: JSON.stringify({ slug, title: 'Brouillon E2E', excerpt: 'Pas encore publié.', content: 'Texte.', author: 'Équipe', published: false }) });
  try {
    const page = await adminPage();
    await page.goto(`${stack.baseUrl}/blog`);
    await page.getByRole('link', { name: /Lire la suite/ }).first().waitFor();
    assert.equal(await page.getByText('Brouillon E2E').count(), 0, 'the draft is not listed');
    await page.goto(`${stack.baseUrl}/blog/${slug}`);
    await page.getByRole('heading', { name: 'Article non trouvé' }).waitFor();
    await page.context().close();
  } finally {
    await service(`blog_posts?slug=eq.${slug}`, { method: 'DELETE' });
  }
});

test('the back office at 375 px', async () => {
  const page = await adminPage();
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${stack.baseUrl}/admin/bookings`);
  await page.getByRole('heading', { name: 'Gestion des réservations' }).waitFor();
  await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Véhicules' }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal scroll of the page (${overflow}px)`);
  await shot(page, 'admin-mobile');
  await page.context().close();
});

// last, and with its own administrator: the seeded one stays without a factor for the flows above.
test('two-factor: an administrator enrols TOTP on /admin/security, then every sign-in asks for the code', async () => {
  const mfaAdmin = { email: `admin.mfa.${Date.now()}@example.cd`, password: 'AdminMfa2026' };
  const auth = { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}`, 'Content-Type': 'application/json' };
  const created = await fetch(`${stack.apiUrl}/auth/v1/admin/users`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ email: mfaAdmin.email, password: mfaAdmin.password, email_confirm: true, user_metadata: { full_name: 'Admin Double Facteur' } }),
  }).then((r) => r.json());
  assert.ok(created.id, JSON.stringify(created));
  await service(`profiles?user_id=eq.${created.id}`, { method: 'PATCH', body: JSON.stringify({ role: 'admin' }) });

  const signIn = async (page) => {
    await page.goto(`${stack.baseUrl}/admin/login`);
    await page.getByLabel('Email').fill(mfaAdmin.email);
    await page.getByLabel('Mot de passe', { exact: true }).fill(mfaAdmin.password);
    await page.getByRole('button', { name: 'Se connecter' }).click();
  };

  // no factor yet: the password is enough; enrol on the security page.
  const page = await newPage();
  await signIn(page);
  await page.waitForURL(/\/admin\/dashboard$/);
  await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Sécurité' }).click();
  await page.getByRole('heading', { name: 'Sécurité', level: 1 }).waitFor();
  await page.getByText('Aucune méthode active').waitFor();
  await page.getByLabel("Nom de l'appareil").fill('Téléphone de test');
  await page.getByRole('button', { name: 'Commencer' }).click();
  const qr = page.getByRole('img', { name: /QR code/ });
  await qr.waitFor();
  await page.waitForFunction((el) => el.complete && el.naturalWidth > 0, await qr.elementHandle()); // the SVG decodes
  const secret = (await page.getByTestId('totp-secret').textContent()).trim();
  assert.match(secret, /^[A-Z2-7]{16,}$/);
  await axe(page, '/admin/security (enrolment)');
  await shot(page, 'admin-security-enrol');
  await page.getByLabel('Code de vérification').fill('12345');
  await page.getByRole('button', { name: 'Activer' }).click();
  await page.getByText('Saisissez le code à 6 chiffres de votre application').waitFor();
  await page.getByLabel('Code de vérification').fill(totp(secret));
  await page.getByRole('button', { name: 'Activer' }).click();
  await page.getByText('Vérification en deux étapes activée').waitFor();
  await page.getByRole('list', { name: 'Méthodes actives' }).getByText('Téléphone de test').waitFor();
  await page.getByText('Vérification en deux étapes activée').waitFor({ state: 'hidden' }); // axe on the page, not a fading toast
  await axe(page, '/admin/security (factor listed)');
  await shot(page, 'admin-security-listed');
  const { factors = [] } = await fetch(`${stack.apiUrl}/auth/v1/admin/users/${created.id}`, { headers: auth }).then((r) => r.json());
  assert.equal(factors.filter((f) => f.status === 'verified').length, 1, JSON.stringify(factors));

  // sign out, sign in again: the password alone gives the challenge, not the pages.
  await page.getByRole('button', { name: 'Déconnexion' }).click();
  await page.waitForURL(/\/admin\/login/);
  await signIn(page);
  await page.waitForURL(/\/admin\/dashboard$/);
  await page.getByRole('heading', { name: 'Vérification en deux étapes' }).waitFor();
  assert.equal(await page.getByRole('navigation', { name: 'Administration' }).count(), 0, 'no admin page before the code');
  await axe(page, 'two-factor challenge');
  await shot(page, 'admin-mfa-challenge');
  const code = page.getByLabel('Code de vérification');
  const right = totp(secret);
  await code.fill(right === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Vérifier' }).click();
  await page.getByText('Code invalide ou expiré').waitFor();
  await code.fill(totp(secret));
  await page.getByRole('button', { name: 'Vérifier' }).click();
  await page.getByRole('heading', { name: 'Tableau de bord administrateur' }).waitFor();
  assert.match(page.url(), /\/admin\/dashboard$/);
  assert.equal(await page.getByTestId('tile-vehicles-value').textContent(), String(await count('vehicles')), 'the figures load at aal2');
  assert.equal(await page.getByTestId('tile-users-value').textContent(), String(await count('profiles')));
  await page.context().close();
});

// with its own administrator too: a passkey as the second factor, created and used by Chromium's
// virtual authenticator (a USB security key with a PIN) through the DevTools WebAuthn domain.
test('two-factor with a passkey: an administrator adds a passkey on /admin/security, then signs in with it', async () => {
  const keyAdmin = { email: `admin.passkey.${Date.now()}@example.cd`, password: 'AdminCle2026' };
  const auth = { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}`, 'Content-Type': 'application/json' };
  const created = await fetch(`${stack.apiUrl}/auth/v1/admin/users`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ email: keyAdmin.email, password: keyAdmin.password, email_confirm: true, user_metadata: { full_name: 'Admin Clé' } }),
  }).then((r) => r.json());
  assert.ok(created.id, JSON.stringify(created));
  await service(`profiles?user_id=eq.${created.id}`, { method: 'PATCH', body: JSON.stringify({ role: 'admin' }) });

  // passkeys need a domain: the same site at localhost
  const site = stack.baseUrl.replace('127.0.0.1', 'localhost');
  const page = await newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'usb', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  const signIn = async () => {
    await page.goto(`${site}/admin/login`);
    await page.getByLabel('Email').fill(keyAdmin.email);
    await page.getByLabel('Mot de passe', { exact: true }).fill(keyAdmin.password);
    await page.getByRole('button', { name: 'Se connecter' }).click();
  };

  await signIn();
  await page.waitForURL(/\/admin\/dashboard$/);
  await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Sécurité' }).click();
  await page.getByRole('heading', { name: "Ajouter une clé d'accès" }).waitFor();
  await page.getByLabel('Nom de la clé').fill('Clé USB du bureau');
  await page.getByRole('button', { name: "Ajouter une clé d'accès" }).click();
  await page.getByText("Clé d'accès enregistrée").waitFor();
  await page.getByRole('list', { name: 'Méthodes actives' }).getByText('Clé USB du bureau').waitFor();
  await page.getByText("Clé d'accès enregistrée").waitFor({ state: 'hidden' });
  await axe(page, '/admin/security (passkey listed)');
  await shot(page, 'admin-security-passkey');
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  assert.equal(credentials.length, 1, 'the key holds one credential');
  const { factors = [] } = await fetch(`${stack.apiUrl}/auth/v1/admin/users/${created.id}`, { headers: auth }).then((r) => r.json());
  assert.deepEqual(factors.filter((f) => f.status === 'verified').map((f) => f.factor_type), ['webauthn'], JSON.stringify(factors));

  // sign in again: no page before the passkey answers
  await page.getByRole('button', { name: 'Déconnexion' }).click();
  await page.waitForURL(/\/admin\/login/);
  await signIn();
  await page.getByRole('heading', { name: 'Vérification en deux étapes' }).waitFor();
  assert.equal(await page.getByRole('navigation', { name: 'Administration' }).count(), 0, 'no admin page before the passkey');
  assert.equal(await page.getByLabel('Code de vérification').count(), 0, 'no code to type without an authenticator app');
  await axe(page, 'two-factor challenge (passkey)');
  await page.getByRole('button', { name: "Utiliser ma clé d'accès" }).click();
  await page.getByRole('heading', { name: 'Tableau de bord administrateur' }).waitFor();
  assert.equal(await page.getByTestId('tile-vehicles-value').textContent(), String(await count('vehicles')), 'the figures load at aal2');
  const { credentials: after } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  assert.ok(after[0].signCount >= 1, 'the key signed the challenge');
  await page.context().close();
});
