// The back office's admin-only functions and settings through supabase-js, as the browser calls
// them: allowed for an administrator, refused for a customer and for anon (sql/migrations V40–V44).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../lib/server.mjs';
import { client, userClient } from '../lib/auth.mjs';

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const ADMIN = 'adadadad-0000-4000-8000-000000000003';
const fixture = `
  insert into auth.users (id, email, raw_user_meta_data) values
    ('${A}', 'alice@example.cd', '{"full_name": "Alice Mbuyi"}'), ('${B}', 'bob@example.cd', '{}'),
    ('${ADMIN}', 'admin@example.cd', '{"full_name": "Chef"}');
  update public.profiles set role = 'admin' where user_id = '${ADMIN}';
`;
let server;
let anon;
const as = (sub) => userClient(server, sub);

before(async () => {
  server = await startServer({}, { fixture });
  anon = client(server);
});
after(async () => { await server?.stop(); });

test('admin_users: the administrator lists every profile with booking figures; others are refused', async () => {
  const { data, error } = await as(ADMIN).rpc('admin_users');
  assert.equal(error, null);
  assert.equal(data.length, 3);
  assert.deepEqual(Object.keys(data[0]).sort(), ['booking_count', 'created_at', 'email', 'full_name', 'id', 'is_active', 'last_booking', 'phone', 'role', 'total_spent', 'updated_at', 'user_id', 'username']);
  const customer = await as(A).rpc('admin_users');
  assert.equal(customer.error?.code, '42501');
  const visitor = await anon.rpc('admin_users');
  assert.equal(visitor.error?.code, '42501');
});

test('admin_analytics: a period for the administrator only', async () => {
  const { data, error } = await as(ADMIN).rpc('admin_analytics', { start_date: '2026-01-01', end_date: '2026-03-31' });
  assert.equal(error, null);
  assert.deepEqual(data.monthly.map((m) => m.month), ['2026-01', '2026-02', '2026-03']);
  assert.equal(data.customers.total, 2);
  assert.equal((await as(A).rpc('admin_analytics', { start_date: '2026-01-01', end_date: '2026-03-31' })).error?.code, '42501');
  assert.equal((await as(ADMIN).rpc('admin_analytics', { start_date: '2026-03-31', end_date: '2026-01-01' })).error?.code, '22023');
});

test('settings: the administrator saves in range; out of range and customers are refused', async () => {
  const admin = as(ADMIN);
  const { data: rows } = await admin.from('app_settings').select('section, value').eq('section', 'system').single();
  const ok = await admin.from('app_settings').upsert({ section: 'system', value: { ...rows.value, sessionTimeout: 45 } }).select('value').single();
  assert.equal(ok.error, null);
  assert.equal(ok.data.value.sessionTimeout, 45);
  const bad = await admin.from('app_settings').update({ value: { ...rows.value, maxLoginAttempts: 11 } }).eq('section', 'system');
  assert.equal(bad.error?.code, '23514');
  const customer = await as(A).from('app_settings').update({ value: { ...rows.value, maintenanceMode: true } }).eq('section', 'system').select();
  assert.deepEqual(customer.data, []);
  assert.deepEqual((await as(A).from('app_settings').select('*')).data, []);
});

test('the embeds back-office.md section 7 reads: bookings with their profile and vehicle, a profile with its bookings', async () => {
  const admin = as(ADMIN);
  const v = await admin.from('vehicles').insert({ name: 'Toyota Hilux', make: 'Toyota', model: 'Hilux', year: 2022, category: 'utility', daily_rate: 80 }).select('id').single();
  assert.equal(v.error, null);
  const start = new Date(Date.now() + 20 * 86400000).toISOString().slice(0, 10);
  const end = new Date(Date.now() + 22 * 86400000).toISOString().slice(0, 10);
  const made = await as(A).from('bookings').insert({ user_id: A, vehicle_id: v.data.id, start_date: start, end_date: end }).select('id').single();
  assert.equal(made.error, null);
  const air = await as(A).from('airport_bookings').insert({ user_id: A, service_type: 'vip', flight_date: start, flight_time: '10:00', flight_number: 'AF123', passengers: 1 }).select('id').single();
  assert.equal(air.error, null);

  const bookings = await admin.from('bookings').select('*,profiles(full_name,email,phone,role),vehicles(name,make,model,license_plate)').eq('id', made.data.id).single();
  assert.equal(bookings.error, null);
  assert.deepEqual(bookings.data.profiles, { full_name: 'Alice Mbuyi', email: 'alice@example.cd', phone: null, role: 'user' });
  assert.equal(bookings.data.vehicles.name, 'Toyota Hilux');
  const airport = await admin.from('airport_bookings').select('id,profiles(full_name,email)').eq('id', air.data.id).single();
  assert.equal(airport.error, null);
  assert.deepEqual(airport.data.profiles, { full_name: 'Alice Mbuyi', email: 'alice@example.cd' });
  const profile = await admin.from('profiles').select('*,bookings(id,total_amount,created_at,booking_status)').eq('user_id', A).single();
  assert.equal(profile.error, null);
  assert.deepEqual(profile.data.bookings.map((b) => [b.id, Number(b.total_amount), b.booking_status]), [[made.data.id, 160, 'pending']]);
  // row-level security still decides: a customer embeds only what they may read
  const own = await as(B).from('profiles').select('user_id,bookings(id)');
  assert.equal(own.error, null);
  assert.deepEqual(own.data, [{ user_id: B, bookings: [] }]);
});

test('admin_delete_users: refused to customers and for oneself; deletes the account for an administrator', async () => {
  assert.equal((await anon.rpc('admin_delete_users', { ids: [B] })).error?.code, '42501');
  assert.equal((await as(A).rpc('admin_delete_users', { ids: [B] })).error?.code, '42501');
  const self = await as(ADMIN).rpc('admin_delete_users', { ids: [ADMIN] });
  assert.equal(self.error?.code, '22023');
  assert.equal(self.error?.message, 'Vous ne pouvez pas supprimer votre propre compte');
  const { data, error } = await as(ADMIN).rpc('admin_delete_users', { ids: [B] });
  assert.equal(error, null);
  assert.equal(data, 1);
  const { data: left } = await as(ADMIN).from('profiles').select('user_id').eq('user_id', B);
  assert.deepEqual(left, []);
});

test('an administrator edits another user but not their own role', async () => {
  const other = await as(ADMIN).from('profiles').update({ full_name: 'Alice M.', phone: '+243811111111', role: 'admin' }).eq('user_id', A).select('full_name, role').single();
  assert.equal(other.error, null);
  assert.deepEqual(other.data, { full_name: 'Alice M.', role: 'admin' });
  const own = await as(ADMIN).from('profiles').update({ role: 'user' }).eq('user_id', ADMIN);
  assert.equal(own.error?.code, '22023');
});
