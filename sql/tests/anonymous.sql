-- anonymous users (is_anonymous in their token) book nothing and change no profile, by REST or
-- through the booking function; permanent users and visitors are unaffected.
begin;
\ir setup.psql
select plan(9);

-- run `stmt` as an anonymous (is_anonymous) or a permanent user of the authenticated role.
create function pg_temp.as_user(anonymous boolean, stmt text) returns text
language plpgsql as $$
declare
  n bigint;
begin
  begin
    perform set_config('request.jwt.claims', json_build_object('sub', 'aaaaaaaa-0000-4000-8000-000000000001',
      'role', 'authenticated', 'is_anonymous', anonymous)::text, true);
    perform set_config('role', 'authenticated', true);
    execute stmt;
    get diagnostics n = row_count;
    raise exception using errcode = 'P0099', message = n::text;
  exception
    when sqlstate 'P0099' then return 'ok:' || sqlerrm;
    when others then return 'error:' || sqlstate;
  end;
end $$;

select is(pg_temp.as_user(true, $$insert into public.bookings (user_id, vehicle_id, start_date, end_date, total_amount)
  values ('aaaaaaaa-0000-4000-8000-000000000001', '22222222-0000-4000-8000-00000000000b', current_date + 90, current_date + 91, 1)$$),
  'error:42501', 'an anonymous user cannot book a vehicle over REST');
select is(pg_temp.as_user(true, $$select * from public.book_vehicle(vehicle_id => '22222222-0000-4000-8000-00000000000b',
  start_date => current_date + 90, end_date => current_date + 91, customer_name => 'Invité', customer_email => 'i@example.cd',
  customer_phone => '+243810000009', driver_license_number => 'kin-9')$$),
  'error:42501', '...nor through book_vehicle');
select is(pg_temp.as_user(true, $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number, passengers)
  values ('aaaaaaaa-0000-4000-8000-000000000001', 'vip', current_date + 9, '10:00', 'AF1', 1)$$),
  'error:42501', '...nor an airport service');
select is(pg_temp.as_user(true, $$insert into public.diagnostic_bookings (user_id, service_type, appointment_date, appointment_time, vehicle_type, customer_email, customer_phone)
  values ('aaaaaaaa-0000-4000-8000-000000000001', 'climate', current_date + 9, '09:00', 'RAV4', 'i@example.cd', '+243810000009')$$),
  'error:42501', '...nor a diagnostic');
select is(pg_temp.as_user(true, $$update public.bookings set booking_status = 'cancelled' where id = 'a0000000-0000-4000-8000-0000000000a1'$$),
  'ok:0', 'an anonymous session cannot cancel a booking');
select is(pg_temp.as_user(true, $$update public.profiles set full_name = 'Quelqu''un' where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'$$),
  'ok:0', 'nor change a profile');
select is(pg_temp.as_user(false, $$insert into public.bookings (user_id, vehicle_id, start_date, end_date, total_amount)
  values ('aaaaaaaa-0000-4000-8000-000000000001', '22222222-0000-4000-8000-00000000000b', current_date + 90, current_date + 91, 1)$$),
  'ok:1', 'a permanent user still books');
select is(pg_temp.as_user(false, $$update public.profiles set full_name = 'Alice M.' where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'$$),
  'ok:1', '...and changes their profile');
select is(pg_temp.attempt('anon', $$select * from public.book_vehicle(vehicle_id => '22222222-0000-4000-8000-00000000000b',
  start_date => current_date + 85, end_date => current_date + 86, customer_name => 'Visiteur', customer_email => 'v@example.cd',
  customer_phone => '+243810000009', driver_license_number => 'kin-1')$$),
  'ok:1', 'a visitor without an account still books with contact details');

select * from finish();
rollback;
