// The booking rules of V51 through supabase-js, reproducing the findings of issue #12: a
// customer's direct POST /rest/v1/bookings for a vehicle in maintenance, in the past, for ten
// years, over a confirmed rental or with a forged created_at; service bookings in the past; 30
// customers booking the same vehicle and dates at once; a confirmation racing a cancellation;
// 30 confirmations of overlapping requests at once. Each race runs several times.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../lib/server.mjs';
import { client, userClient } from '../lib/auth.mjs';

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const ADMIN = 'adadadad-0000-4000-8000-000000000003';
const CRUISER = '11111111-0000-4000-8000-00000000000a';
const SWIFT = '22222222-0000-4000-8000-00000000000b';
const RANGE = '44444444-0000-4000-8000-00000000000d';
// thirty customers, c0000000-0000-4000-8000-0000000000{01..30}
const CUSTOMERS = Array.from({ length: 30 }, (_, i) => `c0000000-0000-4000-8000-0000000000${String(i + 1).padStart(2, '0')}`);

const fixture = `
  insert into auth.users (id, email) values ('${A}', 'alice@example.cd'), ('${ADMIN}', 'admin@example.cd');
  insert into auth.users (id, email) select id::uuid, 'client' || n || '@example.cd'
    from unnest(array['${CUSTOMERS.join("','")}']) with ordinality as c(id, n);
  update public.profiles set role = 'admin' where user_id = '${ADMIN}';
  insert into public.vehicles (id, name, make, model, year, category, daily_rate, rental_status, specifications) values
    ('${CRUISER}', 'Toyota Land Cruiser', 'Toyota', 'Land Cruiser', 2022, 'suv', 100, 'available', '{"seats": 7}'),
    ('${SWIFT}', 'Suzuki Swift', 'Suzuki', 'Swift', 2021, 'economic', 40, 'available', '{"seats": 5}'),
    ('${RANGE}', 'Range Rover', 'Land Rover', 'Vogue', 2021, 'luxury', 300, 'maintenance', '{}');
  -- the races below book up to 250 days ahead (the advance limit, 90 by default, has its own tests)
  update public.app_settings set value = value || '{"advanceBookingDays": 400}' where section = 'business';
  -- a confirmed rental of the land cruiser from + 30 to + 35 days
  insert into public.bookings (user_id, vehicle_id, start_date, end_date, booking_status)
    values ('${ADMIN}', '${CRUISER}', current_date + 30, current_date + 35, 'confirmed');
`;

let server;
let service;
const as = (sub) => userClient(server, sub);

before(async () => {
  server = await startServer({}, { fixture });
  service = client(server, server.serviceKey);
});
after(async () => { await server?.stop(); });

const future = (days) => new Date(Date.now() + days * 86400000).toISOString().slice(0, 10);

/** A refusal the customer can read: a 4xx, our code, a message naming no constraint. */
function refused(res, status, code, message) {
  assert.equal(res.status, status, JSON.stringify(res.error));
  assert.equal(res.error.code, code);
  if (message) assert.equal(res.error.message, message);
  assert.doesNotMatch(`${res.error.message} ${res.error.details ?? ''} ${res.error.hint ?? ''}`, /constraint|violates|_check|_fkey|_pkey|_no_overlap/);
}

test('a customer\'s direct POST /rest/v1/bookings keeps every booking rule', async () => {
  const post = (row) => as(A).from('bookings').insert({ user_id: A, vehicle_id: SWIFT, start_date: future(5), end_date: future(6), ...row });

  refused(await post({ vehicle_id: RANGE }), 404, 'PT404', 'Véhicule introuvable ou indisponible');
  refused(await post({ start_date: future(-3), end_date: future(-2) }), 400, '22023', 'La date de début ne peut pas être dans le passé');
  refused(await post({ end_date: future(5 + 3650) }), 400, '22023', 'La durée maximale de location est de 30 jours');
  refused(await post({ start_date: future(4), end_date: future(2) }), 400, '22023', 'La date de fin doit suivre la date de début');
  refused(await post({ vehicle_id: CRUISER, start_date: future(31), end_date: future(33) }), 409, 'PT409', 'Ce véhicule est déjà réservé sur ces dates');
  refused(await post({ created_at: '2020-01-01T00:00:00Z' }), 400, '428C9', 'La date de création d\'une réservation est fixée par le serveur');
  refused(await post({ passengers: 6 }), 400, '23514', 'Ce véhicule accepte de 1 à 5 personne(s)');
  refused(await post({ booking_status: 'confirmed' }), 403, '42501');
  // the same through an upsert
  refused(await as(A).from('bookings').upsert({ id: crypto.randomUUID(), user_id: A, vehicle_id: SWIFT, start_date: future(-3), end_date: future(-2) }), 400, '22023');

  const { data } = await service.from('bookings').select('id').eq('user_id', A);
  assert.deepEqual(data, [], 'nothing was stored');

  // a visitor's public rental, directly and through book_vehicle
  const anon = client(server);
  const contact = { customer_name: 'Visiteur', customer_email: 'v@example.cd', customer_phone: '+243810000009', driver_license_number: 'KIN-1' };
  refused(await anon.from('bookings').insert({ vehicle_id: SWIFT, start_date: future(-3), end_date: future(-2), ...contact }), 400, '22023');
  refused(await anon.rpc('book_vehicle', { vehicle_id: SWIFT, start_date: future(5), end_date: future(5 + 3650), ...contact }), 400, '22023');

  // what keeps the rules is accepted, with the server's dates
  const ok = await post({ updated_at: '2020-01-01T00:00:00Z' }).select('created_at, updated_at, booking_status').single();
  assert.equal(ok.error, null);
  assert.equal(ok.data.booking_status, 'pending');
  assert.ok(Date.parse(ok.data.updated_at) > Date.parse('2025-01-01'), 'updated_at is the server\'s');
});

test('the three service kinds refuse a date in the past', async () => {
  const c = as(A);
  const kinds = [
    ['airport_bookings', { user_id: A, service_type: 'vip', flight_date: future(-1), flight_time: '10:00', flight_number: 'AF12' }, 'La date ne peut pas être dans le passé'],
    ['diagnostic_bookings', { user_id: A, service_type: 'reset', appointment_date: future(-1), appointment_time: '09:00', vehicle_type: 'VW Golf', customer_email: 'alice@example.cd', customer_phone: '+243810000001' }, 'La date ne peut pas être dans le passé'],
    ['premium_service_bookings', { user_id: A, service_type: 'vip_concierge', start_date: future(-1), duration_days: 2, customer_name: 'Alice', customer_email: 'alice@example.cd', customer_phone: '+243810000001' }, 'La date de début ne peut pas être dans le passé'],
  ];
  for (const [table, row, message] of kinds) {
    refused(await c.from(table).insert(row), 400, '22023', message);
    const dateKey = Object.keys(row).find((k) => k.endsWith('_date'));
    const { error, status } = await c.from(table).insert({ ...row, [dateKey]: future(2) });
    assert.equal(error, null, `${table}: a future date is accepted`);
    assert.equal(status, 201);
  }
  refused(await c.from('airport_bookings').insert({ ...kinds[0][1], flight_date: future(2), flight_number: 'A' }), 400, '23514', 'Format de numéro de vol invalide');
});

/** Fire `calls` at once; the HTTP statuses, sorted. */
async function race(calls) {
  const results = await Promise.all(calls.map((f) => f()));
  for (const r of results) {
    assert.ok(r.status < 500, `no 5xx: ${r.status} ${JSON.stringify(r.error)}`);
    if (r.error) refused(r, 409, 'PT409');
  }
  return results;
}

test('30 customers booking the same vehicle and dates at once: one booking, 29 × 409, no 500 (four rounds, REST and rpc)', async () => {
  for (let round = 0; round < 4; round += 1) {
    const start = future(40 + round * 5);
    const end = future(42 + round * 5);
    const viaRpc = round % 2 === 1;
    const results = await race(CUSTOMERS.map((sub) => () => (viaRpc
      ? as(sub).rpc('book_vehicle', { vehicle_id: SWIFT, start_date: start, end_date: end, customer_name: 'Client', customer_email: 'c@example.cd', customer_phone: '+243810000001', driver_license_number: 'KIN-1' })
      : as(sub).from('bookings').insert({ user_id: sub, vehicle_id: SWIFT, start_date: start, end_date: end }))));
    const won = results.filter((r) => !r.error);
    assert.equal(won.length, 1, `round ${round}: exactly one acceptance`);
    assert.equal(won[0].status, viaRpc ? 200 : 201);
    assert.equal(results.filter((r) => r.status === 409).length, 29, `round ${round}: 29 × 409`);
    const { data } = await service.from('bookings').select('id').eq('vehicle_id', SWIFT).eq('start_date', start);
    assert.equal(data.length, 1, `round ${round}: one booking stored`);
  }
});

test('an administrator confirming while the customer cancels: one wins, the other gets 409 (ten rounds)', async (t) => {
  const winners = { confirmed: 0, cancelled: 0 };
  for (let round = 0; round < 10; round += 1) {
    const { data: booking, error } = await as(A).from('bookings')
      .insert({ user_id: A, vehicle_id: CRUISER, start_date: future(100 + round * 3), end_date: future(101 + round * 3) }).select('id').single();
    assert.equal(error, null);
    const cancel = () => as(A).from('bookings').update({ booking_status: 'cancelled' }).eq('id', booking.id).select('booking_status');
    const confirm = () => as(ADMIN).from('bookings').update({ booking_status: 'confirmed' }).eq('id', booking.id).select('booking_status');
    const [cancelled, confirmed] = await race(round % 2 ? [cancel, confirm] : [cancel, confirm].reverse()).then((r) => (round % 2 ? r : r.reverse()));
    const ok = [cancelled, confirmed].filter((r) => !r.error);
    assert.equal(ok.length, 1, `round ${round}: exactly one wins (${cancelled.status}, ${confirmed.status})`);
    assert.deepEqual(ok[0].data.length, 1, 'the winner changed the row');
    const loser = cancelled.error ? cancelled : confirmed;
    assert.equal(loser.status, 409);
    const stored = (await service.from('bookings').select('booking_status').eq('id', booking.id).single()).data.booking_status;
    assert.equal(stored, ok[0].data[0].booking_status, 'the stored status is the winner\'s, never silently overwritten');
    winners[stored] += 1;
  }
  assert.equal(winners.confirmed + winners.cancelled, 10);
  t.diagnostic(`confirmation won ${winners.confirmed}, cancellation won ${winners.cancelled}`);
});

test('30 confirmations of overlapping requests at once: one confirmed, 29 × 409, no deadlock (three rounds)', async () => {
  for (let round = 0; round < 3; round += 1) {
    // overlapping pending requests, as service_role may file them
    const rows = CUSTOMERS.map((sub, i) => ({ user_id: sub, vehicle_id: CRUISER, start_date: future(200 + round * 10 + (i % 3)), end_date: future(204 + round * 10) }));
    const { data: pending, error } = await service.from('bookings').insert(rows).select('id');
    assert.equal(error, null);
    const admin = as(ADMIN);
    const results = await race(pending.map(({ id }) => () => admin.from('bookings').update({ booking_status: 'confirmed' }).eq('id', id).select('id')));
    assert.equal(results.filter((r) => !r.error).length, 1, `round ${round}: one confirmation`);
    assert.equal(results.filter((r) => r.status === 409).length, 29, `round ${round}: 29 × 409`);
    for (const r of results.filter((x) => x.error)) assert.equal(r.error.message, 'Ce véhicule est déjà réservé sur ces dates');
  }
});

test('the state machine through REST: no jumping from pending to completed, nothing after a cancellation', async () => {
  const admin = as(ADMIN);
  const { data: booking } = await as(A).from('airport_bookings')
    .insert({ user_id: A, service_type: 'standard', flight_date: future(3), flight_time: '08:00', flight_number: 'SN1' }).select('id').single();
  refused(await admin.from('airport_bookings').update({ booking_status: 'completed' }).eq('id', booking.id), 409, 'PT409', 'Cette réservation est « En attente » : elle ne peut pas passer à « Terminée »');
  for (const status of ['confirmed', 'active', 'completed']) {
    const r = await admin.from('airport_bookings').update({ booking_status: status }).eq('id', booking.id).select('booking_status').single();
    assert.equal(r.error, null, status);
  }
  refused(await as(A).from('airport_bookings').update({ booking_status: 'cancelled' }).eq('id', booking.id), 409, 'PT409', 'Cette réservation ne peut plus être annulée : elle est « Terminée »');
  // the back office's conditional update: a status that moved on matches no row
  const stale = await admin.from('airport_bookings').update({ booking_status: 'cancelled' }).eq('id', booking.id).eq('booking_status', 'pending').select('id');
  assert.equal(stale.error, null);
  assert.deepEqual(stale.data, []);
});
