// The rental business rules held by Postgres, seen through supabase-js as a browser would send
// them: tampered totals, other people's bookings, self-promotion to admin, anonymous listing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../lib/server.mjs';
import { client, userClient } from '../lib/auth.mjs';

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const CRUISER = '11111111-0000-4000-8000-00000000000a';
const fixture = `
  insert into auth.users (id, email, raw_user_meta_data) values
    ('${A}', 'alice@example.cd', '{"full_name": "Alice Mbuyi"}'), ('${B}', 'bob@example.cd', '{}');
  insert into public.vehicles (id, name, make, model, year, category, daily_rate)
    values ('${CRUISER}', 'Toyota Land Cruiser', 'Toyota', 'Land Cruiser', 2022, 'suv', 100);
`;
let server;
let anon;
const as = (sub) => userClient(server, sub);

before(async () => {
  server = await startServer({}, { fixture });
  anon = client(server);
});
after(async () => { await server?.stop(); });

const future = (days) => new Date(Date.now() + days * 86400000).toISOString().slice(0, 10);

test('a tampered total is replaced by the real price', async () => {
  const { data, error } = await as(A).from('airport_bookings')
    .insert({ user_id: A, service_type: 'vip', flight_date: future(3), flight_time: '10:00', flight_number: 'af123', passengers: 2, total_amount: 1 })
    .select('total_amount, flight_number, booking_status').single();
  assert.equal(error, null);
  assert.deepEqual(data, { total_amount: 300, flight_number: 'AF123', booking_status: 'pending' });
  const rental = await as(A).from('bookings')
    .insert({ user_id: A, vehicle_id: CRUISER, start_date: future(10), end_date: future(17), total_amount: 5 })
    .select('total_amount').single();
  assert.equal(rental.error, null);
  assert.equal(rental.data.total_amount, 630, '7 days x 100 with the 10% weekly discount');
});

test('the quote rpc says what will be charged', async () => {
  const { data, error } = await anon.rpc('quote_vehicle_rental', { vehicle_id: CRUISER, start_date: '2027-03-01', end_date: '2027-03-31' }).single();
  assert.equal(error, null);
  assert.deepEqual(data, { days: 30, daily_rate: 100, base_total: 3000, discount_percent: 20, total: 2400 });
});

test('a user cannot read another user\'s booking by id', async () => {
  const { data: mine } = await as(B).from('diagnostic_bookings')
    .insert({ user_id: B, service_type: 'climate', appointment_date: future(2), appointment_time: '09:00', vehicle_type: 'Nissan Patrol', customer_email: 'bob@example.cd', customer_phone: '+243810000002' })
    .select('id').single();
  const { data, error } = await as(A).from('diagnostic_bookings').select('*').eq('id', mine.id);
  assert.equal(error, null);
  assert.deepEqual(data, []);
  const single = await as(A).from('diagnostic_bookings').select('*').eq('id', mine.id).single();
  assert.equal(single.error.code, 'PGRST116');
});

test('a user cannot make themself admin', async () => {
  const { error } = await as(A).from('profiles').update({ role: 'admin' }).eq('user_id', A);
  assert.equal(error.code, '42501');
  const { data } = await as(A).from('profiles').select('role, full_name').eq('user_id', A).single();
  assert.deepEqual(data, { role: 'user', full_name: 'Alice Mbuyi' });
  const rename = await as(A).from('profiles').update({ full_name: 'Alice M.', phone: '+243811111111' }).eq('user_id', A).select('full_name').single();
  assert.equal(rename.error, null);
  assert.equal(rename.data.full_name, 'Alice M.');
});

test('anonymous visitors cannot list bookings or profiles', async () => {
  for (const table of ['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings', 'profiles', 'contact_messages']) {
    const { data, error } = await anon.from(table).select('*');
    assert.equal(error, null, table);
    assert.deepEqual(data, [], `${table} is empty for anon`);
  }
});

test('cancelling someone else\'s booking fails; cancelling one\'s own pending booking works', async () => {
  const { data: bobs } = await as(B).from('premium_service_bookings')
    .insert({ user_id: B, service_type: 'business_pack', start_date: future(5), duration_days: 2, customer_name: 'Bob', customer_email: 'bob@example.cd', customer_phone: '+243810000002' })
    .select('id, total_amount').single();
  assert.equal(bobs.total_amount, 600);
  const theft = await as(A).from('premium_service_bookings').update({ booking_status: 'cancelled' }).eq('id', bobs.id).select();
  assert.equal(theft.error, null);
  assert.deepEqual(theft.data, [], 'nothing was cancelled');
  const own = await as(B).from('premium_service_bookings').update({ booking_status: 'cancelled' }).eq('id', bobs.id).select('booking_status').single();
  assert.equal(own.error, null);
  assert.equal(own.data.booking_status, 'cancelled');
  const again = await as(B).from('premium_service_bookings').update({ booking_status: 'pending' }).eq('id', bobs.id).select();
  assert.deepEqual(again.data ?? [], [], 'a cancelled booking stays cancelled');
});

test('a visitor books a vehicle publicly and gets the reference and real total', async () => {
  const { data, error } = await anon.rpc('book_vehicle', {
    vehicle_id: CRUISER, start_date: future(40), end_date: future(42), pickup_location: 'Aéroport de N\'djili',
    customer_name: 'Visiteur Test', customer_email: 'visiteur@example.cd', customer_phone: '+243810000009', driver_license_number: 'cd-778899',
  }).single();
  assert.equal(error, null);
  assert.equal(data.total_amount, 200);
  assert.equal(data.booking_status, 'pending');
  const missing = await anon.rpc('book_vehicle', { vehicle_id: CRUISER, start_date: future(50), end_date: future(51) });
  assert.match(missing.error.message, /champs obligatoires/);
});

test('confirming two overlapping rentals of one vehicle is a 409', async () => {
  const admin = client(server, server.serviceKey);
  const one = await admin.from('bookings').insert({ user_id: A, vehicle_id: CRUISER, start_date: future(60), end_date: future(65), booking_status: 'confirmed' }).select('id').single();
  assert.equal(one.error, null);
  const two = await admin.from('bookings').insert({ user_id: B, vehicle_id: CRUISER, start_date: future(63), end_date: future(66) }).select('id').single();
  const { error, status } = await admin.from('bookings').update({ booking_status: 'confirmed' }).eq('id', two.data.id);
  assert.equal(status, 409);
  assert.equal(error.code, 'PT409');
  assert.equal(error.message, 'Ce véhicule est déjà réservé sur ces dates');
});

test('the reservation dialog\'s booking keeps how the customer will pay, and refuses dates a confirmed rental holds', async () => {
  const { data, error } = await anon.rpc('book_vehicle', {
    vehicle_id: CRUISER, start_date: future(90), end_date: future(97),
    customer_name: 'Visiteur Dialog', customer_email: 'dialog@example.cd', customer_phone: '+243810000010', driver_license_number: 'kin-2026',
    payment_method: 'bank', payment_reference: 'VIR-K7M2Q9XZ', pickup_time: '09:30', passengers: 3,
  }).single();
  assert.equal(error, null);
  assert.equal(data.total_amount, 630, 'seven days: the weekly discount, priced by the database');
  const admin = client(server, server.serviceKey);
  const row = await admin.from('bookings').select('payment_method, payment_reference, pickup_time, passengers, booking_status').eq('id', data.id).single();
  assert.deepEqual(row.data, { payment_method: 'bank', payment_reference: 'VIR-K7M2Q9XZ', pickup_time: '09:30:00', passengers: 3, booking_status: 'pending' });

  const wrong = await anon.rpc('book_vehicle', {
    vehicle_id: CRUISER, start_date: future(70), end_date: future(71),
    customer_name: 'V', customer_email: 'v@example.cd', customer_phone: '+243810000011', driver_license_number: 'kin-1', payment_method: 'cheque',
  });
  assert.equal(wrong.error.code, '22023');

  await admin.from('bookings').insert({ user_id: A, vehicle_id: CRUISER, start_date: future(75), end_date: future(80), booking_status: 'confirmed' }).throwOnError();
  const taken = await anon.rpc('book_vehicle', {
    vehicle_id: CRUISER, start_date: future(77), end_date: future(79),
    customer_name: 'V', customer_email: 'v@example.cd', customer_phone: '+243810000011', driver_license_number: 'kin-1', payment_method: 'card',
  });
  assert.equal(taken.status, 409);
  assert.equal(taken.error.code, 'PT409');
  assert.equal(taken.error.message, 'Ce véhicule est déjà réservé sur ces dates');
});

test('the availability search hides a vehicle another customer has booked, from visitors and customers alike', async () => {
  const admin = client(server, server.serviceKey);
  const held = await admin.from('bookings').insert({ user_id: A, vehicle_id: CRUISER, start_date: future(140), end_date: future(143), booking_status: 'confirmed' }).select('id').single();
  assert.equal(held.error, null);
  const ids = async (client, start, end) => {
    const { data, error } = await client.rpc('search_available_vehicles', { start_date: future(start), end_date: future(end) });
    assert.equal(error, null);
    return data.map((v) => v.id);
  };
  assert.ok(!(await ids(anon, 141, 142)).includes(CRUISER), 'a visitor is not offered it');
  assert.ok(!(await ids(as(B), 141, 142)).includes(CRUISER), 'another customer is not offered it');
  assert.ok((await ids(anon, 143, 145)).includes(CRUISER), 'from its return day on, it is offered again');
});
