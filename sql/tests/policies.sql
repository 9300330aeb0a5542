-- the policy matrix: every table x {anon, user a, user b, admin, service_role} x
-- {select, insert, update, delete}. each attempt is rolled back; the result is rows or sqlstate.
begin;
\ir setup.psql
create temp table matrix (who text, stmt text, expected text, what text);
grant select on matrix to public;

-- profiles
insert into matrix values
  ('anon', 'select * from public.profiles', 'ok:0', 'anon reads no profile'),
  ('a', 'select * from public.profiles', 'ok:1', 'a reads only her profile'),
  ('b', 'select * from public.profiles', 'ok:1', 'b reads only his profile'),
  ('admin', 'select * from public.profiles', 'ok:3', 'admin reads every profile'),
  ('service_role', 'select * from public.profiles', 'ok:3', 'service_role reads every profile'),
  ('anon', $$insert into public.profiles (user_id) values ('bbbbbbbb-0000-4000-8000-000000000002')$$, 'error:42501', 'anon cannot create a profile'),
  ('a', $$insert into public.profiles (user_id, role) values ('bbbbbbbb-0000-4000-8000-000000000002', 'user')$$, 'error:42501', 'a cannot create a profile for b'),
  ('b', $$insert into public.profiles (user_id, role) values ('bbbbbbbb-0000-4000-8000-000000000002', 'admin')$$, 'error:42501', 'b cannot create himself an admin profile'),
  ('admin', $$insert into auth.users (id, email) values ('cccccccc-0000-4000-8000-000000000004', 'c@example.cd')$$, 'error:42501', 'admin (a browser role) cannot write auth.users'),
  ('service_role', $$delete from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'$$, 'error:23503', 'not even service_role deletes alone the profile of a customer with bookings (V65: the account is deleted instead)'),
  ('anon', $$update public.profiles set full_name = 'x'$$, 'ok:0', 'anon updates no profile'),
  ('a', $$update public.profiles set full_name = 'Alice M.', phone = '+243811111111' where user_id = auth.uid()$$, 'ok:1', 'a edits her name and phone'),
  ('a', $$update public.profiles set role = 'admin' where user_id = auth.uid()$$, 'error:42501', 'a cannot make herself admin'),
  ('a', $$update public.profiles set email = 'x@example.cd' where user_id = auth.uid()$$, 'error:42501', 'a cannot change her profile e-mail'),
  ('a', $$update public.profiles set user_id = 'bbbbbbbb-0000-4000-8000-000000000002' where user_id = auth.uid()$$, 'error:42501', 'a cannot move her profile'),
  ('a', $$update public.profiles set full_name = 'pwned' where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'$$, 'ok:0', 'a cannot edit b'),
  ('admin', $$update public.profiles set role = 'admin' where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'$$, 'ok:1', 'admin changes a role'),
  ('service_role', $$update public.profiles set role = 'admin' where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'$$, 'ok:1', 'service_role changes a role'),
  ('a', 'delete from public.profiles', 'ok:0', 'a deletes no profile'),
  ('anon', 'delete from public.profiles', 'ok:0', 'anon deletes no profile'),
  ('admin', $$delete from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'$$, 'error:23503', 'admin may delete profiles, but not alone the profile of a customer with bookings (V65)'),
  ('admin', $$delete from public.profiles where user_id = 'adadadad-0000-4000-8000-000000000003'$$, 'ok:1', 'admin deletes a profile without bookings'),
  ('b', $$update public.profiles set phone = '+243822222222' where user_id = auth.uid()$$, 'ok:1', 'b edits his phone'),
  ('b', 'delete from public.profiles', 'ok:0', 'b deletes no profile'),
  ('a', $$insert into public.profiles (user_id) values ('dddddddd-0000-4000-8000-000000000004')$$, 'error:42501', 'a cannot create a missing profile for someone else'),
  ('admin', $$insert into public.profiles (user_id, email) values ('dddddddd-0000-4000-8000-000000000004', 'dora@example.cd')$$, 'ok:1', 'admin creates a missing profile'),
  ('service_role', $$insert into public.profiles (user_id, email) values ('dddddddd-0000-4000-8000-000000000004', 'dora@example.cd')$$, 'ok:1', 'service_role creates a missing profile');

-- vehicles
insert into matrix values
  ('anon', 'select * from public.vehicles', 'ok:2', 'anon reads the available fleet only'),
  ('a', 'select * from public.vehicles', 'ok:2', 'a reads the available fleet'),
  ('b', 'select * from public.vehicles', 'ok:2', 'b reads the available fleet'),
  ('admin', 'select * from public.vehicles', 'ok:3', 'admin reads retired vehicles too'),
  ('service_role', 'select * from public.vehicles', 'ok:3', 'service_role reads every vehicle'),
  ('anon', $$insert into public.vehicles (name, make, model, year) values ('Fake', 'X', 'Y', 2020)$$, 'error:42501', 'anon cannot add a vehicle'),
  ('a', $$insert into public.vehicles (name, make, model, year) values ('Fake', 'X', 'Y', 2020)$$, 'error:42501', 'a cannot add a vehicle'),
  ('b', $$insert into public.vehicles (name, make, model, year) values ('Fake', 'X', 'Y', 2020)$$, 'error:42501', 'b cannot add a vehicle'),
  ('admin', $$insert into public.vehicles (name, make, model, year) values ('Kia Picanto', 'Kia', 'Picanto', 2023)$$, 'ok:1', 'admin adds a vehicle'),
  ('service_role', $$insert into public.vehicles (name, make, model, year) values ('Kia Rio', 'Kia', 'Rio', 2023)$$, 'ok:1', 'service_role adds a vehicle'),
  ('anon', 'update public.vehicles set daily_rate = 1', 'ok:0', 'anon changes no price'),
  ('a', 'update public.vehicles set daily_rate = 1', 'ok:0', 'a changes no price'),
  ('b', 'update public.vehicles set rental_status = $x$retired$x$', 'ok:0', 'b changes no status'),
  ('admin', $$update public.vehicles set rental_status = 'maintenance' where id = '22222222-0000-4000-8000-00000000000b'$$, 'ok:1', 'admin sets a status'),
  ('service_role', 'update public.vehicles set color = $x$Blanc$x$', 'ok:3', 'service_role updates vehicles'),
  ('anon', 'delete from public.vehicles', 'ok:0', 'anon deletes no vehicle'),
  ('a', 'delete from public.vehicles', 'ok:0', 'a deletes no vehicle'),
  ('b', 'delete from public.vehicles', 'ok:0', 'b deletes no vehicle'),
  ('admin', $$delete from public.vehicles where id = '33333333-0000-4000-8000-00000000000c'$$, 'ok:1', 'admin deletes an unbooked vehicle'),
  ('service_role', $$delete from public.vehicles where id = '33333333-0000-4000-8000-00000000000c'$$, 'ok:1', 'service_role deletes a vehicle');

-- vehicle records (V47): the vin, insurance and service dates are the administrators' alone.
insert into public.vehicle_records (vehicle_id, vin, insurance_policy) values ('11111111-0000-4000-8000-00000000000a', 'jtmhv01j000000009', 'AXA-2026-001');
insert into matrix values
  ('anon', 'select * from public.vehicle_records', 'ok:0', 'anon reads no vehicle record'),
  ('a', 'select * from public.vehicle_records', 'ok:0', 'a reads no vehicle record'),
  ('b', 'select * from public.vehicle_records', 'ok:0', 'b reads no vehicle record'),
  ('admin', 'select * from public.vehicle_records', 'ok:1', 'admin reads the vehicle records'),
  ('service_role', 'select * from public.vehicle_records', 'ok:1', 'service_role reads the vehicle records'),
  ('anon', $$insert into public.vehicle_records (vehicle_id, vin) values ('22222222-0000-4000-8000-00000000000b', 'X')$$, 'error:42501', 'anon cannot add a vehicle record'),
  ('a', $$insert into public.vehicle_records (vehicle_id, vin) values ('22222222-0000-4000-8000-00000000000b', 'X')$$, 'error:42501', 'a cannot add a vehicle record'),
  ('admin', $$insert into public.vehicle_records (vehicle_id, vin) values ('22222222-0000-4000-8000-00000000000b', 'jsazc72s000000003')$$, 'ok:1', 'admin adds a vehicle record'),
  ('service_role', $$insert into public.vehicle_records (vehicle_id) values ('22222222-0000-4000-8000-00000000000b')$$, 'ok:1', 'service_role adds a vehicle record'),
  ('anon', $$update public.vehicle_records set insurance_policy = 'x'$$, 'ok:0', 'anon changes no vehicle record'),
  ('b', $$update public.vehicle_records set insurance_policy = 'x'$$, 'ok:0', 'b changes no vehicle record'),
  ('admin', $$update public.vehicle_records set insurance_policy = 'AXA-2027-001'$$, 'ok:1', 'admin updates a vehicle record'),
  ('service_role', $$update public.vehicle_records set insurance_policy = 'AXA-2027-001'$$, 'ok:1', 'service_role updates a vehicle record'),
  ('anon', 'delete from public.vehicle_records', 'ok:0', 'anon deletes no vehicle record'),
  ('a', 'delete from public.vehicle_records', 'ok:0', 'a deletes no vehicle record'),
  ('admin', 'delete from public.vehicle_records', 'ok:1', 'admin deletes a vehicle record'),
  ('service_role', 'delete from public.vehicle_records', 'ok:1', 'service_role deletes a vehicle record');

-- the four booking tables share one shape of rules.
insert into matrix
select who, format(stmt, t), expected, format(what, t)
from (values
  ('public.bookings'), ('public.airport_bookings'), ('public.diagnostic_bookings'), ('public.premium_service_bookings')
) tables(t),
(values
  ('anon', 'select * from %s', 'ok:0', 'anon reads no %s'),
  ('a', 'select * from %s', 'ok:1', 'a reads only her %s'),
  ('b', 'select * from %s', 'ok:1', 'b reads only his %s'),
  ('admin', 'select * from %s', 'ok:2', 'admin reads all %s'),
  ('service_role', 'select * from %s', 'ok:2', 'service_role reads all %s'),
  ('a', 'update %s set booking_status = $x$cancelled$x$ where user_id = auth.uid()', 'ok:1', 'a cancels her pending %s'),
  ('a', 'update %s set booking_status = $x$confirmed$x$ where user_id = auth.uid()', 'error:42501', 'a cannot confirm her own %s'),
  ('a', 'update %s set total_amount = 0 where user_id = auth.uid()', 'error:42501', 'a cannot change the price of %s'),
  ('a', 'update %s set booking_status = $x$cancelled$x$ where user_id <> auth.uid()', 'ok:0', 'a cannot cancel someone else''s %s'),
  ('anon', 'update %s set booking_status = $x$cancelled$x$', 'ok:0', 'anon cancels no %s'),
  ('b', 'update %s set booking_status = $x$cancelled$x$ where user_id = auth.uid()', 'ok:1', 'b cancels his pending %s'),
  ('service_role', 'update %s set booking_status = $x$confirmed$x$ where user_id = $x$bbbbbbbb-0000-4000-8000-000000000002$x$', 'ok:1', 'service_role confirms %s'),
  ('anon', 'delete from %s', 'ok:0', 'anon deletes no %s'),
  ('admin', 'update %s set booking_status = $x$confirmed$x$', 'ok:2', 'admin confirms the pending %s'),
  ('admin', 'update %s set booking_status = $x$completed$x$', 'error:PT409', 'admin cannot jump from pending to completed on %s (V51 state machine)'),
  ('a', 'delete from %s', 'ok:0', 'a deletes no %s'),
  ('b', 'delete from %s', 'ok:0', 'b deletes no %s'),
  ('admin', 'delete from %s', 'ok:2', 'admin deletes %s'),
  ('service_role', 'delete from %s', 'ok:2', 'service_role deletes %s')
) rules(who, stmt, expected, what);

-- inserts differ per booking kind: b books for himself, admin and service_role for b.
insert into matrix
select who, format(stmt, uid), 'ok:1', format('%s creates %s', who, t)
from (values
  ('public.bookings', $q$insert into public.bookings (user_id, vehicle_id, start_date, end_date) values (%L, '22222222-0000-4000-8000-00000000000b', current_date + 40, current_date + 41)$q$),
  ('public.airport_bookings', $q$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number) values (%L, 'standard', current_date + 1, '12:00', 'TK540')$q$),
  ('public.diagnostic_bookings', $q$insert into public.diagnostic_bookings (user_id, service_type, appointment_date, appointment_time, vehicle_type, customer_email, customer_phone) values (%L, 'programming', current_date + 1, '14:00', 'Lexus LX', 'bob@example.cd', '+243810000002')$q$),
  ('public.premium_service_bookings', $q$insert into public.premium_service_bookings (user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone) values (%L, 'private_driver', current_date + 1, 7, 'Bob', 'bob@example.cd', '+243810000002')$q$)
) kinds(t, stmt),
(values ('b', 'bbbbbbbb-0000-4000-8000-000000000002'), ('admin', 'bbbbbbbb-0000-4000-8000-000000000002'), ('service_role', 'bbbbbbbb-0000-4000-8000-000000000002')) people(who, uid);
insert into matrix values
  ('a', $$insert into public.bookings (user_id, vehicle_id, start_date, end_date) values (auth.uid(), '22222222-0000-4000-8000-00000000000b', current_date + 20, current_date + 22)$$, 'ok:1', 'a books a vehicle for herself'),
  ('a', $$insert into public.bookings (user_id, vehicle_id, start_date, end_date) values ('bbbbbbbb-0000-4000-8000-000000000002', '22222222-0000-4000-8000-00000000000b', current_date + 20, current_date + 22)$$, 'error:42501', 'a cannot book in b''s name'),
  ('a', $$insert into public.bookings (user_id, vehicle_id, start_date, end_date, booking_status) values (auth.uid(), '22222222-0000-4000-8000-00000000000b', current_date + 20, current_date + 22, 'confirmed')$$, 'error:42501', 'a cannot create a confirmed booking'),
  ('anon', $$insert into public.bookings (vehicle_id, start_date, end_date, customer_name, customer_email, customer_phone, driver_license_number) values ('22222222-0000-4000-8000-00000000000b', current_date + 30, current_date + 31, 'Visiteur', 'v@example.cd', '+243810000009', 'CD-12345')$$, 'ok:1', 'anon makes a public booking with contact details'),
  ('anon', $$insert into public.bookings (vehicle_id, start_date, end_date) values ('22222222-0000-4000-8000-00000000000b', current_date + 30, current_date + 31)$$, 'error:23514', 'anon cannot book without contact details'),
  ('anon', $$insert into public.bookings (user_id, vehicle_id, start_date, end_date, customer_name, customer_email, customer_phone, driver_license_number) values ('aaaaaaaa-0000-4000-8000-000000000001', '22222222-0000-4000-8000-00000000000b', current_date + 30, current_date + 31, 'V', 'v@example.cd', '+243810000009', 'X')$$, 'error:42501', 'anon cannot book in a user''s name'),
  ('anon', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number) values ('aaaaaaaa-0000-4000-8000-000000000001', 'vip', current_date + 1, '10:00', 'AF1')$$, 'error:42501', 'anon cannot book an airport service'),
  ('a', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number) values (auth.uid(), 'vip', current_date + 1, '10:00', 'AF12')$$, 'ok:1', 'a books an airport service'),
  ('b', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number) values ('aaaaaaaa-0000-4000-8000-000000000001', 'vip', current_date + 1, '10:00', 'AF12')$$, 'error:42501', 'b cannot book an airport service for a'),
  ('anon', $$insert into public.diagnostic_bookings (user_id, service_type, appointment_date, appointment_time, vehicle_type, customer_email, customer_phone) values (null, 'reset', current_date, '09:00', 'VW Golf', 'v@example.cd', '+243810000009')$$, 'error:42501', 'anon cannot book a diagnostic'),
  ('a', $$insert into public.diagnostic_bookings (user_id, service_type, appointment_date, appointment_time, vehicle_type, customer_email, customer_phone) values (auth.uid(), 'reset', current_date, '09:00', 'VW Golf', 'alice@example.cd', '+243810000001')$$, 'ok:1', 'a books a diagnostic'),
  ('anon', $$insert into public.premium_service_bookings (user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone) values (null, 'vip_concierge', current_date, 2, 'V', 'v@example.cd', '+243810000009')$$, 'error:42501', 'anon cannot book a premium service'),
  ('a', $$insert into public.premium_service_bookings (user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone) values (auth.uid(), 'vip_concierge', current_date, 2, 'Alice', 'alice@example.cd', '+243810000001')$$, 'ok:1', 'a books a premium service'),
  ('admin', $$insert into public.premium_service_bookings (user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone, booking_status) values ('bbbbbbbb-0000-4000-8000-000000000002', 'vip_concierge', current_date, 2, 'Bob', 'bob@example.cd', '+243810000002', 'confirmed')$$, 'ok:1', 'admin books for a customer, confirmed'),
  ('service_role', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number) values ('bbbbbbbb-0000-4000-8000-000000000002', 'baggage', current_date, '10:00', 'KQ555')$$, 'ok:1', 'service_role books an airport service');

-- vehicle photos in the public `vehicles` bucket
insert into matrix values
  ('anon', $$select * from storage.objects where bucket_id = 'vehicles'$$, 'ok:1', 'anon reads vehicle photos'),
  ('a', $$select * from storage.objects where bucket_id = 'vehicles'$$, 'ok:1', 'a reads vehicle photos'),
  ('a', $$insert into storage.objects (bucket_id, name, version) values ('vehicles', 'fake.svg', 'v2')$$, 'error:42501', 'a cannot upload a vehicle photo'),
  ('anon', $$insert into storage.objects (bucket_id, name, version) values ('vehicles', 'fake.svg', 'v2')$$, 'error:42501', 'anon cannot upload a vehicle photo'),
  ('b', $$delete from storage.objects where bucket_id = 'vehicles'$$, 'ok:0', 'b deletes no vehicle photo'),
  ('admin', $$insert into storage.objects (bucket_id, name, version) values ('vehicles', 'new.svg', 'v3')$$, 'ok:1', 'admin uploads a vehicle photo'),
  ('admin', $$delete from storage.objects where bucket_id = 'vehicles'$$, 'ok:1', 'admin deletes a vehicle photo');

-- catalogues: everyone reads, administrators (and service_role) write. unreferenced rows are
-- deleted so foreign keys do not interfere.
insert into matrix
select who,
       case op when 'select' then format('select * from %s', t)
               when 'insert' then ins
               when 'update' then format('update %s set description = description', t)
               else format('delete from %s where code = %L', t, free) end,
       case when op = 'select' then 'ok:' || n
            when who in ('anon', 'a', 'b') and op = 'insert' then 'error:42501'
            when who in ('anon', 'a', 'b') then 'ok:0'
            when op = 'update' then 'ok:' || n
            else 'ok:1' end,
       format('%s %s on %s', who, op, t)
from (values
  ('public.airport_services', 3, 'baggage', $q$insert into public.airport_services (code, position, name, description, price) values ('baggage', 9, 'x', 'x', 1) on conflict (code) do update set price = excluded.price$q$),
  ('public.diagnostic_services', 6, 'reset', $q$insert into public.diagnostic_services (code, position, name, description, price) values ('reset', 9, 'x', 'x', 1) on conflict (code) do update set price = excluded.price$q$),
  ('public.premium_services', 3, 'vip_concierge', $q$insert into public.premium_services (code, position, name, description, price_per_day) values ('vip_concierge', 9, 'x', 'x', 1) on conflict (code) do update set price_per_day = excluded.price_per_day$q$)
) catalogues(t, n, free, ins),
(values ('anon'), ('a'), ('b'), ('admin'), ('service_role')) people(who),
(values ('select'), ('insert'), ('update'), ('delete')) ops(op);

-- settings, contact messages and the blog: one rule per role and operation.
insert into matrix
select who, stmt, expected, format('%s %s on %s', who, op, t)
from (values
  ('app_settings', 'select', 'select * from public.app_settings', 'ok:0', 'ok:4'),
  ('app_settings', 'insert', $q$insert into public.app_settings (section, value) values ('business', '{"defaultRentalDuration": 2, "minimumRentalDuration": 1, "maximumRentalDuration": 30, "advanceBookingDays": 90, "cancellationPolicy": "free_48h", "lateFeePercentage": 10, "securityDepositPercentage": 20}') on conflict (section) do update set value = excluded.value$q$, 'error:42501', 'ok:1'),
  ('app_settings', 'update', $q$update public.app_settings set value = value || '{"maintenanceMode": true}' where section = 'system'$q$, 'ok:0', 'ok:1'),
  ('app_settings', 'delete', $q$delete from public.app_settings where section = 'notifications'$q$, 'ok:0', 'ok:1'),
  ('contact_messages', 'select', 'select * from public.contact_messages', 'ok:0', 'ok:1'),
  ('contact_messages', 'update', 'update public.contact_messages set handled = true', 'ok:0', 'ok:1'),
  ('contact_messages', 'delete', 'delete from public.contact_messages', 'ok:0', 'ok:1'),
  ('blog_posts', 'select', 'select * from public.blog_posts', 'ok:1', 'ok:2'),
  ('blog_posts', 'insert', $q$insert into public.blog_posts (slug, title, excerpt, content, author, published) values ('nouveau', 'Nouveau', 'e', 'c', 'Équipe', true)$q$, 'error:42501', 'ok:1'),
  ('blog_posts', 'update', $q$update public.blog_posts set title = title || '!'$q$, 'ok:0', 'ok:2'),
  ('blog_posts', 'delete', 'delete from public.blog_posts', 'ok:0', 'ok:2')
) rules(t, op, stmt, for_public, for_staff),
(values ('anon'), ('a'), ('b'), ('admin'), ('service_role')) people(who),
lateral (select case when who in ('admin', 'service_role') then for_staff else for_public end as expected) e;

-- anyone sends a contact message (as themselves when signed in); the form's rules hold.
insert into matrix
select who, $q$insert into public.contact_messages (name, email, subject, message) values ('Jean', 'jean@example.cd', 'reservation', 'Bonjour')$q$, 'ok:1', format('%s sends a contact message', who)
from (values ('anon'), ('a'), ('b'), ('admin'), ('service_role')) people(who);
insert into matrix values
  ('a', $$insert into public.contact_messages (user_id, name, email, subject, message) values ('bbbbbbbb-0000-4000-8000-000000000002', 'Bob?', 'b@example.cd', 'support', 'x')$$, 'error:42501', 'a cannot send a message as b'),
  ('anon', $$insert into public.contact_messages (name, email, subject, message) values ('Jean', 'pas-un-email', 'reservation', 'Bonjour')$$, 'error:23514', 'a malformed e-mail is refused'),
  ('admin', $$update public.app_settings set value = value || '{"companyEmail": "not-an-email"}' where section = 'general'$$, 'error:23514', 'invalid settings are refused'),
  ('admin', $$update public.airport_services set price = 160 where code = 'vip'$$, 'ok:1', 'admin changes a price');

select plan((select count(*)::int from matrix));
select is(pg_temp.attempt(who, stmt), expected, what) from matrix;
select * from finish();
rollback;
