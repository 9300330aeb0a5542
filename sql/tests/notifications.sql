-- the booking messages of V63 written to the outbox of V62: who gets which message for which
-- event of the four kinds, the customer's and the company's switches, the day-before
-- reminders kept once, the french amounts, and the outbox closed to the api roles.
begin;
\ir setup.psql
\set QUIET 1

select plan(51);

-- run `stmt` as `who` ('anon', 'a', 'b', 'admin') and keep what it did.
create function pg_temp.run_as(who text, stmt text) returns void
language plpgsql as $$
declare
  r text := case who when 'anon' then 'anon' else 'authenticated' end;
  sub text := case who when 'a' then 'aaaaaaaa-0000-4000-8000-000000000001'
                       when 'b' then 'bbbbbbbb-0000-4000-8000-000000000002'
                       when 'admin' then 'adadadad-0000-4000-8000-000000000003' end;
begin
  perform set_config('request.jwt.claims', json_build_object('sub', sub, 'role', r)::text, true);
  perform set_config('role', r, true);
  execute stmt;
  perform set_config('role', 'none', true);
  perform set_config('request.jwt.claims', '', true);
end $$;

-- the messages written since the last call, as 'channel recipient | subject' lines in order,
-- spaces instead of no-break spaces; and forget them.
create function pg_temp.sent() returns text
language plpgsql as $$
declare
  out text;
begin
  select coalesce(string_agg(channel || ' ' || recipient || ' | ' || coalesce(subject, '-'), E'\n' order by id), '') into out
  from outbox.messages;
  delete from outbox.messages;
  return out;
end $$;

create function pg_temp.last_body() returns text
language sql as $$ select replace(replace(body_text, chr(160), ' '), chr(8239), ' ') from outbox.messages order by id desc limit 1 $$;

create function pg_temp.body_to(who text) returns text
language sql as $$ select replace(replace(body_text, chr(160), ' '), chr(8239), ' ') from outbox.messages where recipient = who order by id desc limit 1 $$;

delete from outbox.messages;

-- amounts in french, in the display currency
select is(replace(replace(public.format_money(1065), chr(160), ' '), chr(8239), ' '), '1 065,00 $', 'dollars: grouped thousands, a decimal comma, the symbol after');
select is(replace(replace(public.format_money(1065, 'CDF'), chr(160), ' '), chr(8239), ' '), '3 035 250 FC', 'congolese francs at the default rate, no decimals');
select is(replace(replace(public.format_money(1065, 'EUR'), chr(160), ' '), chr(8239), ' '), '979,80 €', 'euros at their rate');
select is(replace(replace(public.format_money(0.05), chr(160), ' '), chr(8239), ' '), '0,05 $', 'cents keep their leading zero');
select is(replace(replace(public.format_money(-12.5), chr(160), ' '), chr(8239), ' '), '-12,50 $', 'a negative amount');
update public.app_settings set value = value || '{"currency": "CDF", "exchangeRates": {"USD": 1, "CDF": 2800, "EUR": 0.9}}' where section = 'general';
select is(replace(replace(public.format_money(100), chr(160), ' '), chr(8239), ' '), '280 000 FC', 'the settings choose the currency and its rate');
update public.app_settings set value = value || '{"currency": "USD"}' where section = 'general';

-- a visitor's rental: the visitor and the company hear of it
select pg_temp.run_as('anon', $$insert into public.bookings (id, vehicle_id, start_date, end_date, customer_name, customer_email, customer_phone, driver_license_number)
  values ('e0000000-0000-4000-8000-0000000000e1', '11111111-0000-4000-8000-00000000000a', current_date + 40, current_date + 43, 'Jean Visiteur', 'jean@example.cd', '+243 81 555 0001', 'KIN-777')$$);
select is((select string_agg(channel || ' ' || recipient || ' | ' || subject, E'\n' order by id) from outbox.messages),
          E'email jean@example.cd | Demande de réservation reçue #E0000000\nemail admin@example.cd | Nouvelle réservation #E0000000',
          'a visitor''s rental: a mail to the visitor and a notice to the company''s address');
select matches(pg_temp.body_to('jean@example.cd'), '^Bonjour Jean Visiteur,', 'the visitor is greeted by name');
select matches(pg_temp.body_to('jean@example.cd'), 'Location de véhicule : Toyota Land Cruiser \(Toyota Land Cruiser\)', 'the mail names the vehicle');
select matches(pg_temp.body_to('jean@example.cd'), 'Du \d\d/\d\d/\d{4} au \d\d/\d\d/\d{4} \(3 jours\)', 'and the dates with the length');
select matches(pg_temp.body_to('jean@example.cd'), 'Montant : 300,00 \$', 'and the amount the database priced');
select matches(pg_temp.body_to('jean@example.cd'), 'Statut : En attente', 'and the status');
select matches(pg_temp.body_to('jean@example.cd'), 'Pour toute question : \+243 81 000 0000 — contact@example.cd', 'and how to reach the company');
select matches(pg_temp.body_to('admin@example.cd'), 'Permis : KIN-777', 'the company''s notice carries the licence number');
select matches(pg_temp.body_to('admin@example.cd'), 'Téléphone : \+243 81 555 0001', 'and the customer''s phone');
select is((select count(*)::int from outbox.messages where channel = 'sms'), 0, 'a visitor gets no text message');
select is((select topic from outbox.messages where recipient = 'jean@example.cd'), 'booking.received', 'the topic names the event');
select pg_temp.sent();

-- an administrator confirms, a customer's own cancellation, the company's
select pg_temp.run_as('admin', $$update public.bookings set booking_status = 'confirmed' where id = 'e0000000-0000-4000-8000-0000000000e1'$$);
select is((select attachments from outbox.messages),
          '[{"function": "booking-receipt", "body": {"id": "e0000000-0000-4000-8000-0000000000e1", "kind": "vehicle"}}]'::jsonb,
          'the confirmation carries the receipt, made by booking-receipt when it is sent');
select matches(pg_temp.last_body(), 'Votre bon de réservation est joint à ce message \(PDF\)\.', 'and says so');
select is(pg_temp.sent(), 'email jean@example.cd | Réservation confirmée #E0000000', 'a confirmation mails the customer only');
select pg_temp.run_as('a', $$update public.airport_bookings set booking_status = 'cancelled' where id = 'a0000000-0000-4000-8000-0000000000a2'$$);
select matches(pg_temp.body_to('alice@example.cd'), 'annulée, comme vous l''avez demandé', 'a customer''s cancellation says it was theirs');
select is((select count(*)::int from outbox.messages where attachments <> '[]'), 0, 'a cancellation carries no file');
select matches(pg_temp.body_to('alice@example.cd'), 'Service aéroport : Service VIP, vol AF123, 2 passagers', 'an airport booking is described by its service, flight and passengers');
select is(pg_temp.sent(), E'email alice@example.cd | Réservation annulée #A0000000\nemail admin@example.cd | Réservation annulée par le client #A0000000',
          'and the company is told of it');
select pg_temp.run_as('admin', $$update public.diagnostic_bookings set booking_status = 'cancelled' where id = 'b0000000-0000-4000-8000-0000000000b3'$$);
select matches(pg_temp.body_to('bob@example.cd'), 'annulée par notre équipe', 'a cancellation by the company says so');
select matches(pg_temp.body_to('bob@example.cd'), 'Diagnostic : Diagnostic Mécanique, véhicule Nissan Patrol', 'a diagnostic is described by its service and vehicle');
select is(pg_temp.sent(), 'email bob@example.cd | Réservation annulée #B0000000', 'only the customer hears of the company''s cancellation');

-- a change of dates is a message with the new dates and price; an unrelated edit is none
select pg_temp.run_as('admin', $$update public.bookings set end_date = current_date + 17 where id = 'a0000000-0000-4000-8000-0000000000a1'$$);
select matches(pg_temp.body_to('alice@example.cd'), 'Montant : 630,00 \$', 'new dates: the mail gives the new price (a week: 10 % off)');
select is(pg_temp.sent(), 'email alice@example.cd | Réservation modifiée #A0000000', 'new dates are a change');
select pg_temp.run_as('admin', $$update public.bookings set pickup_location = 'Aéroport de N''djili' where id = 'a0000000-0000-4000-8000-0000000000a1'$$);
select is(pg_temp.sent(), '', 'a pick-up place edited by the team sends nothing');

-- the customer's choices
select pg_temp.run_as('a', $$update public.profiles set notify_email = false, notify_sms = true, phone = '+243 81 222 3333' where user_id = auth.uid()$$);
select pg_temp.run_as('a', $$insert into public.premium_service_bookings (user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone)
  values (auth.uid(), 'vip_concierge', current_date + 20, 2, 'Alice Mbuyi', 'alice@example.cd', '+243 81 222 3333')$$);
select is((select count(*)::int from outbox.messages where recipient = 'alice@example.cd'), 0, 'a customer who turned mail off gets none');
select is((select count(*)::int from outbox.messages where channel = 'sms'), 0, 'and no text while the company has text messages off');
select pg_temp.sent();
update public.app_settings set value = value || '{"smsNotifications": true}' where section = 'notifications';
select pg_temp.run_as('a', $$insert into public.premium_service_bookings (id, user_id, service_type, start_date, duration_days, customer_name, customer_email, customer_phone)
  values ('f0000000-0000-4000-8000-0000000000f1', auth.uid(), 'vip_concierge', current_date + 25, 2, 'Alice Mbuyi', 'alice@example.cd', '+243 81 222 3333')$$);
select is((select recipient from outbox.messages where channel = 'sms'), '+243 81 222 3333', 'with texts on, the customer who asked for them gets one');
select matches((select body_text from outbox.messages where channel = 'sms'), '^Kinshasa Prestige Auto : demande de réservation reçue #F0000000\. Service premium : ',
               'a short text naming the company, the event and the booking');
select pg_temp.sent();

-- the company's switches
update public.app_settings set value = value || '{"bookingConfirmations": false}' where section = 'notifications';
select pg_temp.run_as('b', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number, passengers)
  values (auth.uid(), 'baggage', current_date + 9, '08:30', 'ET801', 1)$$);
select is((select string_agg(recipient, ',') from outbox.messages), 'admin@example.cd', 'booking confirmations off: only the company''s notice');
select pg_temp.sent();
update public.app_settings set value = value || '{"bookingConfirmations": true, "emailNotifications": false}' where section = 'notifications';
select pg_temp.run_as('b', $$insert into public.airport_bookings (user_id, service_type, flight_date, flight_time, flight_number, passengers)
  values (auth.uid(), 'baggage', current_date + 9, '18:30', 'ET802', 1)$$);
select is((select string_agg(recipient, ',') from outbox.messages), 'bob@example.cd', 'company notices off: only the customer''s mail');
select pg_temp.sent();

-- a session that says app.notify = off (the seed)
set local app.notify = 'off';
insert into public.bookings (user_id, vehicle_id, start_date, end_date) values ('bbbbbbbb-0000-4000-8000-000000000002', '22222222-0000-4000-8000-00000000000b', current_date + 60, current_date + 61);
select is(pg_temp.sent(), '', 'app.notify = off writes no message');
set local app.notify = '';

-- the day-before reminders, once each
update public.diagnostic_bookings set appointment_date = (now() at time zone 'Africa/Kinshasa')::date + 1, booking_status = 'confirmed'
where id = 'a0000000-0000-4000-8000-0000000000a3';
select pg_temp.sent();
update public.profiles set notify_email = true where user_id = 'aaaaaaaa-0000-4000-8000-000000000001';
select is(public.enqueue_booking_reminders(), 1, 'one confirmed booking tomorrow: one reminder run');
select is((select string_agg(channel || ' ' || recipient || ' | ' || coalesce(subject, '-'), E'\n' order by id) from outbox.messages),
          E'email alice@example.cd | Rappel : votre réservation de demain #A0000000\nsms +243810000001 | -', 'by mail and by text as the customer chose (to the number typed in the booking)');
select public.enqueue_booking_reminders();
select is((select count(*)::int from outbox.messages), 2, 'a second run keeps each reminder once');
select pg_temp.sent();
update outbox.schedules set last_run_at = null;
select is(outbox.run_due_schedules(), 1, 'the schedule runs the reminders when due');
select isnt((select last_run_at from outbox.schedules where name = 'booking_reminders'), null, 'and notes when it ran');
select is(outbox.run_due_schedules(), 0, 'and not again before its period');

-- the outbox is closed to the api roles
select is(pg_temp.attempt('service_role', 'select * from outbox.messages'), 'error:42501', 'service_role cannot read the outbox');
select is(pg_temp.attempt('a', $$select outbox.enqueue('email', 'x@example.cd', 's', 'b', 't')$$), 'error:42501', 'a customer cannot write to it');
select is(pg_temp.attempt('a', 'select public.enqueue_booking_reminders()'), 'error:42501', 'nor run the reminders');
select is(pg_temp.attempt('anon', $$select public.send_booking_messages('bookings', 'confirmed', '{}')$$), 'error:42501', 'nor send booking messages');
select is(pg_temp.attempt('anon', $$select public.booking_contact('{"user_id": "aaaaaaaa-0000-4000-8000-000000000001"}')$$), 'error:42501', 'nobody reads a customer''s contact details through the helper');
select is(pg_temp.attempt('b', $$select public.booking_description('bookings', '{}')$$), 'error:42501', 'nor calls the description helper');
select is(pg_temp.attempt('a', $$update public.profiles set notify_sms = true where user_id = auth.uid()$$), 'ok:1', 'a customer sets their own notification choices');
select is(pg_temp.attempt('a', $$update public.profiles set notify_sms = true where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'$$), 'ok:0', 'but not another customer''s');

select * from finish();
rollback;
