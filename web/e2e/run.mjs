// End-to-end flows of the customer site against the real server, in Debian's Chromium.
// Usage: npm run build && npm run test:e2e   (E2E_BASE_URL=http://... to use a running site)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { AxeBuilder } from '@axe-core/playwright';
import { readFileSync } from 'node:fs';
import { SEED, isoInDays, closeSession, newPageIn, openSession, shot, waitForMail } from './harness.mjs';
import { pdfText } from './pdf-text.mjs';

let stack;
let browser;
const stamp = Date.now();
const customer = { email: `client.${stamp}@example.cd`, password: 'Kinshasa2026', newPassword: 'Nouveau2026x', name: 'Jeanne Mbuyi' };

/** Any run of spaces (no-break, narrow no-break) as one plain space: the PDF and the page differ there. */
const spaces = (t) => t.replace(/[\s\u00a0\u202f]+/g, ' ').trim();

/** Dollars as the site shows them (french: « 1 065,00 $ », no-break spaces). */
const usd = (n) => `${new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(n)}\u00a0$`;


const newPage = (viewport = { width: 1280, height: 900 }) => newPageIn(browser, viewport, { acceptDialogs: true });


const inbox = (email, kind) => waitForMail(stack.baseUrl, email, (x) => !kind || x.kind === kind, `${kind ?? 'any'} mail`);

async function login(page, email, password) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Mot de passe', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
}

before(async () => {
  ({ stack, browser } = await openSession());
});

after(() => closeSession({ stack, browser }));

test('a visitor filters the fleet and completes a public booking', async () => {
  const page = await newPage();
  await page.goto(`${stack.baseUrl}/`);
  await page.getByRole('heading', { level: 1 }).waitFor();
  assert.match(await page.title(), /Accueil/);
  await page.locator('article').first().waitFor();
  await shot(page, 'home');

  await page.goto(`${stack.baseUrl}/fleet`);
  await page.getByRole('link', { name: 'SUV' }).first().click();
  await page.waitForURL(/category=suv/);
  await page.getByRole('heading', { name: /Notre flotte : SUV/ }).waitFor();
  const cards = page.locator('article');
  await cards.first().waitFor();
  const categories = await page.locator('article span.rounded-full').allTextContents();
  assert.ok(categories.length > 0 && categories.every((c) => c === 'SUV'), `only SUVs: ${categories}`);
  await shot(page, 'fleet-suv');

  // a fleet card's Réserver goes to the booking details with that vehicle, today → tomorrow
  const firstName = await page.locator('article h3').first().textContent();
  await page.getByRole('link', { name: `Réserver ${firstName}` }).click();
  await page.getByRole('heading', { name: 'Finaliser votre réservation' }).waitFor();
  await page.getByRole('complementary').getByText(firstName, { exact: true }).waitFor();
  await page.getByRole('complementary').getByText('1 jour', { exact: true }).waitFor();

  await page.goto(`${stack.baseUrl}/booking`);
  await page.getByRole('button', { name: 'Filtres avancés' }).click();
  await page.getByLabel('Catégorie').selectOption('luxury');
  await page.getByLabel('Date de fin').fill(isoInDays(8));
  await page.getByRole('button', { name: 'Rechercher' }).click();
  await page.getByRole('heading', { name: /Véhicules disponibles \(\d+\)/ }).waitFor();
  await page.getByTestId('result-card').first().waitFor();
  // 8 days: the weekly discount shows a struck-through base price
  await page.locator('[data-testid=result-card] .line-through').first().waitFor();
  await shot(page, 'booking-search');
  const cardTotal = await page.getByTestId('result-total').first().textContent();
  await page.getByRole('button', { name: /^Sélectionner/ }).first().click();
  await page.getByRole('heading', { name: 'Finaliser votre réservation' }).waitFor();
  assert.equal(await page.getByTestId('summary-total').textContent(), cardTotal);

  await page.getByRole('button', { name: 'Confirmer la réservation' }).click();
  await page.getByText('Veuillez remplir tous les champs obligatoires').first().waitFor();
  await page.getByLabel('Nom complet').fill('Patrick Visiteur');
  await page.getByLabel('Email').fill('visiteur@example.cd');
  await page.getByLabel('Téléphone').fill('12');
  await page.getByLabel('Numéro de permis de conduire').fill('KIN-2026-001');
  await page.getByRole('button', { name: 'Confirmer la réservation' }).click();
  await page.getByText('Numéro de téléphone invalide').waitFor();
  await page.getByLabel('Téléphone').fill('+243 81 234 5678');
  await shot(page, 'booking-details');
  await page.getByRole('button', { name: 'Confirmer la réservation' }).click();
  await page.getByRole('heading', { name: 'Réservation confirmée !' }).waitFor();
  const reference = await page.getByTestId('booking-reference').textContent();
  assert.match(reference, /^[0-9A-F]{8}$/);
  assert.equal(await page.getByTestId('booking-total').textContent(), cardTotal);
  await shot(page, 'booking-confirmation');
  // the promised e-mail comes, in french, with the reference and the total
  const mail = await inbox('visiteur@example.cd', 'booking.received');
  assert.equal(mail.subject, `Demande de réservation reçue #${reference}`);
  assert.match(mail.text, /^Bonjour Patrick Visiteur,/);
  assert.ok(mail.text.includes(`Montant : ${cardTotal}`), mail.text);
  await page.context().close();
});

test('a vehicle page: photos, specifications, price rules, taken dates, Réserver', async () => {
  // the Hilux is rented (confirmed) from today to + 3: its page shows those days taken
  const hilux = '5eed0000-0000-4000-8000-000000000014';
  const r = await fetch(`${stack.apiUrl}/rest/v1/bookings`, {
    method: 'POST',
    headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}`, 'Content-Type': 'application/json', Prefer: 'return=minimal' },
    body: JSON.stringify({ vehicle_id: hilux, start_date: isoInDays(0), end_date: isoInDays(3), booking_status: 'confirmed', customer_name: 'Loueur', customer_email: 'loueur@example.cd', customer_phone: '+243810000077', driver_license_number: 'KIN-9' }),
  });
  assert.equal(r.status, 201, await r.text());
  const page = await newPage();
  await page.goto(`${stack.baseUrl}/fleet?category=utility`);
  await page.getByRole('link', { name: 'Toyota Hilux', exact: true }).click();
  await page.waitForURL(new RegExp(`/fleet/${hilux}$`));
  await page.getByRole('heading', { level: 1, name: 'Toyota Hilux' }).waitFor();
  assert.match(await page.title(), /Toyota Hilux 2022/);
  // French typography: non-breaking spaces before « : » and « % » (the text as written)
  const weekly = page.getByTestId('price-rules').getByText('À partir de 7 jours : -10 %');
  await weekly.waitFor();
  assert.match(await weekly.textContent(), /^À partir de 7 jours\u00a0: -10\u00a0% /);
  await page.getByRole('heading', { name: 'Caractéristiques' }).waitFor();
  await page.getByTestId('next-free').getByText(/^Prochaines dates libres : à partir du /).waitFor();
  assert.ok((await page.getByTestId('availability-month').count()) >= 3);
  assert.equal(await page.locator('td[data-state=booked]').count(), 3, 'today, + 1 and + 2 are taken; + 3, the return day, is free');
  // a WhatsApp chat with the company's number, about this vehicle
  const whatsapp = await page.getByRole('link', { name: 'WhatsApp' }).first().getAttribute('href');
  assert.match(whatsapp, /^https:\/\/wa\.me\/243810000000\?text=.*Toyota%20Hilux/);
  await shot(page, 'vehicle-page');
  await page.getByRole('link', { name: 'Réserver Toyota Hilux' }).click();
  await page.getByRole('heading', { name: 'Finaliser votre réservation' }).waitFor();
  assert.match(page.url(), new RegExp(`start=${isoInDays(3)}`));
  // opened directly, the page asks for the vehicle before its JavaScript has arrived (not after),
  // once, and preloads the photo
  await page.goto(`${stack.baseUrl}/fleet/${hilux}`);
  await page.getByRole('heading', { level: 1, name: 'Toyota Hilux' }).waitFor();
  const timing = await page.evaluate((id) => {
    const entries = performance.getEntriesByType('resource');
    const asks = entries.filter((e) => e.name.includes('/rest/v1/vehicles?') && e.name.includes(`id=eq.${id}`));
    const scripts = entries.filter((e) => e.initiatorType !== 'fetch' && /\/assets\/.*\.js$/.test(e.name));
    return { asks: asks.map((e) => Math.round(e.startTime)), lastScript: Math.round(Math.max(...scripts.map((e) => e.responseEnd))), preload: !!document.querySelector('link[rel=preload][as=image]') };
  }, hilux);
  assert.equal(timing.asks.length, 1, `one request for the vehicle: ${JSON.stringify(timing)}`);
  assert.ok(timing.asks[0] < timing.lastScript, `the vehicle is asked for before the scripts are in: ${JSON.stringify(timing)}`);
  assert.ok(timing.preload, 'its photo is preloaded');
  // an unknown vehicle
  await page.goto(`${stack.baseUrl}/fleet/00000000-0000-4000-8000-000000000000`);
  await page.getByText('Véhicule introuvable').waitFor();
  await page.context().close();
});

test('a visitor reserves on /car-rental through the reservation dialog, paying nothing online', async () => {
  const page = await newPage();
  await page.goto(`${stack.baseUrl}/car-rental`);
  await page.locator('article h3').first().waitFor();
  const name = await page.locator('article h3').first().textContent();
  const reserve = page.getByRole('button', { name: `Réserver ${name}` });
  const dialog = page.getByRole('dialog', { name: `Réserver : ${name}` });
  const axeDialog = async (step) => {
    const r = await new AxeBuilder({ page }).include('dialog[open]').analyze();
    const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${step}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    assert.deepEqual(bad, []);
  };

  // a real modal: Escape closes it and focus goes back to the card's button
  await reserve.click();
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), `Réserver ${name}`);

  // step 1: the French messages, then the visitor's details
  await reserve.click();
  await dialog.getByRole('button', { name: 'Suivant' }).click();
  for (const m of ['Le nom est requis', 'Email invalide', 'Numéro de téléphone invalide', 'Le numéro de permis est requis']) await dialog.getByText(m).waitFor();
  await axeDialog('personal');
  const email = `dialog.${stamp}@example.cd`;
  await dialog.getByLabel('Nom complet').fill('Didier Dialog');
  await dialog.getByLabel('Email').fill(email);
  await dialog.getByLabel('Téléphone').fill('+243 81 555 0000');
  await dialog.getByLabel('Numéro de permis de conduire').fill('KIN-DLG-01');
  await dialog.getByRole('button', { name: 'Suivant' }).click();

  // step 2: duration clamped, then 8 days (weekly discount) priced by the server
  await dialog.getByLabel('Durée (jours)').fill('45');
  await dialog.getByText('La durée maximale est de 30 jours').waitFor();
  assert.equal(await dialog.getByLabel('Durée (jours)').inputValue(), '30');
  const start = isoInDays(20);
  await dialog.getByLabel('Date de début').fill(start);
  await dialog.getByLabel('Heure de prise en charge').fill('10:00');
  await dialog.getByLabel('Durée (jours)').fill('8');
  await dialog.getByLabel('Nombre de personnes').fill('2');
  await dialog.getByText('Remise (').waitFor();
  const quoted = await dialog.getByTestId('quote-total').textContent();
  await shot(page, 'reservation-booking-step');
  await dialog.getByRole('button', { name: 'Suivant' }).click();

  // step 3: the bank transfer shows its reference; the card button waits for a valid card
  await dialog.getByRole('radio', { name: /Virement bancaire/ }).check();
  assert.match(await dialog.getByTestId('transfer-reference').textContent(), /^VIR-[A-HJ-NP-Z2-9]{8}$/);
  await dialog.getByRole('radio', { name: /Carte bancaire/ }).check();
  const cont = dialog.getByRole('button', { name: 'Continuer' });
  assert.equal(await cont.isDisabled(), true);
  await dialog.getByLabel('Numéro de carte').fill('4242 4242 4242 4241');
  await dialog.getByLabel('Expiration (MM/AA)').focus();
  await dialog.getByText('Numéro de carte invalide').waitFor();
  await dialog.getByLabel('Numéro de carte').fill('4242 4242 4242 4242');
  await dialog.getByLabel('Expiration (MM/AA)').fill('12/35');
  await dialog.getByLabel('CVV').fill('123');
  await dialog.getByLabel('Titulaire de la carte').fill('Didier Dialog');
  assert.equal(await dialog.getByLabel('Titulaire de la carte').inputValue(), 'DIDIER DIALOG');
  assert.equal(await dialog.getByTestId('total-with-fee').textContent(), quoted, 'no fee on a card');
  await axeDialog('payment');
  await shot(page, 'reservation-payment-step');
  await cont.click();

  // step 4: the summary, then a real booking
  assert.equal(await dialog.getByTestId('summary-total').textContent(), quoted);
  await dialog.getByText(/Aucun paiement n'est effectué sur ce site/).waitFor();
  await axeDialog('summary');
  await dialog.getByRole('button', { name: 'Confirmer' }).click();
  await page.getByText('Votre réservation a été soumise avec succès').waitFor();
  const confirmation = page.getByRole('dialog', { name: 'Réservation enregistrée !' });
  await confirmation.waitFor();
  assert.equal(await confirmation.getByTestId('booking-total').textContent(), quoted);
  await confirmation.getByText(/aucune donnée de carte n'a été transmise/).waitFor();
  assert.equal(await confirmation.getByRole('link', { name: 'Voir mes réservations' }).count(), 0, 'a visitor has no profile to look in');
  await shot(page, 'reservation-confirmed');

  if (stack.serviceKey) {
    const r = await fetch(`${stack.apiUrl}/rest/v1/bookings?select=*&customer_email=eq.${encodeURIComponent(email)}`, {
      headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}` },
    });
    const rows = await r.json();
    assert.equal(rows.length, 1);
    const [b] = rows;
    assert.equal(usd(Number(b.total_amount)), quoted, 'the stored total is the quoted one');
    assert.deepEqual(
      { start: b.start_date, end: b.end_date, status: b.booking_status, user: b.user_id, method: b.payment_method, time: b.pickup_time, people: b.passengers, licence: b.driver_license_number },
      { start, end: isoInDays(28), status: 'pending', user: null, method: 'card', time: '10:00:00', people: 2, licence: 'KIN-DLG-01' },
    );
    assert.doesNotMatch(JSON.stringify(b), /4242|12\/35|DIDIER DIALOG/, 'no card data reaches the server');
  }

  // nothing overflows a 360 px phone, dialog open
  await confirmation.getByRole('button', { name: 'Retour aux véhicules' }).click();
  await page.setViewportSize({ width: 360, height: 740 });
  await reserve.click();
  await dialog.waitFor();
  const wide = await page.evaluate(() => {
    const d = document.querySelector('dialog[open]');
    return Math.max(document.documentElement.scrollWidth - window.innerWidth, d ? d.scrollWidth - d.clientWidth : 0);
  });
  assert.ok(wide <= 0, `the dialog overflows by ${wide}px at 360 px`);
  await page.screenshot({ path: new URL('../test-results/reservation-360.png', import.meta.url).pathname });
  await page.context().close();
});

test('a new customer registers, confirms the e-mail, logs in and books the four kinds', async () => {
  const page = await newPage();
  await page.goto(`${stack.baseUrl}/register`);
  const submit = page.getByRole('button', { name: "S'inscrire" }).last();
  assert.equal(await submit.isDisabled(), true, 'submit disabled while fields are empty');
  await page.getByLabel('Nom complet (facultatif)').fill(customer.name);
  await page.getByLabel('Email').fill(customer.email);
  await page.getByLabel('Mot de passe', { exact: true }).fill('faible');
  await page.getByLabel('Confirmer le mot de passe').fill('autre');
  await page.getByLabel('Confirmer le mot de passe').blur();
  await page.getByText('Le mot de passe doit contenir au moins 8 caractères, une majuscule, une minuscule et un chiffre').waitFor();
  await page.getByLabel('Mot de passe', { exact: true }).fill(customer.password);
  await page.getByLabel('Confirmer le mot de passe').fill(customer.password);
  await shot(page, 'register');
  await submit.click();
  await page.waitForURL(/\/login\?registered=1/);

  // signing in before confirming is refused, in French
  await login(page, customer.email, customer.password);
  await page.getByText('Veuillez confirmer votre email avant de vous connecter').first().waitFor();

  const mail = await inbox(customer.email, 'confirmation').catch(() => inbox(customer.email));
  assert.ok(mail.link, 'the confirmation mail has a link');
  // in French, as the site speaks (web/mail, MAILER_SUBJECTS_*)
  assert.equal(mail.subject, 'Confirmez votre adresse e-mail');
  assert.match(mail.text, /Bienvenue chez Kinshasa Prestige Auto/);
  assert.match(mail.text, /Ou saisissez ce code : \d{6}/);
  // the confirmation page makes no request the server refuses (it used to POST /rest/v1/profiles
  // after signing out, and got 401)
  const refused = [];
  const listen = (r) => {
    if (r.status() === 401 || (r.request().method() === 'POST' && r.url().includes('/rest/v1/profiles'))) refused.push(`${r.request().method()} ${r.url()} ${r.status()}`);
  };
  page.on('response', listen);
  await page.goto(mail.link);
  await page.getByText('Votre email est confirmé !').waitFor();
  await page.waitForURL(/\/login\?verified=1/, { timeout: 5000 });
  await page.waitForLoadState('networkidle');
  page.off('response', listen);
  assert.deepEqual(refused, [], '/verify-email: no refused request');

  // signed out, a service booking asks to log in and comes back
  await page.goto(`${stack.baseUrl}/airport-service`);
  await page.getByRole('button', { name: 'Réserver Service VIP' }).click();
  await page.getByRole('dialog').getByText('Vous devez être connecté pour réserver').waitFor();
  await page.getByRole('link', { name: 'Se connecter' }).click();
  await page.waitForURL(/\/login\?redirect=/);
  await login(page, customer.email, customer.password);
  await page.waitForURL(/\/airport-service$/);

  // airport: validation errors first, then the booking
  await page.getByRole('button', { name: 'Réserver Service VIP' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Confirmer la réservation' }).click();
  await dialog.getByText('La date est requise').waitFor();
  await dialog.getByText("L'heure est requise").waitFor();
  await dialog.getByText('Le numéro de vol est requis').waitFor();
  await dialog.getByLabel('Numéro de vol').fill('E');
  await dialog.getByLabel('Passagers').fill('0');
  await dialog.getByRole('button', { name: 'Confirmer la réservation' }).click();
  await dialog.getByText('Format de numéro de vol invalide').waitFor();
  await dialog.getByText('Au moins un passager est requis').waitFor();
  await shot(page, 'airport-errors');
  await dialog.getByLabel('Date du vol').fill(isoInDays(5));
  await dialog.getByLabel('Heure du vol').fill('14:30');
  await dialog.getByLabel('Numéro de vol').fill('et863');
  // 60 passengers: refused, and no total is estimated for a number that cannot be booked
  await dialog.getByLabel('Passagers').fill('60');
  await dialog.getByRole('button', { name: 'Confirmer la réservation' }).click();
  await dialog.getByText(/50 passagers/).first().waitFor();
  assert.equal(await dialog.getByText('Total estimé').count(), 0);
  await dialog.getByLabel('Passagers').fill('2');
  await dialog.getByText('Total estimé').waitFor();
  await dialog.getByRole('button', { name: 'Confirmer la réservation' }).click();
  await page.getByRole('heading', { name: 'Réservation confirmée !' }).waitFor();
  assert.equal(await page.getByTestId('booking-total').textContent(), '300,00\u00a0$');
  await shot(page, 'airport-confirmation');
  // « Réserver à nouveau » closes the confirmation and opens an empty dialog of the same offer
  await page.getByRole('button', { name: 'Réserver à nouveau' }).click();
  const again = page.getByRole('dialog', { name: 'Réserver un service aéroportuaire' });
  await again.waitFor();
  assert.equal(await page.getByRole('heading', { name: 'Réservation confirmée !' }).count(), 0);
  assert.equal(await again.getByLabel('Type de service').inputValue(), 'vip');
  assert.deepEqual(
    [await again.getByLabel('Date du vol').inputValue(), await again.getByLabel('Heure du vol').inputValue(), await again.getByLabel('Numéro de vol').inputValue(), await again.getByLabel('Passagers').inputValue()],
    ['', '', '', '1'],
  );
  await page.keyboard.press('Escape');
  await again.waitFor({ state: 'hidden' });

  // diagnostics
  await page.goto(`${stack.baseUrl}/diagnostics`);
  await page.getByRole('button', { name: 'Prendre rendez-vous : Diagnostic Mécanique' }).click();
  const d2 = page.getByRole('dialog');
  await d2.getByLabel('Type de véhicule (marque et modèle)').fill('Toyota Corolla 2019');
  await d2.getByLabel('Téléphone').fill('+243 81 234 5678');
  await d2.getByLabel('Date').fill(isoInDays(3));
  await d2.getByLabel('Heure').selectOption('10:00');
  await d2.getByRole('button', { name: 'Confirmer le rendez-vous' }).click();
  await page.getByRole('heading', { name: 'Rendez-vous confirmé !' }).waitFor();
  assert.equal(await page.getByTestId('booking-total').textContent(), '50,00\u00a0$');

  // premium
  await page.goto(`${stack.baseUrl}/premium-service`);
  await page.getByRole('button', { name: 'Réserver Pack Business' }).click();
  const d3 = page.getByRole('dialog');
  assert.equal(await d3.getByLabel('Nom complet').inputValue(), customer.name);
  await d3.getByLabel('Téléphone').fill('0612345678');
  await d3.getByLabel('Date de début').fill(isoInDays(10));
  await d3.getByLabel('Durée').selectOption('2');
  await d3.getByRole('button', { name: 'Envoyer la demande' }).click();
  await page.getByRole('heading', { name: 'Demande envoyée !' }).waitFor();
  assert.equal(await page.getByTestId('booking-total').textContent(), '600,00\u00a0$');

  // a vehicle, signed in
  await page.goto(`${stack.baseUrl}/booking`);
  await page.getByTestId('result-card').first().waitFor();
  const vehicleTotal = await page.getByTestId('result-total').first().textContent();
  await page.getByRole('button', { name: /^Sélectionner/ }).first().click();
  assert.equal(await page.getByLabel('Email').inputValue(), customer.email);
  await page.getByLabel('Téléphone').fill('+243 99 000 1111');
  await page.getByLabel('Numéro de permis de conduire').fill('CD-778899');
  await page.getByRole('button', { name: 'Confirmer la réservation' }).click();
  await page.getByRole('heading', { name: 'Réservation confirmée !' }).waitFor();

  // the profile lists the four, newest first, with their totals
  await page.goto(`${stack.baseUrl}/profile`);
  await page.getByRole('tab', { name: 'Mes réservations' }).click();
  await page.getByTestId('booking-item').nth(3).waitFor();
  assert.equal(await page.getByTestId('booking-item').count(), 4);
  const amounts = await page.getByTestId('booking-amount').allTextContents();
  assert.deepEqual(amounts, [vehicleTotal, '600,00\u00a0$', '50,00\u00a0$', '300,00\u00a0$']);
  const spentBefore = 600 + 50 + 300 + Number(vehicleTotal.replace(/[$\s\u202f\u00a0]/g, '').replace(',', '.'));
  await shot(page, 'profile-bookings');

  // on a phone: every tab whole and in view; a booking's actions in one row of like buttons
  await page.setViewportSize({ width: 390, height: 844 });
  for (const tab of await page.getByRole('tab').all()) {
    const fits = await tab.evaluate((el) => el.getBoundingClientRect().right <= window.innerWidth && el.getBoundingClientRect().left >= 0 && el.scrollWidth <= el.clientWidth);
    assert.ok(fits, `the tab « ${await tab.textContent()} » is cut at 390 px`);
  }
  assert.equal(await page.getByRole('tablist').evaluate((el) => el.scrollWidth - el.clientWidth), 0, 'the tab bar does not scroll sideways');
  const actions = await page.getByTestId('booking-item').first().getByTestId('booking-actions').evaluate((row) =>
    [...row.children].map((el) => ({ name: el.textContent.trim(), top: Math.round(el.getBoundingClientRect().top), height: Math.round(el.getBoundingClientRect().height), border: getComputedStyle(el).borderTopWidth })),
  );
  assert.deepEqual(actions.map((a) => a.name), ['Reçu', 'Modifier les dates', 'Annuler']);
  assert.equal(new Set(actions.map((a) => a.top)).size, 1, `one row of actions at 390 px: ${JSON.stringify(actions)}`);
  assert.equal(new Set(actions.map((a) => `${a.height} ${a.border}`)).size, 1, `like buttons (« Reçu » too): ${JSON.stringify(actions)}`);
  await shot(page, 'profile-bookings-390');
  await page.setViewportSize({ width: 1280, height: 900 });

  // cancel the airport booking
  await page.getByTestId('booking-item').nth(3).getByRole('button', { name: /^Annuler la réservation/ }).click();
  await page.getByTestId('booking-item').nth(3).getByText('Annulée').waitFor();
  const cancelled = await inbox(customer.email, 'booking.cancelled_by_customer');
  assert.match(cancelled.subject, /^Réservation annulée #[0-9A-F]{8}$/);
  assert.match(cancelled.text, /annulée, comme vous l'avez demandé/);
  assert.match(cancelled.text, /Service aéroport : /);
  await page.getByRole('tab', { name: 'Tableau de bord' }).click();
  const spent = await page.getByTestId('total-spent').textContent();
  assert.equal(spent, usd(spentBefore - 300));
  assert.equal(await page.getByTestId('booking-item').count(), 3);
  await shot(page, 'profile-dashboard');

  // move the pending rental to other dates: checked and priced again by the database, and mailed
  await page.getByRole('tab', { name: 'Mes réservations' }).click();
  const rental = page.getByTestId('booking-item').first();
  await rental.getByRole('button', { name: /^Modifier les dates de la réservation / }).click();
  await rental.getByLabel('Nouvelle date de début').fill(isoInDays(45));
  await rental.getByLabel('Nouvelle date de fin').fill(isoInDays(52));
  await rental.getByRole('button', { name: 'Enregistrer' }).click();
  const toast = page.getByText(/^Dates modifiées : nouveau total /).first();
  await toast.waitFor();
  const newTotal = (await toast.textContent()).replace('Dates modifiées : nouveau total ', '');
  await rental.getByTestId('booking-amount').filter({ hasText: newTotal }).waitFor();
  const changed = await inbox(customer.email, 'booking.changed');
  assert.match(changed.subject, /^Réservation modifiée #[0-9A-F]{8}$/);
  assert.match(changed.text, /\(7 jours\)/);

  // its receipt: a PDF made by the booking-receipt Edge Function, downloaded under a French name
  const reference = (await rental.getByText(/^Réf\./).locator('span').textContent()).trim();
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 90_000 }), // the first call starts Deno and fetches pdf-lib from npm
    rental.getByRole('button', { name: `Télécharger le reçu de la réservation ${reference} (PDF)` }).click(),
  ]);
  assert.equal(download.suggestedFilename(), `recu-${reference}.pdf`);
  const pdf = readFileSync(await download.path());
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  const text = pdfText(pdf).map(spaces);
  for (const expected of ['Bon de réservation', `Référence : #${reference}`, 'Kinshasa Prestige Auto', 'Boulevard du 30 Juin, Gombe, Kinshasa', customer.name, customer.email, spaces(newTotal)]) {
    assert.ok(text.includes(expected), `the receipt shows « ${expected} »: ${JSON.stringify(text)}`);
  }
  assert.ok(text.some((line) => /^Du \d{1,2} \S+ \d{4} au \d{1,2} \S+ \d{4} \(7 jours\)$/.test(line)), `the new dates: ${JSON.stringify(text)}`);
  assert.ok(text.some((line) => line.startsWith('Statut du paiement : À régler')), `the payment status: ${JSON.stringify(text)}`);
  await shot(page, 'receipt-downloaded');

  // how to hear of the bookings: texts too (the database reads the choice)
  await page.getByRole('tab', { name: 'Notifications' }).click();
  await page.getByRole('checkbox', { name: /Par SMS/ }).check();
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await page.getByText('Préférences de notification enregistrées').first().waitFor();
  const [choices] = await (await fetch(`${stack.apiUrl}/rest/v1/profiles?email=eq.${encodeURIComponent(customer.email)}&select=notify_email,notify_sms`, {
    headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}` },
  })).json();
  assert.deepEqual(choices, { notify_email: true, notify_sms: true });

  // edit the profile
  await page.getByRole('tab', { name: 'Profil' }).click();
  await page.getByLabel('Téléphone').fill('+243 81 111 2222');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await page.getByText('Profil mis à jour').waitFor();
  if (stack.serviceKey) {
    // the account's user_metadata follows the profile
    const headers = { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}` };
    const [{ user_id: id }] = await (await fetch(`${stack.apiUrl}/rest/v1/profiles?select=user_id&email=eq.${encodeURIComponent(customer.email)}`, { headers })).json();
    const account = await (await fetch(`${stack.apiUrl}/auth/v1/admin/users/${id}`, { headers })).json();
    assert.deepEqual({ name: account.user_metadata.full_name, phone: account.user_metadata.phone }, { name: customer.name, phone: '+243 81 111 2222' });
  }

  // on a phone, the menu has the cart of the desktop bar, with the pending count (the airport one is cancelled)
  await page.setViewportSize({ width: 375, height: 740 });
  await page.getByRole('button', { name: 'Ouvrir le menu' }).click();
  const cart = page.locator('#mobile-menu').getByRole('link', { name: 'Panier : 3 réservations en attente' });
  await cart.waitFor();
  assert.equal(await cart.getByTestId('cart-count').textContent(), '3');
  await page.context().close();
});

test('a receipt is made for its own customer only: another customer gets 404, no token 401, the service role any', async () => {
  const receipt = (id, token) =>
    fetch(`${stack.apiUrl}/functions/v1/booking-receipt?id=${id}`, { headers: { apikey: stack.anonKey, ...(token ? { Authorization: `Bearer ${token}` } : {}) } });
  const signIn = async (email, password) => {
    const r = await fetch(`${stack.apiUrl}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: stack.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    assert.equal(r.status, 200, `${email} signs in`);
    return (await r.json()).access_token;
  };
  // the demo customer's completed rental (web/supabase/seed.sql), and another customer
  const booking = '5eedb003-0000-4000-8000-000000000000';
  const demo = await signIn('client@kinshasa-auto.test', SEED.demoPassword);
  const other = { email: `autre.${stamp}@example.cd`, password: 'Kinshasa2026' };
  const created = await fetch(`${stack.apiUrl}/auth/v1/admin/users`, {
    method: 'POST',
    headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...other, email_confirm: true, user_metadata: { full_name: 'Autre Client' } }),
  });
  assert.equal(created.status, 200);
  const stranger = await signIn(other.email, other.password);

  // its customer gets the PDF (GET ?id=, as a link would ask)
  const own = await receipt(booking, demo);
  assert.equal(own.status, 200, await own.clone().text());
  assert.equal(own.headers.get('content-type'), 'application/pdf');
  assert.equal(own.headers.get('content-disposition'), 'attachment; filename="recu-5EEDB003.pdf"');
  assert.equal(own.headers.get('access-control-allow-origin'), '*');
  const text = pdfText(Buffer.from(await own.arrayBuffer())).map(spaces);
  for (const expected of ['Reçu', 'Référence : #5EEDB003', 'Client Démo', 'Statut : Terminée', 'Statut du paiement : Réglé auprès de notre équipe']) {
    assert.ok(text.includes(expected), `the receipt shows « ${expected} »: ${JSON.stringify(text)}`);
  }

  // another customer: row-level security finds nothing, so the function answers 404 in French
  const refused = await receipt(booking, stranger);
  assert.equal(refused.status, 404);
  assert.deepEqual(await refused.json(), { error: 'not_found', message: 'Réservation introuvable dans votre compte.' });

  // the service role reads past row-level security: any booking's receipt (what the outbox
  // asks for to attach it to the confirmation mail), as a POST of {id, kind}
  const service = await fetch(`${stack.apiUrl}/functions/v1/booking-receipt`, {
    method: 'POST',
    headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: booking, kind: 'vehicle' }),
  });
  assert.equal(service.status, 200, await service.clone().text());
  assert.equal(service.headers.get('content-disposition'), 'attachment; filename="recu-5EEDB003.pdf"');

  // no token: refused before the function runs (verify_jwt)
  const anonymous = await receipt(booking, null);
  assert.equal(anonymous.status, 401);
  assert.deepEqual(await anonymous.json(), { msg: 'Error: Missing authorization header' });

  // a browser on another origin is allowed to send the headers supabase-js adds (its preflight
  // names them, as every browser's does)
  const preflight = await fetch(`${stack.apiUrl}/functions/v1/booking-receipt`, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://example.test',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, x-client-info, apikey, content-type',
    },
  });
  assert.equal(preflight.status, 200);
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/);
});

test('password reset end to end', async () => {
  const page = await newPage();
  await page.goto(`${stack.baseUrl}/forgot-password`);
  await page.getByLabel('Email').fill(customer.email);
  await page.getByRole('button', { name: 'Envoyer le lien' }).click();
  await page.getByText('Un email de réinitialisation vous a été envoyé').waitFor();
  const mail = await inbox(customer.email, 'recovery');
  assert.equal(mail.subject, 'Réinitialisez votre mot de passe');
  await page.goto(mail.link);
  await page.waitForURL(/\/reset-password/);
  await page.getByLabel('Nouveau mot de passe').fill(customer.newPassword);
  await page.getByLabel('Confirmer le mot de passe').fill(customer.newPassword);
  await shot(page, 'reset-password');
  await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
  await page.waitForURL(/\/login\?reset=1/);
  await login(page, customer.email, customer.password);
  await page.getByText('Email ou mot de passe incorrect').first().waitFor();
  await page.getByLabel('Mot de passe', { exact: true }).fill(customer.newPassword);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.waitForURL(/\/profile$/);
  await page.context().close();
});

test('the contact form stores the message', async () => {
  const page = await newPage();
  await page.goto(`${stack.baseUrl}/contact`);
  await page.getByRole('button', { name: 'Envoyer le message' }).click();
  await page.getByText('Veuillez remplir tous les champs obligatoires.').first().waitFor();
  await page.getByLabel('Nom', { exact: true }).fill('Aline Kabasele');
  await page.getByLabel('Email').fill(`aline.${stamp}@example.cd`);
  await page.getByLabel('Sujet').selectOption('information');
  await page.getByLabel('Message').fill('Bonjour, proposez-vous des locations avec chauffeur pour un mariage ?');
  await page.getByRole('button', { name: 'Envoyer le message' }).click();
  await page.getByText('Votre message a bien été enregistré').waitFor();
  await shot(page, 'contact');
  if (stack.serviceKey) {
    const r = await fetch(`${stack.apiUrl}/rest/v1/contact_messages?select=name,subject,source&email=eq.aline.${stamp}@example.cd`, {
      headers: { apikey: stack.serviceKey, Authorization: `Bearer ${stack.serviceKey}` },
    });
    assert.deepEqual(await r.json(), [{ name: 'Aline Kabasele', subject: 'information', source: 'contact' }]);
  }
  await page.context().close();
});

test('blog article and unknown article', async () => {
  const page = await newPage();
  // an unknown path: the app's « Page introuvable », with the status 404 (routes.json)
  const missing = await page.goto(`${stack.baseUrl}/page-inconnue`);
  assert.equal(missing.status(), 404);
  await page.getByRole('heading', { name: 'Page introuvable' }).waitFor();
  const known = await page.goto(`${stack.baseUrl}/fleet/5eed0000-0000-4000-8000-000000000001`);
  assert.equal(known.status(), 200);
  await page.goto(`${stack.baseUrl}/blog`);
  await page.getByRole('link', { name: /Lire la suite/ }).first().click();
  await page.waitForURL(/\/blog\/.+/);
  await page.getByRole('heading', { level: 1, name: /Louer une voiture à Kinshasa/ }).waitFor();
  await page.getByRole('heading', { level: 2, name: 'En ville' }).waitFor();
  await page.getByText('novembre').first().waitFor().catch(() => {});
  await shot(page, 'blog-article');
  await page.goto(`${stack.baseUrl}/blog/42`);
  await page.getByRole('heading', { name: 'Article non trouvé' }).waitFor();
  await page.getByRole('link', { name: /Retour aux articles/ }).waitFor();
  await page.goto(`${stack.baseUrl}/une-page-qui-n-existe-pas`);
  await page.getByRole('heading', { name: 'Page introuvable' }).waitFor();
  await page.context().close();
});

test('the mobile menu at 375 px', async () => {
  const page = await newPage({ width: 375, height: 740 });
  await page.goto(`${stack.baseUrl}/`);
  await page.getByRole('button', { name: 'Ouvrir le menu' }).click();
  const menu = page.locator('#mobile-menu');
  await menu.getByRole('link', { name: 'Luxe' }).waitFor();
  await shot(page, 'mobile-menu');
  await menu.getByRole('link', { name: 'Luxe' }).click();
  await page.waitForURL(/\/fleet\?category=luxury/);
  await page.locator('#mobile-menu').waitFor({ state: 'detached' }); // the menu closes after navigation
  await page.getByRole('heading', { name: /Notre flotte : Luxe/ }).waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scroll (${overflow}px)`);
  await shot(page, 'mobile-fleet');
  // nothing overflows a 360 px phone
  await page.setViewportSize({ width: 360, height: 740 });
  for (const p of ['/', '/booking', '/airport-service', '/contact', '/about', '/register', '/blog']) {
    await page.goto(`${stack.baseUrl}${p}`);
    await page.locator('main h1').first().waitFor();
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `${p} overflows by ${wide}px at 360 px`);
  }
  await shot(page, 'mobile-booking-360');
  await page.context().close();
});

const publicPages = ['/', '/fleet', '/car-rental', '/services', '/premium-service', '/diagnostics', '/airport-service', '/support', '/booking', '/blog', '/about', '/locations', '/contact', '/login', '/register', '/forgot-password', '/page-inconnue'];

test('public pages arrive rendered, and hydrate without errors', async () => {
  // The HTML itself carries the page (read before any JavaScript runs) ...
  for (const [p, title, heading] of [
    ['/', 'Accueil', 'Location de véhicules et service protocole à Kinshasa'],
    ['/fleet', 'Notre flotte', 'Notre flotte'],
    ['/booking', 'Réserver un véhicule', 'Réserver un véhicule'],
  ]) {
    const html = await (await fetch(`${stack.baseUrl}${p}`)).text();
    assert.match(html, new RegExp(`<title>${title} \\| `), `${p} title`);
    assert.ok(html.includes(heading) && html.includes('<footer'), `${p} is rendered in its HTML`);
  }
  // ... other client routes get the empty page, which the browser fills.
  const shell = await (await fetch(`${stack.baseUrl}/profile`)).text();
  assert.match(shell, /<div id="root"><\/div>/);

  const page = await newPage();
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  for (const p of publicPages.filter((x) => x !== '/login' && x !== '/page-inconnue')) {
    await page.goto(`${stack.baseUrl}${p}`);
    await page.locator('main h1').first().waitFor();
  }
  // hydrated for real: the navigation reacts
  await page.goto(`${stack.baseUrl}/`);
  await page.getByRole('link', { name: 'Voir notre flotte' }).click();
  await page.getByRole('heading', { name: 'Notre flotte', level: 1 }).waitFor();
  assert.deepEqual(problems, [], 'no hydration or script error');
  await page.context().close();
});

test('axe-core: no serious or critical violation on public pages', async () => {
  const page = await newPage();
  const failures = [];
  for (const p of publicPages) {
    await page.goto(`${stack.baseUrl}${p}`);
    await page.locator('main h1, main h2').first().waitFor();
    await page.waitForLoadState('networkidle').catch(() => {});
    await shot(page, `page-${p === '/' ? 'accueil' : p.slice(1)}`);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (wide > 0) failures.push(`${p}: overflows by ${wide}px at 1280 px`);
    const results = await new AxeBuilder({ page }).analyze();
    for (const v of results.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
      failures.push(`${p}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
    }
  }
  assert.deepEqual(failures, []);
  await page.context().close();
});

test('expired confirmation links and the administrator redirect', async () => {
  const page = await newPage();
  await page.goto(`${stack.baseUrl}/verify-email#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired`);
  await page.getByText(/Ce lien de confirmation a expiré/).first().waitFor();
  await page.waitForURL(/\/login$/, { timeout: 6000 });

  await page.goto(`${stack.baseUrl}/login`);
  await login(page, 'admin@kinshasa-auto.test', SEED.adminPassword);
  await page.waitForURL(/\/admin\/dashboard$/);
  await page.context().close();
});

test('a customer signs in with an SMS code and the profile keeps the number', async () => {
  const page = await newPage();
  const national = `08${String(stamp).slice(-8)}`;
  const e164 = `+2438${String(stamp).slice(-8)}`;
  await page.goto(`${stack.baseUrl}/login`);
  await page.getByRole('heading', { name: 'Ou connectez-vous par SMS' }).waitFor();
  await page.getByLabel('Numéro de téléphone').fill('12');
  await page.getByRole('button', { name: 'Recevoir un code par SMS' }).click();
  await page.getByText('Numéro invalide', { exact: false }).waitFor();
  await page.getByLabel('Numéro de téléphone').fill(national);
  await page.getByRole('button', { name: 'Recevoir un code par SMS' }).click();
  await page.getByText(`Un code a été envoyé au ${e164}`).waitFor();
  const text = await inbox(e164, 'sms');
  const code = text.text.match(/(\d{6})$/)[1];
  const wrong = code === '000000' ? '111111' : '000000';
  await page.getByLabel('Code reçu par SMS').fill(wrong);
  await page.getByRole('button', { name: 'Valider le code' }).click();
  await page.getByText('Code invalide ou expiré', { exact: false }).waitFor();
  await page.getByLabel('Code reçu par SMS').fill(code);
  await page.getByRole('button', { name: 'Valider le code' }).click();
  await page.waitForURL(/\/profile/);
  await shot(page, 'sms-sign-in-profile');
  await page.getByRole('tab', { name: 'Profil', exact: true }).click();
  const phoneField = page.getByLabel('Téléphone', { exact: true });
  await phoneField.waitFor();
  assert.equal(await phoneField.inputValue(), e164, 'the profile keeps the number');
  await page.context().close();
});
