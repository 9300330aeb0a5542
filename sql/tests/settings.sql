-- the back office's settings as the server and the database apply them (V64): the public
-- settings readable by anyone, sign-ups refused by the auth hook, maintenance mode, how far
-- ahead one may book, and the exchange rates' checks.
begin;
\ir setup.psql
\set QUIET 1

select plan(19);

-- the public settings
select is(pg_temp.attempt('anon', 'select public.site_settings()'), 'ok:1', 'a visitor reads the public settings');
select is((public.site_settings() ->> 'companyPhone'), '+243 81 000 0000', 'with the company''s phone');
select is((public.site_settings() ->> 'currency'), 'USD', 'the display currency');
select is((public.site_settings() ->> 'exchangeRate')::numeric, 1::numeric, 'and its rate');
select is((select array_agg(k order by k) from jsonb_object_keys(public.site_settings()) k),
          array['advanceBookingDays', 'allowRegistrations', 'companyAddress', 'companyEmail', 'companyName', 'companyPhone', 'currency',
                'exchangeRate', 'maintenanceMode', 'maximumRentalDuration', 'minimumRentalDuration'],
          'and nothing of the private settings (the administrator''s address, the security options)');
update public.app_settings set value = value || '{"currency": "CDF"}' where section = 'general';
select is((public.site_settings() ->> 'exchangeRate')::numeric, 2850::numeric, 'in francs, the franc''s rate');

-- sign-ups
select is(public.before_user_created('{"user": {"email": "x@example.cd"}}'), '{}'::jsonb, 'sign-ups open: the hook lets a sign-up go on');
update public.app_settings set value = value || '{"allowRegistrations": false}' where section = 'system';
select is(public.before_user_created('{}') #>> '{error,error_code}', 'signup_disabled', 'sign-ups closed: the hook refuses with signup_disabled');
select is(public.before_user_created('{}') #>> '{error,message}', 'Les inscriptions sont fermées pour le moment. Contactez-nous au +243 81 000 0000.', 'in french, with the phone number');
select is(pg_temp.attempt('anon', $$select public.before_user_created('{}')$$), 'error:42501', 'the hook is the auth server''s, not an api');

-- maintenance mode
update public.app_settings set value = value || '{"maintenanceMode": true}' where section = 'system';
select is(pg_temp.attempt('anon', $$insert into public.bookings (vehicle_id, start_date, end_date, customer_name, customer_email, customer_phone, driver_license_number)
  values ('22222222-0000-4000-8000-00000000000b', current_date + 50, current_date + 52, 'Visiteur', 'v@example.cd', '+243810000009', 'KIN-1')$$), 'error:PT503',
  'in maintenance a visitor cannot book');
select is(pg_temp.attempt('a', $$insert into public.diagnostic_bookings (user_id, service_type, appointment_date, appointment_time, vehicle_type, customer_email, customer_phone)
  values (auth.uid(), 'climate', current_date + 5, '09:00', 'Toyota', 'alice@example.cd', '+243810000001')$$), 'error:PT503', 'nor a customer');
select is(pg_temp.attempt('a', $$update public.bookings set booking_status = 'cancelled' where id = 'a0000000-0000-4000-8000-0000000000a1'$$), 'ok:1',
  'a customer can still cancel');
select is(pg_temp.attempt('admin', $$insert into public.bookings (user_id, vehicle_id, start_date, end_date)
  values ('bbbbbbbb-0000-4000-8000-000000000002', '22222222-0000-4000-8000-00000000000b', current_date + 50, current_date + 52)$$), 'ok:1', 'an administrator still books');
update public.app_settings set value = value || '{"maintenanceMode": false}' where section = 'system';

-- how far ahead
update public.app_settings set value = value || '{"advanceBookingDays": 30}' where section = 'business';
select is(pg_temp.attempt('a', $$insert into public.premium_service_bookings (user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone)
  values (auth.uid(), 'private_driver', current_date + 31, 1, 'Alice Mbuyi', 'alice@example.cd', '+243810000001')$$), 'error:22023',
  'a booking further ahead than advanceBookingDays is refused');
select is(pg_temp.attempt('a', $$insert into public.premium_service_bookings (user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone)
  values (auth.uid(), 'private_driver', current_date + 30, 1, 'Alice Mbuyi', 'alice@example.cd', '+243810000001')$$), 'ok:1', 'at the limit it is taken');
select is(pg_temp.attempt('admin', $$update public.airport_bookings set flight_date = current_date + 200 where id = 'a0000000-0000-4000-8000-0000000000a2'$$), 'ok:1',
  'an administrator may place a booking further');

-- the rates
select is(pg_temp.attempt('admin', $$update public.app_settings set value = value || '{"exchangeRates": {"USD": 1, "CDF": -5, "EUR": 0.9}}' where section = 'general'$$),
  'error:23514', 'a negative rate is refused');
select is(pg_temp.attempt('admin', $$update public.app_settings set value = value || '{"exchangeRates": {"USD": 1, "CDF": 2900, "EUR": 0.9}}' where section = 'general'$$),
  'ok:1', 'a positive one is kept');

select * from finish();
rollback;
