-- the back office's statistics as back-office.md section 9 defines them, for administrators.
begin;
\ir setup.psql
select plan(8);

update public.airport_bookings set booking_status = 'cancelled' where id = 'b0000000-0000-4000-8000-0000000000b2';
set local request.jwt.claims = '{"sub": "adadadad-0000-4000-8000-000000000003", "role": "authenticated"}';
create temp table stats as select public.admin_statistics(90) as s;

-- eight bookings: vehicle 200 + 40, airport 300 + 50 (cancelled), diagnostic 35 + 50, premium 600 + 300.
select is((select (s ->> 'total_bookings')::int from stats), 8, 'every booking of the four kinds counts');
select is((select (s ->> 'total_revenue')::numeric from stats), 1525.00, 'revenue leaves out cancelled bookings');
select is((select (s -> 'by_status' ->> 'cancelled')::int from stats), 1, 'cancelled bookings still count in the status counts');
select is((select (s ->> 'active_bookings')::int from stats), 7, 'active means pending, confirmed or active');
select is((select (s -> 'by_kind' -> 'airport' ->> 'revenue')::numeric from stats), 300.00, 'per-kind revenue');
select is((select (s -> 'period' ->> 'revenue_growth')::numeric from stats), 0::numeric, 'growth is 0 when the previous period is empty');
select is((select (s -> 'customers' ->> 'total_users')::int from stats), 2, 'customers are the users with role user');
select is((select jsonb_array_length(s -> 'daily') from stats), 30, 'the daily series keeps the last 30 days');

select * from finish();
rollback;
