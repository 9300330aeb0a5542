-- prices are set by the database: the catalogue and the rental rules of customer-site.md
-- section 9, whatever total a browser sends; the quote rpc says exactly what will be charged.
begin;
\ir setup.psql
select plan(16);

select is((select total_amount from public.airport_bookings where id = 'a0000000-0000-4000-8000-0000000000a2'), 300.00, 'airport: VIP 150 x 2 passengers, client total ignored');
select is((select flight_number from public.airport_bookings where id = 'a0000000-0000-4000-8000-0000000000a2'), 'AF123', 'airport: the flight number is stored upper-case');
select is((select total_amount from public.diagnostic_bookings where id = 'a0000000-0000-4000-8000-0000000000a3'), 35.00, 'diagnostic: the climate price');
select is((select service_name from public.diagnostic_bookings where id = 'a0000000-0000-4000-8000-0000000000a3'), 'Diagnostic Climatisation', 'diagnostic: the catalogue name');
select is((select total_amount from public.premium_service_bookings where id = 'a0000000-0000-4000-8000-0000000000a4'), 600.00, 'premium: 200 per day x 3 days');
select is((select total_amount from public.bookings where id = 'a0000000-0000-4000-8000-0000000000a1'), 200.00, 'vehicle: 100 x 2 days, client total ignored');

select results_eq(
  $$select days, base_total, discount_percent, total from public.quote_vehicle_rental('11111111-0000-4000-8000-00000000000a', '2027-01-10', '2027-01-10')$$,
  $$values (1, 100.00::numeric, 0::numeric, 100.00::numeric)$$, 'a same-day rental counts one day');
select results_eq(
  $$select days, base_total, discount_percent, total from public.quote_vehicle_rental('11111111-0000-4000-8000-00000000000a', '2027-01-01', '2027-01-07')$$,
  $$values (6, 600.00::numeric, 0::numeric, 600.00::numeric)$$, 'six days: no discount');
select results_eq(
  $$select days, base_total, discount_percent, total from public.quote_vehicle_rental('11111111-0000-4000-8000-00000000000a', '2027-01-01', '2027-01-08')$$,
  $$values (7, 700.00::numeric, 10::numeric, 630.00::numeric)$$, 'seven days: the weekly discount');
select results_eq(
  $$select days, base_total, discount_percent, total from public.quote_vehicle_rental('11111111-0000-4000-8000-00000000000a', '2027-01-01', '2027-01-31')$$,
  $$values (30, 3000.00::numeric, 20::numeric, 2400.00::numeric)$$, 'thirty days: the monthly discount instead, not both');
select is((select total from public.quote_vehicle_rental('33333333-0000-4000-8000-00000000000c', '2027-01-01', '2027-01-02')), null, 'a retired vehicle gets no quote');

-- a customer sending their own total still pays the real price.
select is(pg_temp.attempt('a', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number, passengers, total_amount) values (auth.uid(), 'baggage', current_date, '08:00', 'ET302', 3, 0.01)$$), 'ok:1', 'a tampered airport total is accepted as an insert');
insert into public.airport_bookings (id, user_id, service_type, flight_date, flight_time, flight_number, passengers, total_amount)
  values ('c0000000-0000-4000-8000-0000000000c1', 'aaaaaaaa-0000-4000-8000-000000000001', 'baggage', current_date, '08:00', 'ET302', 3, 0.01);
select is((select total_amount from public.airport_bookings where id = 'c0000000-0000-4000-8000-0000000000c1'), 195.00, '...and priced 65 x 3 by the database');

-- an administrator changing the dates re-prices the rental; changing the status does not.
update public.bookings set end_date = start_date + 7 where id = 'a0000000-0000-4000-8000-0000000000a1';
select is((select total_amount from public.bookings where id = 'a0000000-0000-4000-8000-0000000000a1'), 630.00, 'new dates, new price (weekly discount)');
update public.bookings set booking_status = 'confirmed', total_amount = 1 where id = 'a0000000-0000-4000-8000-0000000000a1';
select is((select total_amount from public.bookings where id = 'a0000000-0000-4000-8000-0000000000a1'), 630.00, 'a total written directly is ignored');
select is((select license_plate from public.vehicles where id = '11111111-0000-4000-8000-00000000000a'), 'KN-1234-AB', 'plates are trimmed and upper-cased');

select * from finish();
rollback;
