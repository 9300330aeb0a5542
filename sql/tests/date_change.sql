-- a customer changes the dates of their own pending rental (V68): the new dates are checked as a
-- new booking's, priced again, and the customer is told; nothing else moves, and nobody else's.
begin;
\ir setup.psql
\set QUIET 1

select plan(11);

-- a confirmed rental of b on the land cruiser, + 30 .. + 35
insert into public.bookings (id, user_id, vehicle_id, start_date, end_date, booking_status) values
  ('c0000000-0000-4000-8000-0000000000c1', 'bbbbbbbb-0000-4000-8000-000000000002', '11111111-0000-4000-8000-00000000000a', current_date + 30, current_date + 35, 'confirmed');
delete from outbox.messages;

create function pg_temp.move(who text, id text, s int, e int) returns text
language sql as $$
  select pg_temp.attempt(who, format('update public.bookings set start_date = current_date + %s, end_date = current_date + %s where id = %L', s, e, id))
$$;

-- a's pending rental a1: land cruiser, + 10 .. + 12, 200 $
select is(pg_temp.move('a', 'a0000000-0000-4000-8000-0000000000a1', 14, 21), 'ok:1', 'the owner moves a pending rental');
select is(pg_temp.move('a', 'a0000000-0000-4000-8000-0000000000a1', -2, 1), 'error:22023', 'not into the past');
select is(pg_temp.move('a', 'a0000000-0000-4000-8000-0000000000a1', 31, 33), 'error:PT409', 'not onto a confirmed rental');
select is(pg_temp.move('a', 'a0000000-0000-4000-8000-0000000000a1', 40, 80), 'error:22023', 'not longer than the longest rental');
select is(pg_temp.move('b', 'a0000000-0000-4000-8000-0000000000a1', 14, 21), 'ok:0', 'another customer moves nothing');
select is(pg_temp.move('anon', 'a0000000-0000-4000-8000-0000000000a1', 14, 21), 'ok:0', 'nor a visitor');
select is(pg_temp.move('b', 'c0000000-0000-4000-8000-0000000000c1', 40, 42), 'error:42501', 'a confirmed rental cannot be moved by its customer');
select is(pg_temp.attempt('a', $$update public.bookings set start_date = current_date + 14, end_date = current_date + 21, booking_status = 'confirmed' where id = 'a0000000-0000-4000-8000-0000000000a1'$$),
  'error:42501', 'nor confirmed along with new dates');

-- kept: priced again and told
set local role authenticated;
select set_config('request.jwt.claims', '{"sub": "aaaaaaaa-0000-4000-8000-000000000001", "role": "authenticated"}', true);
update public.bookings set start_date = current_date + 14, end_date = current_date + 21 where id = 'a0000000-0000-4000-8000-0000000000a1';
reset role;
select is((select (end_date - current_date, total_amount, booking_status)::text from public.bookings where id = 'a0000000-0000-4000-8000-0000000000a1'),
  '(21,630.00,pending)', 'the new dates are kept and priced by the database (a week: 10 % off)');
select is((select subject from outbox.messages where recipient = 'alice@example.cd'), 'Réservation modifiée #A0000000', 'the customer is told');
select matches((select body_text from outbox.messages where recipient = 'alice@example.cd'), '\(7 jours\)', 'with the new length');

select * from finish();
rollback;
