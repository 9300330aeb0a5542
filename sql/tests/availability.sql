-- availability: true overlap semantics in the search, and the exclusion constraint that makes
-- two confirmed or active rentals of one vehicle on overlapping dates impossible.
begin;
\ir setup.psql
select plan(15);

update public.bookings set booking_status = 'confirmed' where id = 'a0000000-0000-4000-8000-0000000000a1';
-- the land cruiser is taken from current_date + 10 to + 12 (returned the morning of + 12).

select is((select count(*)::int from public.search_available_vehicles(current_date + 11, current_date + 11) where name = 'Toyota Land Cruiser'), 0, 'a day inside a confirmed rental: not available');
select is((select count(*)::int from public.search_available_vehicles(current_date + 5, current_date + 20) where name = 'Toyota Land Cruiser'), 0, 'a period around a confirmed rental: not available');
select is((select count(*)::int from public.search_available_vehicles(current_date + 12, current_date + 14) where name = 'Toyota Land Cruiser'), 1, 'from the return day on: available again');
select is((select count(*)::int from public.search_available_vehicles(current_date + 1, current_date + 2)), 2, 'an unrelated period: the whole available fleet (the retired one excluded)');
select is((select count(*)::int from public.search_available_vehicles(current_date + 1, current_date + 2, 'suv')), 1, 'category filter');
select is((select count(*)::int from public.search_available_vehicles(current_date + 1, current_date + 2, null, 50)), 1, 'maximum daily rate filter');
select is((select count(*)::int from public.search_available_vehicles(current_date + 1, current_date + 2, null, null, 6, 'Automatique', 'Diesel')), 1, 'seats, transmission and fuel filters');
select is((select total from public.search_available_vehicles(current_date + 1, current_date + 8, 'suv')), 630.00, 'each result carries its discounted total');

-- the taken dates of the vehicle page (V67)
select is((select array_agg(start_date - current_date || '..' || end_date - current_date || ' ' || status order by start_date)
           from public.vehicle_taken_dates('11111111-0000-4000-8000-00000000000a', current_date, 30)),
          array['10..12 booked'], 'the vehicle page sees the confirmed rental as taken days [start, end)');
select is((select count(*)::int from public.vehicle_taken_dates('22222222-0000-4000-8000-00000000000b', current_date, 30)), 1, 'a pending request still held counts too');
select is((select status from public.vehicle_taken_dates('22222222-0000-4000-8000-00000000000b', current_date, 30)), 'held', 'marked as held');
select is((select array_agg(start_date - current_date || '..' || end_date - current_date) from public.vehicle_taken_dates('11111111-0000-4000-8000-00000000000a', current_date + 11, 5)),
          array['11..12'], 'clipped to the window asked for');
select is(pg_temp.attempt('anon', $$select * from public.vehicle_taken_dates('11111111-0000-4000-8000-00000000000a')$$), 'ok:1', 'a visitor reads the taken dates (and nothing of who took them)');

insert into public.bookings (id, user_id, vehicle_id, start_date, end_date)
  values ('d0000000-0000-4000-8000-0000000000d1', 'bbbbbbbb-0000-4000-8000-000000000002', '11111111-0000-4000-8000-00000000000a', current_date + 11, current_date + 13);
select throws_ok(
  $$update public.bookings set booking_status = 'confirmed' where id = 'd0000000-0000-4000-8000-0000000000d1'$$,
  'PT409', 'Ce véhicule est déjà réservé sur ces dates', 'confirming an overlapping rental is refused with a clear 409');
select throws_ok(
  $$alter table public.bookings disable trigger price_booking; update public.bookings set booking_status = 'active' where id = 'd0000000-0000-4000-8000-0000000000d1'$$,
  '23P01', null, 'the exclusion constraint holds even without the trigger');

select * from finish();
rollback;
