-- the booking rules of V51 for every path (direct insert, upsert, update, rpc/book_vehicle) and
-- every role (anon, a customer, an administrator, service_role), the pending hold, the server's
-- fields and the status state machine. each attempt is rolled back.
begin;
\ir setup.psql
\set QUIET 1

-- a vehicle in maintenance, and a confirmed rental of the land cruiser on + 30 .. + 35 (b's).
insert into public.vehicles (id, name, make, model, year, category, daily_rate, rental_status) values
  ('44444444-0000-4000-8000-00000000000d', 'Range Rover', 'Land Rover', 'Vogue', 2021, 'luxury', 300, 'maintenance');
insert into public.bookings (id, user_id, vehicle_id, start_date, end_date, booking_status) values
  ('c0000000-0000-4000-8000-0000000000c1', 'bbbbbbbb-0000-4000-8000-000000000002', '11111111-0000-4000-8000-00000000000a', current_date + 30, current_date + 35, 'confirmed');

-- the error of `stmt` run as `who` as 'sqlstate: message' ('ok' when it passes); rolled back.
create function pg_temp.message(who text, stmt text) returns text
language plpgsql as $$
declare
  r text := case who when 'a' then 'authenticated' when 'b' then 'authenticated' when 'admin' then 'authenticated' else who end;
  sub text := case who when 'a' then 'aaaaaaaa-0000-4000-8000-000000000001'
                       when 'b' then 'bbbbbbbb-0000-4000-8000-000000000002'
                       when 'admin' then 'adadadad-0000-4000-8000-000000000003' end;
begin
  begin
    perform set_config('request.jwt.claims', json_build_object('sub', sub, 'role', r)::text, true);
    perform set_config('role', r, true);
    execute stmt;
    raise exception using errcode = 'P0099', message = 'ok';
  exception
    when sqlstate 'P0099' then return 'ok';
    when others then return sqlstate || ': ' || sqlerrm;
  end;
end $$;

-- the first column of `query` run as `who`, kept (not rolled back).
create function pg_temp.as_user(who text, query text) returns text
language plpgsql as $$
declare
  result text;
  sub text := case who when 'a' then 'aaaaaaaa-0000-4000-8000-000000000001' when 'admin' then 'adadadad-0000-4000-8000-000000000003' end;
begin
  perform set_config('request.jwt.claims', json_build_object('sub', sub, 'role', 'authenticated')::text, true);
  perform set_config('role', 'authenticated', true);
  execute query into result;
  perform set_config('role', 'none', true);
  return result;
end $$;

-- a rental from current_date + s to + e of `vehicle`, as `who` would insert it (a visitor with
-- contact details, a customer for themself, administrators and service_role for b).
create function pg_temp.rental(who text, vehicle text, s int, e int, cols text default '', vals text default '') returns text
language sql as $$
  select case who
    when 'anon' then format($f$insert into public.bookings (vehicle_id, start_date, end_date, customer_name, customer_email, customer_phone, driver_license_number%s)
                             values (%L, current_date + %s, current_date + %s, 'Visiteur', 'v@example.cd', '+243810000009', 'KIN-1'%s)$f$, cols, vehicle, s, e, vals)
    when 'a' then format($f$insert into public.bookings (user_id, vehicle_id, start_date, end_date%s)
                          values (auth.uid(), %L, current_date + %s, current_date + %s%s)$f$, cols, vehicle, s, e, vals)
    else format($f$insert into public.bookings (user_id, vehicle_id, start_date, end_date%s)
                   values ('bbbbbbbb-0000-4000-8000-000000000002', %L, current_date + %s, current_date + %s%s)$f$, cols, vehicle, s, e, vals)
  end
$$;

-- the same as an upsert (postgrest's POST with Prefer: resolution=merge-duplicates).
create function pg_temp.upsert(who text, vehicle text, s int, e int, cols text default '', vals text default '') returns text
language sql as $$
  select format($f$insert into public.bookings (id, user_id, vehicle_id, start_date, end_date%s)
                   values (gen_random_uuid(), %s, %L, current_date + %s, current_date + %s%s)
                   on conflict (id) do update set vehicle_id = excluded.vehicle_id, start_date = excluded.start_date, end_date = excluded.end_date$f$,
                cols, case who when 'a' then 'auth.uid()' else $q$'bbbbbbbb-0000-4000-8000-000000000002'$q$ end, vehicle, s, e, vals)
$$;

-- the public booking page's call.
create function pg_temp.rpc(vehicle text, s int, e int, extra text default '') returns text
language sql as $$
  select format($f$select * from public.book_vehicle(vehicle_id => %L, start_date => current_date + %s, end_date => current_date + %s,
                     customer_name => 'V', customer_email => 'v@example.cd', customer_phone => '+243810000009', driver_license_number => 'KIN-1'%s)$f$,
                vehicle, s, e, extra)
$$;

-- set a booking's status as the owner, then try `to_status` as `who` (`attempt`'s answer, or
-- `message`'s when asked); all rolled back.
create function pg_temp.transition(who text, tbl text, id uuid, from_status text, to_status text, message boolean default false) returns text
language plpgsql as $$
declare
  result text;
  stmt text := format('update %s set booking_status = %L where id = %L', tbl, to_status, id);
begin
  begin
    execute format('update %s set booking_status = %L where id = %L', tbl, from_status, id);
    result := case when message then pg_temp.message(who, stmt) else pg_temp.attempt(who, stmt) end;
    raise exception using errcode = 'P0098';
  exception when sqlstate 'P0098' then null;
  end;
  return result;
end $$;

create temp table cases (n serial, who text, stmt text, expected text, what text);

-- 1. vehicle rentals, inserted directly, upserted and through book_vehicle, by every role.
-- the rules bind everyone row-level security binds; service_role is trusted.
insert into cases (who, stmt, expected, what)
select who, stmt, case when who = 'service_role' then coalesce(service, expected) else expected end, format('%s (%s, %s)', what, path, who)
from (values ('anon'), ('a'), ('admin'), ('service_role')) roles(who),
lateral (values
  ('insert', pg_temp.rental(who, '44444444-0000-4000-8000-00000000000d', 1, 2), 'error:PT404', 'ok:1', 'a vehicle in maintenance is refused'),
  ('insert', pg_temp.rental(who, '33333333-0000-4000-8000-00000000000c', 1, 2), 'error:PT404', 'error:PT404', 'a retired vehicle is refused'),
  ('insert', pg_temp.rental(who, '22222222-0000-4000-8000-00000000000b', -2, -1), 'error:22023', 'ok:1', 'dates in the past are refused'),
  ('insert', pg_temp.rental(who, '22222222-0000-4000-8000-00000000000b', 5, 3), 'error:22023', 'error:23514', 'an end before the start is refused'),
  ('insert', pg_temp.rental(who, '22222222-0000-4000-8000-00000000000b', 1, 32), 'error:22023', 'ok:1', 'more than the maximum length (30 days) is refused'),
  ('insert', pg_temp.rental(who, '11111111-0000-4000-8000-00000000000a', 32, 33), 'error:PT409', 'ok:1', 'dates inside a confirmed rental are refused'),
  ('insert', pg_temp.rental(who, '22222222-0000-4000-8000-00000000000b', 10, 12), 'error:PT409', 'ok:1', 'dates held by a recent pending request are refused'),
  ('insert', pg_temp.rental(who, '22222222-0000-4000-8000-00000000000b', 50, 51, ', passengers', ', 6'), 'error:23514', 'ok:1', 'more people than the vehicle''s 5 seats are refused'),
  ('insert', pg_temp.rental(who, '22222222-0000-4000-8000-00000000000b', 50, 51, ', passengers', ', 0'), 'error:23514', 'error:23514', 'nobody aboard is refused'),
  ('insert', pg_temp.rental(who, '22222222-0000-4000-8000-00000000000b', 50, 51, ', created_at', $$, '2020-01-01'$$), 'error:428C9', 'ok:1', 'a forged created_at is refused'),
  ('insert', pg_temp.rental(who, '11111111-0000-4000-8000-00000000000a', 35, 36), 'ok:1', null, 'the return day of a confirmed rental can be booked'),
  ('insert', pg_temp.rental(who, '22222222-0000-4000-8000-00000000000b', 50, 52, ', passengers', ', 5'), 'ok:1', null, 'a rental that keeps every rule is accepted')
) cases(path, stmt, expected, service, what);

insert into cases (who, stmt, expected, what)
select who, stmt, case when who = 'service_role' then coalesce(service, expected) else expected end, format('%s (%s, %s)', what, path, who)
from (values ('a'), ('admin'), ('service_role')) roles(who),
lateral (values
  ('upsert', pg_temp.upsert(who, '44444444-0000-4000-8000-00000000000d', 1, 2), 'error:PT404', 'ok:1', 'a vehicle in maintenance is refused'),
  ('upsert', pg_temp.upsert(who, '22222222-0000-4000-8000-00000000000b', -2, -1), 'error:22023', 'ok:1', 'dates in the past are refused'),
  ('upsert', pg_temp.upsert(who, '22222222-0000-4000-8000-00000000000b', 1, 32), 'error:22023', 'ok:1', 'more than the maximum length is refused'),
  ('upsert', pg_temp.upsert(who, '11111111-0000-4000-8000-00000000000a', 31, 33), 'error:PT409', 'ok:1', 'dates inside a confirmed rental are refused'),
  ('upsert', pg_temp.upsert(who, '22222222-0000-4000-8000-00000000000b', 10, 11), 'error:PT409', 'ok:1', 'dates held by a recent pending request are refused'),
  ('upsert', pg_temp.upsert(who, '22222222-0000-4000-8000-00000000000b', 50, 51, ', created_at', $$, now() - interval '1 year'$$), 'error:428C9', 'ok:1', 'a forged created_at is refused'),
  ('upsert', pg_temp.upsert(who, '22222222-0000-4000-8000-00000000000b', 50, 52), 'ok:1', null, 'a rental that keeps every rule is accepted')
) cases(path, stmt, expected, service, what);

-- book_vehicle checks some rules itself (so service_role meets them there too); the triggers
-- hold the others inside it although it runs as its owner.
insert into cases (who, stmt, expected, what)
select who, stmt, case when who = 'service_role' then coalesce(service, expected) else expected end, format('%s (rpc, %s)', what, who)
from (values ('anon'), ('a'), ('admin'), ('service_role')) roles(who),
lateral (values
  (pg_temp.rpc('44444444-0000-4000-8000-00000000000d', 1, 2), 'error:PT404', null, 'a vehicle in maintenance is refused'),
  (pg_temp.rpc('22222222-0000-4000-8000-00000000000b', -2, -1), 'error:22023', null, 'dates in the past are refused'),
  (pg_temp.rpc('22222222-0000-4000-8000-00000000000b', 5, 3), 'error:22023', null, 'an end before the start is refused'),
  (pg_temp.rpc('22222222-0000-4000-8000-00000000000b', 1, 32), 'error:22023', 'ok:1', 'more than the maximum length is refused'),
  (pg_temp.rpc('11111111-0000-4000-8000-00000000000a', 32, 33), 'error:PT409', null, 'dates inside a confirmed rental are refused'),
  (pg_temp.rpc('22222222-0000-4000-8000-00000000000b', 10, 11), 'error:PT409', 'ok:1', 'dates held by a recent pending request are refused'),
  (pg_temp.rpc('22222222-0000-4000-8000-00000000000b', 50, 51, ', passengers => 8'), 'error:23514', 'ok:1', 'more people than seats are refused'),
  (pg_temp.rpc('22222222-0000-4000-8000-00000000000b', 50, 52, ', passengers => 2'), 'ok:1', null, 'a rental that keeps every rule is accepted')
) cases(stmt, expected, service, what);

-- 2. changing a rental (b's pending swift, + 10 .. + 11): the same rules for what changes.
insert into cases (who, stmt, expected, what)
select who, format('update public.bookings set %s where id = %L', change, 'b0000000-0000-4000-8000-0000000000b1'),
       case when who = 'service_role' then coalesce(service, expected) else expected end, format('%s (update, %s)', what, who)
from (values ('admin'), ('service_role')) roles(who),
lateral (values
  ($$vehicle_id = '44444444-0000-4000-8000-00000000000d'$$, 'error:PT404', 'ok:1', 'moving it to a vehicle in maintenance is refused'),
  ('start_date = current_date - 3, end_date = current_date - 1', 'error:22023', 'ok:1', 'moving it into the past is refused'),
  ('end_date = current_date + 9', 'error:22023', 'error:23514', 'an end before the start is refused'),
  ('end_date = current_date + 45', 'error:22023', 'ok:1', 'stretching it past the maximum length is refused'),
  ($$vehicle_id = '11111111-0000-4000-8000-00000000000a', start_date = current_date + 31, end_date = current_date + 33$$, 'error:PT409', 'ok:1', 'moving it onto a confirmed rental is refused'),
  ($$vehicle_id = '11111111-0000-4000-8000-00000000000a'$$, 'error:PT409', 'ok:1', 'moving it onto dates another pending request holds is refused'),
  ('passengers = 6', 'error:23514', 'ok:1', 'more people than seats are refused'),
  ($$created_at = '2020-01-01'$$, 'error:428C9', 'ok:1', 'created_at cannot be rewritten'),
  ($$user_id = 'aaaaaaaa-0000-4000-8000-000000000001'$$, 'error:428C9', 'ok:1', 'the booking cannot be given to another account'),
  ('start_date = current_date + 12, end_date = current_date + 14, passengers = 3', 'ok:1', null, 'new free dates are accepted'),
  ($$pickup_location = 'Gombe'$$, 'ok:1', null, 'a change that moves nothing is accepted')
) cases(change, expected, service, what);

insert into cases (who, stmt, expected, what) values
  ('a', $$update public.bookings set start_date = current_date + 11 where id = 'a0000000-0000-4000-8000-0000000000a1'$$, 'ok:1', 'a customer moves the dates of her pending rental (V68)'),
  ('a', $$update public.bookings set start_date = current_date + 11, pickup_location = 'Ailleurs' where id = 'a0000000-0000-4000-8000-0000000000a1'$$, 'error:42501', 'but changes nothing else with them'),
  ('a', $$update public.bookings set created_at = '2020-01-01' where id = 'a0000000-0000-4000-8000-0000000000a1'$$, 'error:428C9', 'a customer cannot rewrite created_at (update, a)'),
  ('a', $$insert into public.bookings (id, user_id, vehicle_id, start_date, end_date) values ('a0000000-0000-4000-8000-0000000000a1', auth.uid(), '11111111-0000-4000-8000-00000000000a', current_date + 10, current_date + 13)
          on conflict (id) do update set end_date = excluded.end_date, pickup_location = 'Ailleurs'$$, 'error:42501', 'a customer cannot rewrite her booking through an upsert (upsert, a)'),
  ('a', $$insert into public.bookings (user_id, vehicle_id, start_date, end_date) values ('bbbbbbbb-0000-4000-8000-000000000002', '22222222-0000-4000-8000-00000000000b', current_date + 50, current_date + 51)$$, 'error:42501', 'a customer cannot book in another account''s name (insert, a)'),
  ('a', $$insert into public.bookings (user_id, vehicle_id, start_date, end_date) values (null, '22222222-0000-4000-8000-00000000000b', current_date + 50, current_date + 51)$$, 'error:42501', 'a signed-in customer books with her account (insert, a)'),
  ('anon', pg_temp.rental('anon', '22222222-0000-4000-8000-00000000000b', 50, 51, ', user_id', $$, 'aaaaaaaa-0000-4000-8000-000000000001'$$), 'error:42501', 'a visitor cannot book in an account''s name (insert, anon)'),
  ('admin', pg_temp.rental('admin', '22222222-0000-4000-8000-00000000000b', 50, 51, ', booking_status', $$, 'completed'$$), 'error:22023', 'an administrator creates pending, confirmed or active bookings only (insert, admin)'),
  ('admin', pg_temp.rental('admin', '22222222-0000-4000-8000-00000000000b', 50, 51, ', booking_status', $$, 'confirmed'$$), 'ok:1', 'an administrator may create a confirmed booking (insert, admin)');

-- 3. the three service kinds: dates not in the past on every path, values from their forms.
insert into cases (who, stmt, expected, what)
select who, format(stmt, case who when 'a' then 'auth.uid()' else $q$'bbbbbbbb-0000-4000-8000-000000000002'$q$ end, d),
       case when who = 'service_role' then coalesce(service, expected) else expected end, format('%s (%s, %s)', what, path, who)
from (values ('a'), ('admin'), ('service_role')) roles(who),
lateral (values (-1, 'error:22023', 'ok:1', 'a date in the past is refused'), (0, 'ok:1', null, 'today is accepted')) dates(d, expected, service, verdict),
lateral (values
  ('insert', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number) values (%s, 'vip', current_date + %s, '10:00', 'AF12')$$, 'airport: '),
  ('insert', $$insert into public.diagnostic_bookings (user_id, service_type, appointment_date, appointment_time, vehicle_type, customer_email, customer_phone) values (%s, 'reset', current_date + %s, '09:00', 'VW Golf', 'x@example.cd', '+243810000001')$$, 'diagnostic: '),
  ('insert', $$insert into public.premium_service_bookings (user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone) values (%s, 'vip_concierge', current_date + %s, 2, 'Alice', 'x@example.cd', '+243810000001')$$, 'premium: '),
  ('upsert', $$insert into public.airport_bookings (id, user_id, service_type, flight_date, flight_time, flight_number) values (gen_random_uuid(), %s, 'vip', current_date + %s, '10:00', 'AF12') on conflict (id) do update set flight_date = excluded.flight_date$$, 'airport: ')
) kinds(path, stmt, prefix),
lateral (select prefix || verdict as what) w;

insert into cases (who, stmt, expected, what)
select who, format('update %s set %s = current_date - 1 where id = %L', t, col, id),
       case who when 'service_role' then 'ok:1' else 'error:22023' end, format('%s: moving it into the past is refused (update, %s)', t, who)
from (values ('admin'), ('service_role')) roles(who),
(values ('public.airport_bookings', 'flight_date', 'b0000000-0000-4000-8000-0000000000b2'),
        ('public.diagnostic_bookings', 'appointment_date', 'b0000000-0000-4000-8000-0000000000b3'),
        ('public.premium_service_bookings', 'start_date', 'b0000000-0000-4000-8000-0000000000b4')) kinds(t, col, id);

insert into cases (who, stmt, expected, what) values
  ('anon', $$insert into public.airport_bookings (service_type, flight_date, flight_time, flight_number, customer_email) values ('vip', current_date + 1, '10:00', 'AF12', 'v@example.cd')$$, 'error:42501', 'airport: a visitor must sign in (insert, anon)'),
  ('a', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number, passengers) values (auth.uid(), 'vip', current_date + 1, '10:00', 'AF12', 51)$$, 'error:23514', 'airport: more than 50 passengers are refused (insert, a)'),
  ('a', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number, created_at) values (auth.uid(), 'vip', current_date + 1, '10:00', 'AF12', '2020-01-01')$$, 'error:428C9', 'airport: a forged created_at is refused (insert, a)'),
  ('admin', $$update public.airport_bookings set passengers = 0 where id = 'b0000000-0000-4000-8000-0000000000b2'$$, 'error:23514', 'airport: nobody aboard is refused (update, admin)'),
  ('admin', $$update public.airport_bookings set flight_time = '12:00' where id = 'b0000000-0000-4000-8000-0000000000b2'$$, 'ok:1', 'airport: a change that keeps the rules is accepted (update, admin)');

select plan((select count(*)::int from cases) + 136);

select is(pg_temp.attempt(who, stmt), expected, what) from cases order by n;

-- 4. refusals say what is wrong, in french, never with a constraint's name.
select is(pg_temp.message('a', pg_temp.rental('a', '44444444-0000-4000-8000-00000000000d', 1, 2)), 'PT404: Véhicule introuvable ou indisponible', 'message: unavailable vehicle');
select is(pg_temp.message('anon', pg_temp.rental('anon', '22222222-0000-4000-8000-00000000000b', -2, -1)), '22023: La date de début ne peut pas être dans le passé', 'message: past dates');
select is(pg_temp.message('a', pg_temp.rental('a', '22222222-0000-4000-8000-00000000000b', 5, 3)), '22023: La date de fin doit suivre la date de début', 'message: end before start');
select is(pg_temp.message('a', pg_temp.rental('a', '22222222-0000-4000-8000-00000000000b', 1, 32)), '22023: La durée maximale de location est de 30 jours', 'message: too long');
select is(pg_temp.message('a', pg_temp.rental('a', '11111111-0000-4000-8000-00000000000a', 32, 33)), 'PT409: Ce véhicule est déjà réservé sur ces dates', 'message: dates taken');
select is(pg_temp.message('a', pg_temp.rental('a', '22222222-0000-4000-8000-00000000000b', 50, 51, ', passengers', ', 6')), '23514: Ce véhicule accepte de 1 à 5 personne(s)', 'message: too many people');
select is(pg_temp.message('a', pg_temp.rental('a', '22222222-0000-4000-8000-00000000000b', 50, 51, ', created_at', $$, '2020-01-01'$$)), '428C9: La date de création d''une réservation est fixée par le serveur', 'message: forged created_at');
select is(pg_temp.message('anon', $$insert into public.bookings (vehicle_id, start_date, end_date) values ('22222222-0000-4000-8000-00000000000b', current_date + 50, current_date + 51)$$), '23514: Veuillez remplir tous les champs obligatoires', 'message: a visitor''s contact');
select is(pg_temp.message('anon', pg_temp.rpc('22222222-0000-4000-8000-00000000000b', 50, 51, $$, payment_method => 'mobile'$$)), '23514: Le paiement mobile demande un opérateur (M-Pesa, Orange, Airtel) et un numéro', 'message: mobile money');
select is(pg_temp.message('a', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number) values (auth.uid(), 'vip', current_date + 1, '10:00', 'A')$$), '23514: Format de numéro de vol invalide', 'message: flight number');
select is(pg_temp.message('a', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number) values (auth.uid(), 'vip', current_date - 1, '10:00', 'AF12')$$), '22023: La date ne peut pas être dans le passé', 'message: a past flight');
select is(pg_temp.message('a', $$insert into public.diagnostic_bookings (user_id, service_type, appointment_date, appointment_time, vehicle_type, customer_email, customer_phone) values (auth.uid(), 'reset', current_date, '12:00', 'VW Golf', 'x@example.cd', '+243810000001')$$), '23514: Créneau invalide : 09:00, 10:00, 11:00, 14:00, 15:00 ou 16:00', 'message: diagnostic slot');
select is(pg_temp.message('a', $$insert into public.premium_service_bookings (user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone) values (auth.uid(), 'vip_concierge', current_date, 5, 'Alice', 'x@example.cd', '+243810000001')$$), '23514: Durée proposée : 1, 2, 3, 7, 14 ou 30 jours', 'message: premium duration');
select is(pg_temp.message('anon', $$insert into public.diagnostic_bookings (service_type, appointment_date, appointment_time, vehicle_type, customer_email, customer_phone) values ('reset', current_date, '09:00', 'VW Golf', 'x@example.cd', '+243810000001')$$), '42501: Vous devez être connecté pour réserver', 'message: a visitor books a service');

-- 5. the server's fields: updated_at is stamped whatever is sent; book_vehicle books for the
-- signed-in customer.
select is(pg_temp.as_user('a', $$insert into public.bookings (user_id, vehicle_id, start_date, end_date, updated_at) values (auth.uid(), '22222222-0000-4000-8000-00000000000b', current_date + 60, current_date + 61, '2020-01-01') returning (updated_at = now() and created_at = now())::text$$),
  'true', 'a sent updated_at is replaced by the server''s');
create temp table booked (id uuid);
insert into booked select pg_temp.as_user('a', $$select id from public.book_vehicle(vehicle_id => '22222222-0000-4000-8000-00000000000b', start_date => current_date + 70, end_date => current_date + 71,
    customer_name => 'Alice', customer_email => 'alice@example.cd', customer_phone => '+243810000001', driver_license_number => 'KIN-A')$$)::uuid;
select is((select user_id from public.bookings where id = (select id from booked)), 'aaaaaaaa-0000-4000-8000-000000000001'::uuid, 'book_vehicle books for the signed-in customer');

-- 6. the pending hold: b's swift request of + 10 .. + 11 hides the swift from the search on
-- those dates and refuses other requests; 24 hours later it holds nothing.
select is((select count(*)::int from public.search_available_vehicles(current_date + 10, current_date + 11) where name = 'Suzuki Swift'), 0, 'a vehicle held by a pending request is not offered on its dates');
select is((select count(*)::int from public.search_available_vehicles(current_date + 11, current_date + 12) where name = 'Suzuki Swift'), 1, '...and is offered from its return day');
update public.bookings set created_at = now() - interval '25 hours' where id = 'b0000000-0000-4000-8000-0000000000b1';
select is((select count(*)::int from public.search_available_vehicles(current_date + 10, current_date + 11) where name = 'Suzuki Swift'), 1, 'an expired hold no longer hides the vehicle');
select is(pg_temp.attempt('a', pg_temp.rental('a', '22222222-0000-4000-8000-00000000000b', 10, 12)), 'ok:1', 'an expired hold no longer refuses a request');
update public.bookings set created_at = now(), booking_status = 'cancelled' where id = 'b0000000-0000-4000-8000-0000000000b1';
select is(pg_temp.attempt('a', pg_temp.rental('a', '22222222-0000-4000-8000-00000000000b', 10, 12)), 'ok:1', 'a cancelled request holds nothing');
update public.bookings set booking_status = 'pending' where id = 'b0000000-0000-4000-8000-0000000000b1';

-- 7. the lengths are the back office's settings.
update public.app_settings set value = value || '{"minimumRentalDuration": 3, "maximumRentalDuration": 10, "defaultRentalDuration": 3}' where section = 'business';
select is(pg_temp.message('a', pg_temp.rental('a', '22222222-0000-4000-8000-00000000000b', 50, 61)), '22023: La durée maximale de location est de 10 jours', 'the maximum length follows the settings');
select is(pg_temp.message('anon', pg_temp.rpc('22222222-0000-4000-8000-00000000000b', 50, 52)), '22023: La durée minimale de location est de 3 jour(s)', 'the minimum length follows the settings');
select is(pg_temp.attempt('a', pg_temp.rental('a', '22222222-0000-4000-8000-00000000000b', 50, 60)), 'ok:1', 'ten days is allowed then');
update public.app_settings set value = value || '{"minimumRentalDuration": 1, "maximumRentalDuration": 30, "defaultRentalDuration": 1}' where section = 'business';

-- 8. the state machine: administrators move bookings along its edges, and nowhere else; a
-- confirmation that comes after a cancellation (a lost race) is a 409, not an overwrite.
create temp table edges (from_status text, to_status text);
insert into edges values ('pending', 'confirmed'), ('pending', 'cancelled'), ('confirmed', 'active'), ('confirmed', 'cancelled'), ('active', 'completed');
select is(pg_temp.transition('admin', t, id::uuid, f, s),
          case when exists (select 1 from edges e where e.from_status = f and e.to_status = s) then 'ok:1' else 'error:PT409' end,
          format('admin: %s -> %s on %s', f, s, t))
from (values ('public.bookings', 'a0000000-0000-4000-8000-0000000000a1'), ('public.airport_bookings', 'a0000000-0000-4000-8000-0000000000a2'),
             ('public.diagnostic_bookings', 'a0000000-0000-4000-8000-0000000000a3'), ('public.premium_service_bookings', 'a0000000-0000-4000-8000-0000000000a4')) tables(t, id),
     unnest(array['pending', 'confirmed', 'active', 'completed', 'cancelled']) f,
     unnest(array['pending', 'confirmed', 'active', 'completed', 'cancelled']) s
where f <> s
order by t, f, s;

-- a customer cancels her own pending booking and nothing else: a booking that moved on is a 409.
select is(pg_temp.transition('a', t, id::uuid, f, s), expected, format('customer: %s -> %s on %s', f, s, t))
from (values ('public.bookings', 'a0000000-0000-4000-8000-0000000000a1'), ('public.airport_bookings', 'a0000000-0000-4000-8000-0000000000a2'),
             ('public.diagnostic_bookings', 'a0000000-0000-4000-8000-0000000000a3'), ('public.premium_service_bookings', 'a0000000-0000-4000-8000-0000000000a4')) tables(t, id),
     (values ('pending', 'cancelled', 'ok:1'), ('confirmed', 'cancelled', 'error:PT409'), ('active', 'cancelled', 'error:PT409'),
             ('completed', 'cancelled', 'error:PT409'), ('pending', 'confirmed', 'error:42501'), ('cancelled', 'pending', 'error:42501')) m(f, s, expected)
order by t, f, s;

select is(pg_temp.transition('service_role', 'public.bookings', 'a0000000-0000-4000-8000-0000000000a1', 'completed', 'pending'), 'ok:1', 'service_role is not bound by the state machine');
select is(pg_temp.transition('anon', 'public.bookings', 'a0000000-0000-4000-8000-0000000000a1', 'pending', 'cancelled'), 'ok:0', 'a visitor changes no booking');
select is(pg_temp.transition('b', 'public.bookings', 'a0000000-0000-4000-8000-0000000000a1', 'pending', 'cancelled'), 'ok:0', 'a customer cannot cancel another''s booking');
select is(pg_temp.transition('admin', 'public.airport_bookings', 'a0000000-0000-4000-8000-0000000000a2', 'cancelled', 'confirmed', true),
  'PT409: Cette réservation est « Annulée » : elle ne peut pas passer à « Confirmée »', 'message: a confirmation after a cancellation');
select is(pg_temp.transition('a', 'public.airport_bookings', 'a0000000-0000-4000-8000-0000000000a2', 'confirmed', 'cancelled', true),
  'PT409: Cette réservation ne peut plus être annulée : elle est « Confirmée »', 'message: a cancellation after a confirmation');
select is(pg_temp.transition('admin', 'public.bookings', 'a0000000-0000-4000-8000-0000000000a1', 'completed', 'completed'), 'ok:1', 'an administrator may still edit a finished booking''s other fields');

-- 9. the vehicle lock is the triggers' helper, not an api.
select is(pg_temp.attempt('anon', $$select public.lock_booking_vehicles('11111111-0000-4000-8000-00000000000a')$$), 'error:42501', 'a visitor cannot lock a vehicle through rpc');
select is(pg_temp.attempt('a', $$select public.lock_booking_vehicles('11111111-0000-4000-8000-00000000000a')$$), 'error:42501', 'nor can a customer');

select * from finish();
rollback;
