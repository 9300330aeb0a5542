-- the reservation dialog's booking (V38): book_vehicle keeps its old calls, stores how the
-- customer means to pay (never card data), the pick-up time and people, and refuses dates a
-- confirmed rental holds.
begin;
\ir setup.psql
select plan(16);

-- the ten-argument call of the public booking page still resolves and stores no payment.
create temp table made as
  select * from public.book_vehicle(vehicle_id => '22222222-0000-4000-8000-00000000000b', start_date => current_date + 20, end_date => current_date + 22,
    customer_name => 'Visiteur', customer_email => 'v@example.cd', customer_phone => '+243810000009', driver_license_number => 'kin-1');
select is((select total_amount from made), 80.00, 'the old call books at the database price');
select is((select payment_method from public.bookings where id = (select id from made)), null, '...with no payment method');
select is(pg_temp.attempt('anon', $$select * from public.book_vehicle(vehicle_id => '22222222-0000-4000-8000-00000000000b', start_date => current_date + 30, end_date => current_date + 31,
    customer_name => 'Visiteur', customer_email => 'v@example.cd', customer_phone => '+243810000009', driver_license_number => 'kin-1', payment_method => 'card')$$),
  'ok:1', 'a visitor may book with a payment method');

-- card: the method, pick-up time and people; nothing else of the card exists to store.
truncate made;
insert into made select * from public.book_vehicle(vehicle_id => '11111111-0000-4000-8000-00000000000a', start_date => current_date + 40, end_date => current_date + 47,
    customer_name => 'Alice', customer_email => 'alice@example.cd', customer_phone => '+243810000001', driver_license_number => 'kin-2',
    payment_method => 'card', mobile_money_provider => 'mpesa', mobile_money_phone => '+243810000001', pickup_time => '09:30', passengers => 3);
select results_eq($$select payment_method, mobile_money_provider, mobile_money_phone, payment_reference, pickup_time, passengers, total_amount
                    from public.bookings where id = (select id from made)$$,
  $$values ('card'::text, null::text, null::text, null::text, '09:30'::time, 3, 630.00::numeric)$$,
  'card: method, time and people stored; mobile-money fields sent with a card are dropped; weekly discount applied');

-- mobile money keeps its provider and phone.
truncate made;
insert into made select * from public.book_vehicle(vehicle_id => '11111111-0000-4000-8000-00000000000a', start_date => current_date + 50, end_date => current_date + 51,
    customer_name => 'Alice', customer_email => 'alice@example.cd', customer_phone => '+243810000001', driver_license_number => 'kin-2',
    payment_method => 'mobile', mobile_money_provider => 'airtel', mobile_money_phone => ' +243 99 000 1111 ');
select results_eq($$select mobile_money_provider, mobile_money_phone from public.bookings where id = (select id from made)$$,
  $$values ('airtel'::text, '+243 99 000 1111'::text)$$, 'mobile money: provider and phone');

-- bank transfer: the reference sent is kept (upper-cased); without one the database makes one.
truncate made;
insert into made select * from public.book_vehicle(vehicle_id => '11111111-0000-4000-8000-00000000000a', start_date => current_date + 60, end_date => current_date + 61,
    customer_name => 'Alice', customer_email => 'alice@example.cd', customer_phone => '+243810000001', driver_license_number => 'kin-2',
    payment_method => 'bank', payment_reference => 'vir-abcd2345');
select is((select payment_reference from public.bookings where id = (select id from made)), 'VIR-ABCD2345', 'bank: the dialog''s reference is stored');
truncate made;
insert into made select * from public.book_vehicle(vehicle_id => '11111111-0000-4000-8000-00000000000a', start_date => current_date + 70, end_date => current_date + 71,
    customer_name => 'Alice', customer_email => 'alice@example.cd', customer_phone => '+243810000001', driver_license_number => 'kin-2',
    payment_method => 'bank');
select matches((select payment_reference from public.bookings where id = (select id from made)), '^VIR-[A-HJ-NP-Z2-9]{8}$', 'bank: a reference is generated when none is sent');
select is(pg_temp.attempt('anon', $$select * from public.book_vehicle(vehicle_id => '22222222-0000-4000-8000-00000000000b', start_date => current_date + 80, end_date => current_date + 81,
    customer_name => 'V', customer_email => 'v@example.cd', customer_phone => '+243810000009', driver_license_number => 'kin-1',
    payment_method => 'bank', payment_reference => 'VIR-ABCD2345')$$),
  'error:23505', 'a transfer reference is unique');

select is(pg_temp.attempt('anon', $$select * from public.book_vehicle(vehicle_id => '22222222-0000-4000-8000-00000000000b', start_date => current_date + 80, end_date => current_date + 81,
    customer_name => 'V', customer_email => 'v@example.cd', customer_phone => '+243810000009', driver_license_number => 'kin-1', payment_method => 'cash')$$),
  'error:22023', 'an unknown payment method is refused');
select is(pg_temp.attempt('anon', $$select * from public.book_vehicle(vehicle_id => '22222222-0000-4000-8000-00000000000b', start_date => current_date + 80, end_date => current_date + 81,
    customer_name => 'V', customer_email => 'v@example.cd', customer_phone => '+243810000009', driver_license_number => 'kin-1', payment_method => 'mobile')$$),
  'error:23514', 'mobile money without provider and phone is refused');
select is(pg_temp.attempt('anon', $$select * from public.book_vehicle(vehicle_id => '22222222-0000-4000-8000-00000000000b', start_date => current_date + 80, end_date => current_date + 81,
    customer_name => 'V', customer_email => 'v@example.cd', customer_phone => '+243810000009', driver_license_number => 'kin-1', passengers => 0)$$),
  'error:23514', 'at least one person');

-- the checks hold for direct writes too.
select is(pg_temp.attempt('service_role', $$insert into public.bookings (user_id, vehicle_id, start_date, end_date, payment_method, payment_reference)
    values ('aaaaaaaa-0000-4000-8000-000000000001', '22222222-0000-4000-8000-00000000000b', current_date + 90, current_date + 91, 'card', 'VIR-ABCD2346')$$),
  'error:23514', 'a transfer reference only with a bank transfer');
select is(pg_temp.attempt('service_role', $$insert into public.bookings (user_id, vehicle_id, start_date, end_date, payment_method)
    values ('aaaaaaaa-0000-4000-8000-000000000001', '22222222-0000-4000-8000-00000000000b', current_date + 90, current_date + 91, 'bank')$$),
  'error:23514', 'a bank transfer always has its reference');

-- a customer cannot change how their booking is paid (only cancel it).
select is(pg_temp.attempt('a', $$update public.bookings set payment_method = 'card' where id = 'a0000000-0000-4000-8000-0000000000a1'$$),
  'error:42501', 'the customer cannot edit the payment method');

-- dates held by a confirmed rental are refused with the clear 409 (the land cruiser, + 10 to + 12).
update public.bookings set booking_status = 'confirmed' where id = 'a0000000-0000-4000-8000-0000000000a1';
select throws_ok($$select * from public.book_vehicle(vehicle_id => '11111111-0000-4000-8000-00000000000a', start_date => current_date + 11, end_date => current_date + 14,
    customer_name => 'V', customer_email => 'v@example.cd', customer_phone => '+243810000009', driver_license_number => 'kin-1')$$,
  'PT409', 'Ce véhicule est déjà réservé sur ces dates', 'an overlap with a confirmed rental is refused');
select is(pg_temp.attempt('anon', $$select * from public.book_vehicle(vehicle_id => '11111111-0000-4000-8000-00000000000a', start_date => current_date + 12, end_date => current_date + 14,
    customer_name => 'V', customer_email => 'v@example.cd', customer_phone => '+243810000009', driver_license_number => 'kin-1')$$),
  'ok:1', 'from the return day on, the vehicle can be booked');

select * from finish();
rollback;
