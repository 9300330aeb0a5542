-- rules held by the database rather than the browser (V46): the availability search sees every
-- booking, deleting an account keeps its bookings, the vehicle ranges of back-office.md section 5,
-- a profile's e-mail fixed for everyone, and the analytics' daily series.
begin;
\ir setup.psql
select plan(38);

-- the availability search, called as the browser calls it.
update public.bookings set booking_status = 'confirmed' where id = 'a0000000-0000-4000-8000-0000000000a1';
-- alice's confirmed rental holds the land cruiser from current_date + 10 to + 12.
select is(pg_temp.attempt('anon', $$select 1 from public.search_available_vehicles(current_date + 10, current_date + 11) where name = 'Toyota Land Cruiser'$$), 'ok:0', 'a visitor is not offered a vehicle another customer has booked');
select is(pg_temp.attempt('b', $$select 1 from public.search_available_vehicles(current_date + 10, current_date + 11) where name = 'Toyota Land Cruiser'$$), 'ok:0', 'nor is another customer');
select is(pg_temp.attempt('anon', $$select 1 from public.search_available_vehicles(current_date + 1, current_date + 2)$$), 'ok:2', 'a visitor is offered the available fleet on a free period');
select is(pg_temp.attempt('anon', $$select 1 from public.search_available_vehicles(current_date + 1, current_date + 2) where name = 'Ancien minibus'$$), 'ok:0', 'never a retired vehicle');

-- deleting an account keeps every kind of booking, with the customer's contact.
set local request.jwt.claims = '{"sub": "adadadad-0000-4000-8000-000000000003", "role": "authenticated"}';
set local role authenticated;
select is(public.admin_delete_users(array['bbbbbbbb-0000-4000-8000-000000000002']::uuid[]), 1, 'an administrator deletes bob''s account');
reset role;
select is((select count(*)::int from auth.users where id = 'bbbbbbbb-0000-4000-8000-000000000002'), 0, 'the account is gone');
select is((select row(user_id, customer_name, customer_email)::text from public.airport_bookings where id = 'b0000000-0000-4000-8000-0000000000b2'),
          row(null::uuid, 'bob', 'bob@example.cd')::text, 'the airport booking is kept with the contact');
select is((select row(user_id, customer_name, customer_email)::text from public.diagnostic_bookings where id = 'b0000000-0000-4000-8000-0000000000b3'),
          row(null::uuid, 'bob', 'bob@example.cd')::text, 'the diagnostic booking is kept with the contact');
select is((select row(user_id, customer_name)::text from public.premium_service_bookings where id = 'b0000000-0000-4000-8000-0000000000b4'),
          row(null::uuid, 'Bob Kasongo')::text, 'the premium booking is kept with its contact');
select is((select count(*)::int from public.all_bookings where user_id is null), 4, 'the four kept bookings still count in the figures');
select is(pg_temp.attempt('admin', $$insert into public.airport_bookings (service_type, flight_date, flight_time, flight_number) values ('vip', current_date + 3, '10:00', 'AF123')$$), 'error:23514', 'an airport booking needs an account or a contact');
select is(pg_temp.attempt('a', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number, customer_email) values (null, 'vip', current_date + 3, '10:00', 'AF123', 'x@example.cd')$$), 'error:42501', 'a customer cannot file a booking without an account');

-- the vehicle ranges (back-office.md section 5), whoever writes.
select is(pg_temp.attempt('admin', $$update public.vehicles set year = 1989 where name = 'Suzuki Swift'$$), 'error:23514', 'a year before 1990 is refused');
select is(pg_temp.attempt('admin', format($$update public.vehicles set year = %s where name = 'Suzuki Swift'$$, extract(year from current_date)::int + 2)), 'error:23514', 'a year after next year is refused');
select is(pg_temp.attempt('admin', format($$update public.vehicles set year = %s where name = 'Suzuki Swift'$$, extract(year from current_date)::int + 1)), 'ok:1', 'next year''s model is accepted');
select is(pg_temp.attempt('admin', $$insert into public.vehicle_records (vehicle_id, vin) values ('22222222-0000-4000-8000-00000000000b', 'JTDBR32E1000000012')$$), 'error:23514', 'a VIN of 18 characters is refused');
select is(pg_temp.attempt('admin', $$update public.vehicles set specifications = specifications || '{"seats": 51}' where name = 'Suzuki Swift'$$), 'error:23514', 'more than 50 seats is refused');
select is(pg_temp.attempt('admin', $$update public.vehicles set specifications = specifications || '{"doors": 1}' where name = 'Suzuki Swift'$$), 'error:23514', 'fewer than 2 doors is refused');
select is(pg_temp.attempt('admin', $$update public.vehicles set pricing = pricing || '{"weekly_discount": 100}' where name = 'Suzuki Swift'$$), 'error:23514', 'a weekly discount above 50 is refused (a free rental)');
select is(pg_temp.attempt('admin', $$update public.vehicles set pricing = pricing || '{"seasonal_rates": [{"name": "Fêtes", "rate_multiplier": 6}]}' where name = 'Suzuki Swift'$$), 'error:23514', 'a seasonal multiplier above 5 is refused');
select is(pg_temp.attempt('admin', $$update public.vehicles set pricing = pricing || '{"seasonal_rates": [{"name": "Fêtes", "rate_multiplier": "x"}]}' where name = 'Suzuki Swift'$$), 'error:23514', 'a seasonal multiplier that is not a number is refused');
select is(pg_temp.attempt('admin', $$update public.vehicles set specifications = specifications || '{"seats": 50, "doors": 2}', pricing = pricing || '{"weekly_discount": 50, "monthly_discount": 0, "seasonal_rates": [{"name": "Fêtes", "rate_multiplier": 0.1, "description": ""}]}' where name = 'Suzuki Swift'$$), 'ok:1', 'values at the bounds are accepted');

-- a vehicle's record is the administrators' alone (V47): not a column of the public fleet.
select is(pg_temp.attempt('anon', 'select vin from public.vehicles'), 'error:42703', 'the public fleet has no vin column any more');
select is(pg_temp.attempt('anon', 'select insurance_policy from public.vehicles'), 'error:42703', 'nor an insurance policy');
insert into public.vehicle_records (vehicle_id, vin) values ('22222222-0000-4000-8000-00000000000b', ' jsazc72s000000003 ');
select is((select vin from public.vehicle_records where vehicle_id = '22222222-0000-4000-8000-00000000000b'), 'JSAZC72S000000003', 'a vin is trimmed and upper-cased');

-- the wizard's save (V48): the vehicle and its record together, or neither.
select is(pg_temp.attempt('a', $$select public.admin_save_vehicle('{"name": "Kia Rio", "make": "Kia", "model": "Rio", "year": 2024}', '{}')$$), 'error:42501', 'a customer cannot save a vehicle');
select is(pg_temp.attempt('anon', $$select public.admin_save_vehicle('{"name": "Kia Rio", "make": "Kia", "model": "Rio", "year": 2024}', '{}')$$), 'error:42501', 'nor can a visitor');
set local request.jwt.claims = '{"sub": "adadadad-0000-4000-8000-000000000003", "role": "authenticated"}';
set local role authenticated;
create temp table saved as select public.admin_save_vehicle(
  '{"name": "Kia Rio", "make": "Kia", "model": "Rio", "year": 2024, "category": "economic", "daily_rate": 55, "features": ["Climatisation"], "pricing": {"weekly_discount": 5}}',
  '{"vin": "knadn5a3000000001", "insurance_policy": "SONAS-1"}') as id;
select is((select row(v.name, v.daily_rate, v.features, r.vin, r.insurance_policy)::text from public.vehicles v join public.vehicle_records r on r.vehicle_id = v.id where v.id = (select id from saved)),
          row('Kia Rio', 55.00::numeric, array['Climatisation'], 'KNADN5A3000000001', 'SONAS-1')::text, 'an administrator saves a new vehicle with its record');
select is(pg_temp.attempt('admin', $$select public.admin_save_vehicle('{"name": "Kia Picanto", "make": "Kia", "model": "Picanto", "year": 2024}', '{"vin": "KNADN5A3000000001"}')$$), 'error:23505', 'a duplicate vin refuses the whole save');
select is((select count(*)::int from public.vehicles where name = 'Kia Picanto'), 0, 'and leaves no vehicle behind');
select is(public.admin_save_vehicle('{"name": "Kia Rio 2", "make": "Kia", "model": "Rio", "year": 2025, "daily_rate": 60}', '{"vin": null}', (select id from saved)), (select id from saved), 'an update keeps the id');
select is((select row(v.name, v.year, r.vin)::text from public.vehicles v join public.vehicle_records r on r.vehicle_id = v.id where v.id = (select id from saved)),
          row('Kia Rio 2', 2025, null::text)::text, 'and replaces the vehicle and its record');
select is(pg_temp.attempt('admin', $$select public.admin_save_vehicle('{"name": "X", "make": "X", "model": "X", "year": 2024}', '{}', '00000000-0000-4000-8000-000000000000')$$), 'error:P0002', 'updating a missing vehicle is refused');
reset role;

-- a profile's e-mail, account and username are the system's, for administrators too.
select is(pg_temp.attempt('admin', $$update public.profiles set email = 'autre@example.cd' where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'$$), 'error:42501', 'an administrator cannot change a user''s e-mail');
select is(pg_temp.attempt('admin', $$update public.profiles set username = 'autre' where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'$$), 'error:42501', 'nor their username');
select is(pg_temp.attempt('admin', $$update public.profiles set role = 'admin', full_name = 'Alice M.' where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'$$), 'ok:1', 'an administrator still changes another user''s role and name');
update auth.users set email = 'alice.m@example.cd' where id = 'aaaaaaaa-0000-4000-8000-000000000001';
select is((select email from public.profiles where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'), 'alice.m@example.cd', 'the profile''s e-mail follows the account''s');

-- the analytics' daily series covers the period's last 30 days.
set local role authenticated;
select is((select jsonb_array_length(public.admin_analytics(current_date - 89, current_date) -> 'daily')), 30, 'the daily series keeps the last 30 days of the period');
reset role;

select * from finish();
rollback;
