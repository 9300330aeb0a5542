-- the back office's functions (V40–V43): each allowed for an administrator, refused for a
-- customer and for anon; the settings ranges of back-office.md section 5 held by the database.
begin;
\ir setup.psql
select plan(33);

-- admin_delete_users: the account goes, not only the profile; never one's own.
select is(pg_temp.attempt('anon', $$select public.admin_delete_users(array['bbbbbbbb-0000-4000-8000-000000000002']::uuid[])$$), 'error:42501', 'anon cannot delete users');
select is(pg_temp.attempt('a', $$select public.admin_delete_users(array['bbbbbbbb-0000-4000-8000-000000000002']::uuid[])$$), 'error:42501', 'a customer cannot delete users');
select is(pg_temp.attempt('admin', $$select public.admin_delete_users(array['adadadad-0000-4000-8000-000000000003']::uuid[])$$), 'error:22023', 'an administrator cannot delete their own account');
select is(pg_temp.attempt('admin', $$delete from auth.users where id = 'bbbbbbbb-0000-4000-8000-000000000002'$$), 'error:42501', 'a browser role still cannot touch auth.users directly');

set local request.jwt.claims = '{"sub": "adadadad-0000-4000-8000-000000000003", "role": "authenticated"}';
set local role authenticated;
select is(public.admin_delete_users(array['bbbbbbbb-0000-4000-8000-000000000002', 'dddddddd-0000-4000-8000-000000000004']::uuid[]), 2, 'an administrator deletes two accounts at once');
reset role;
select is((select count(*) from auth.users where id in ('bbbbbbbb-0000-4000-8000-000000000002', 'dddddddd-0000-4000-8000-000000000004'))::int, 0, 'the accounts are gone');
select is((select count(*) from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002')::int, 0, 'the profile went with the account');
select is((select user_id from public.airport_bookings where id = 'b0000000-0000-4000-8000-0000000000b2'), null, 'service bookings are kept without the account (V46)');
select is((select customer_email from public.bookings where id = 'b0000000-0000-4000-8000-0000000000b1'), 'bob@example.cd', 'the rental is kept with the customer''s contact');
select is((select user_id from public.bookings where id = 'b0000000-0000-4000-8000-0000000000b1'), null, 'the kept rental has no account any more');

-- admin_users: the list with the figures derived from the four kinds of bookings.
select is(pg_temp.attempt('anon', 'select * from public.admin_users()'), 'error:42501', 'anon cannot list users');
select is(pg_temp.attempt('a', 'select * from public.admin_users()'), 'error:42501', 'a customer cannot list users');
select is(pg_temp.attempt('admin', 'select * from public.admin_users()'), 'ok:2', 'an administrator lists every profile');
set local role authenticated;
select is((select booking_count::int from public.admin_users() where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'), 4, 'booking count covers the four kinds');
select is((select total_spent from public.admin_users() where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'), 1135.00::numeric, 'total spent sums what the database priced');
select is((select is_active from public.admin_users() where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'), true, 'a customer who booked in the last 30 days is active');
reset role;

-- admin_analytics: the period against the one before it.
select is(pg_temp.attempt('anon', 'select public.admin_analytics(current_date - 89, current_date)'), 'error:42501', 'anon cannot read analytics');
select is(pg_temp.attempt('a', 'select public.admin_analytics(current_date - 89, current_date)'), 'error:42501', 'a customer cannot read analytics');
select is(pg_temp.attempt('admin', 'select public.admin_analytics(current_date, current_date - 1)'), 'error:22023', 'a period ending before it starts is refused');
set local role authenticated;
create temp table an as select public.admin_analytics(current_date - 89, current_date) as s;
reset role;
select is((select (s ->> 'bookings')::int from an), 8, 'the period counts every booking, the deleted accounts'' included');
select is((select (s ->> 'revenue')::numeric from an), 1575.00, 'revenue of the period (no cancelled booking)');
select is((select (s ->> 'average_basket')::numeric from an), 196.88, 'average basket = revenue / bookings');
select is((select (s -> 'customers' ->> 'total')::int from an), 1, 'customers are the profiles with role user');
select is((select jsonb_array_length(s -> 'top_vehicles') from an), 2, 'top vehicles are those booked in the period');
select is((select (v ->> 'utilisation')::numeric from an, jsonb_array_elements(s -> 'top_vehicles') v where v ->> 'name' = 'Toyota Land Cruiser'), 0::numeric,
  'a vehicle with only a pending request was rented no day of the period (V69)');
-- the land cruiser, in the fleet for 90 days, rented 9 of them
update public.vehicles set created_at = current_date - 89 where id = '11111111-0000-4000-8000-00000000000a';
insert into public.bookings (user_id, vehicle_id, start_date, end_date, booking_status) values
  ('aaaaaaaa-0000-4000-8000-000000000001', '11111111-0000-4000-8000-00000000000a', current_date - 20, current_date - 11, 'completed');
set local role authenticated;
select is((select (v ->> 'utilisation')::numeric from jsonb_array_elements(public.admin_analytics(current_date - 89, current_date) -> 'top_vehicles') v
           where v ->> 'name' = 'Toyota Land Cruiser'), 10.0, 'utilisation is the share of its days in the period a vehicle was rented: 9 of 90');
reset role;

-- an administrator keeps their own role (V44); changes others'.
select is(pg_temp.attempt('admin', $$update public.profiles set role = 'user' where user_id = auth.uid()$$), 'error:22023', 'an administrator cannot demote themselves');
select is(pg_temp.attempt('admin', $$update public.profiles set full_name = 'Chef' where user_id = auth.uid()$$), 'ok:1', 'an administrator still edits their own name');
select is(pg_temp.attempt('admin', $$update public.profiles set role = 'admin', full_name = 'Alice', phone = '+243800000000' where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'$$), 'ok:1', 'an administrator changes another user''s role, name and phone');

-- settings ranges (V40).
select is(pg_temp.attempt('admin', $$update public.app_settings set value = value || '{"sessionTimeout": 1441}' where section = 'system'$$), 'error:23514', 'session timeout above 1440 is refused');
select is(pg_temp.attempt('admin', $$update public.app_settings set value = value || '{"maxLoginAttempts": 2}' where section = 'system'$$), 'error:23514', 'fewer than 3 login attempts is refused');
select is(pg_temp.attempt('admin', $$update public.app_settings set value = value || '{"lateFeePercentage": "abc"}' where section = 'business'$$), 'error:23514', 'a non-numeric percentage is refused');
select is(pg_temp.attempt('admin', $$update public.app_settings set value = value || '{"dataRetentionDays": 3650, "sessionTimeout": 1440, "maxLoginAttempts": 10}' where section = 'system'$$), 'ok:1', 'values at the upper bounds are accepted');

select * from finish();
rollback;
