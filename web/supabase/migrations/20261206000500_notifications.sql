-- squashes: 20250101003000 20250101003100 20250101003200 20250101003300 20250101003400
-- squashes: 20250101003500 20250101003600 20250101003700 20250101003800 20250101004000
-- squashes: 20250101004100 20250101004200 20250101004300 20250101004400 20250101004500
-- squashes: 20250101004600 20250101004700 20250101004800 20250101005000 20250101005100
-- squashes: 20250101005300 20250101005600 20250101010300 20250101010400 20250101010500
-- squashes: 20250101010600 20250101010700 20250101010800 20250101010900 20261202000000
--
-- the site's booking messages, in french, for the four kinds of bookings: received, confirmed,
-- cancelled (by the customer or by the company), changed, and a reminder the day before; a
-- notice to the company's address for each new booking and each cancellation by a customer.
-- they are written to the outbox by triggers, in the booking's own transaction, and
-- delivered by the server's worker.
--
-- who gets what:
--   - the customer: the contact details of the booking (a visitor's, or the ones typed in the
--     form), else their account's; by e-mail unless their profile turned it off, by text message
--     when their profile asked for it.
--   - the company: notifications.adminEmailAddress of the back office's settings.
-- the back office's switches (app_settings.notifications): bookingConfirmations sends (or not)
-- the customer's messages, emailNotifications the company's notices, smsNotifications allows
-- text messages at all.
--
-- a session that sets app.notify = 'off' (the seed) writes bookings without messages.
--
-- (the customer's choices are profiles.notify_email and notify_sms.)

-- a dollar amount in the display currency, french style: « 1 065,00 $ », « 3 034 250 FC »,
-- « 979,80 € », as the site's Intl.NumberFormat('fr-FR') writes them: a narrow no-break space
-- between thousands, a no-break space before the symbol. `currency` overrides the setting.
create function public.format_money(amount numeric, currency text default null) returns text
language plpgsql stable security definer set search_path = ''
as $$
declare
  general jsonb := (select s.value from public.app_settings s where s.section = 'general');
  cur text := coalesce(format_money.currency, general ->> 'currency', 'USD');
  rate numeric := coalesce((general -> 'exchangeRates' ->> cur)::numeric,
                           case cur when 'CDF' then 2850 when 'EUR' then 0.92 else 1 end);
  decimals int := case when cur = 'CDF' then 0 else 2 end;
  value numeric := round(coalesce(amount, 0) * rate, decimals);
  whole text := regexp_replace(trunc(abs(value))::text, '(\d)(?=(\d{3})+$)', '\1' || chr(8239), 'g');
  fraction text := case when decimals = 0 then '' else ',' || lpad(((abs(value) - trunc(abs(value))) * 100)::int::text, 2, '0') end;
begin
  return case when value < 0 then '-' else '' end || whole || fraction || chr(160)
         || case cur when 'USD' then '$' when 'EUR' then '€' when 'CDF' then 'FC' else cur end;
end
$$;

create function public.format_day(d date) returns text
language sql immutable
as $$ select to_char(d, 'DD/MM/YYYY') $$;

-- the first day of a booking of table `kind`: its start, flight or appointment date.
create function public.booking_first_day(kind text, b jsonb) returns date
language sql immutable
as $$
  select (b ->> case kind when 'airport_bookings' then 'flight_date'
                          when 'diagnostic_bookings' then 'appointment_date' else 'start_date' end)::date
$$;

-- what a booking is, for messages: a line naming it, a line of dates, and its first day.
create function public.booking_description(kind text, b jsonb, out what text, out dates text, out first_day date)
language plpgsql stable security definer set search_path = ''
as $$
declare
  n int;
begin
  first_day := public.booking_first_day(kind, b);
  if kind = 'bookings' then
    n := public.rental_days(first_day, (b ->> 'end_date')::date);
    select 'Location de véhicule : ' || v.name || ' (' || v.make || ' ' || v.model || ')' into what
    from public.vehicles v where v.id = (b ->> 'vehicle_id')::uuid;
    dates := 'Du ' || public.format_day(first_day) || ' au ' || public.format_day((b ->> 'end_date')::date)
             || ' (' || n || case when n > 1 then ' jours)' else ' jour)' end;
  elsif kind = 'airport_bookings' then
    select 'Service aéroport : ' || s.name || ', vol ' || (b ->> 'flight_number') || ', '
           || (b ->> 'passengers') || case when (b ->> 'passengers')::int > 1 then ' passagers' else ' passager' end
      into what
    from public.airport_services s where s.code = b ->> 'service_type';
    dates := 'Le ' || public.format_day(first_day) || ' à ' || left(b ->> 'flight_time', 5)
             || case b ->> 'flight_type' when 'departure' then ' (départ)' else ' (arrivée)' end;
  elsif kind = 'diagnostic_bookings' then
    what := 'Diagnostic : ' || coalesce(b ->> 'service_name', b ->> 'service_type') || ', véhicule ' || (b ->> 'vehicle_type');
    dates := 'Le ' || public.format_day(first_day) || ' à ' || left(b ->> 'appointment_time', 5);
  else
    n := (b ->> 'duration_days')::int;
    what := 'Service premium : ' || coalesce(b ->> 'service_name', b ->> 'service_type');
    dates := 'À partir du ' || public.format_day(first_day) || ' pour ' || n || case when n > 1 then ' jours' else ' jour' end;
  end if;
  what := coalesce(what, 'Réservation');
end
$$;
revoke execute on function public.booking_description(text, jsonb) from public, anon, authenticated, service_role;

-- who the customer of a booking is and how they want to hear from us.
create function public.booking_contact(b jsonb, out name text, out email text, out phone text, out by_email boolean, out by_sms boolean)
language plpgsql stable security definer set search_path = ''
as $$
begin
  name := nullif(trim(b ->> 'customer_name'), '');
  email := nullif(trim(b ->> 'customer_email'), '');
  phone := nullif(trim(b ->> 'customer_phone'), '');
  by_email := true;
  by_sms := false;
  if b ->> 'user_id' is not null then
    select coalesce(booking_contact.name, nullif(trim(p.full_name), '')), coalesce(booking_contact.email, u.email),
           coalesce(booking_contact.phone, nullif(trim(p.phone), ''), '+' || nullif(u.phone, '')),
           coalesce(p.notify_email, true), coalesce(p.notify_sms, false)
      into name, email, phone, by_email, by_sms
    from auth.users u left join public.profiles p on p.user_id = u.id
    where u.id = (b ->> 'user_id')::uuid;
  end if;
  name := coalesce(name, 'cher client');
end
$$;
-- the helpers read other customers' contact details (security definer): not an api.
revoke execute on function public.booking_contact(jsonb) from public, anon, authenticated, service_role;

-- the words of each event: subject, the paragraph of the mail, the words of the text message.
create function public.booking_event_words(event text, out subject text, out paragraph text, out short text)
language sql immutable
as $$
  select w.subject, w.paragraph, w.short from (values
    ('received', 'Demande de réservation reçue',
     'Nous avons bien reçu votre demande de réservation. Notre équipe vous contacte sous 24 heures pour la confirmer.',
     'demande de réservation reçue'),
    ('confirmed', 'Réservation confirmée',
     'Bonne nouvelle : votre réservation est confirmée. Nous vous attendons.',
     'réservation confirmée'),
    ('cancelled_by_customer', 'Réservation annulée',
     'Votre réservation a bien été annulée, comme vous l''avez demandé.',
     'réservation annulée à votre demande'),
    ('cancelled_by_company', 'Réservation annulée',
     'Nous sommes désolés : votre réservation a été annulée par notre équipe. Contactez-nous pour trouver une autre date.',
     'réservation annulée par notre équipe'),
    ('changed', 'Réservation modifiée',
     'Votre réservation a été modifiée. Voici ses nouvelles informations.',
     'réservation modifiée'),
    ('reminder', 'Rappel : votre réservation de demain',
     'Nous vous rappelons votre réservation de demain.',
     'rappel de votre réservation de demain')
  ) w (event, subject, paragraph, short)
  where w.event = booking_event_words.event
$$;

-- write the messages of `event` about booking `b` of table `kind` to the outbox.
create function public.send_booking_messages(kind text, event text, b jsonb) returns void
language plpgsql volatile security definer set search_path = ''
as $$
declare
  general jsonb := coalesce((select s.value from public.app_settings s where s.section = 'general'), '{}');
  notifications jsonb := coalesce((select s.value from public.app_settings s where s.section = 'notifications'), '{}');
  company text := coalesce(general ->> 'companyName', 'Kinshasa Prestige Auto');
  reachable text := concat_ws(' — ', general ->> 'companyPhone', general ->> 'companyEmail');
  ref text := '#' || upper(left(b ->> 'id', 8));
  d record;
  c record;
  w record;
  details text;
  body text;
  dedupe text;
begin
  select * into d from public.booking_description(kind, b);
  select * into c from public.booking_contact(b);
  select * into w from public.booking_event_words(event);
  if w.subject is null then
    return;
  end if;
  details := 'Référence : ' || ref || E'\n' || d.what || E'\n' || d.dates || E'\n'
             || 'Montant : ' || public.format_money((b ->> 'total_amount')::numeric) || E'\n'
             || 'Statut : ' || public.booking_status_label(b ->> 'booking_status');

  if coalesce((notifications ->> 'bookingConfirmations')::boolean, true) then
    body := 'Bonjour ' || c.name || E',\n\n' || w.paragraph || E'\n\n' || details || E'\n\n'
            || 'Pour toute question : ' || reachable || E'\n\n' || company;
    if c.by_email and c.email is not null then
      dedupe := case when event = 'reminder' then concat_ws(':', 'reminder', kind, b ->> 'id', d.first_day, 'email') end;
      perform outbox.enqueue('email', c.email, w.subject || ' ' || ref, body, 'booking.' || event, dedupe);
    end if;
    if c.by_sms and c.phone is not null and coalesce((notifications ->> 'smsNotifications')::boolean, false) then
      dedupe := case when event = 'reminder' then concat_ws(':', 'reminder', kind, b ->> 'id', d.first_day, 'sms') end;
      perform outbox.enqueue('sms', c.phone, null,
                             company || ' : ' || w.short || ' ' || ref || '. ' || d.what || '. ' || d.dates || '. '
                             || coalesce(general ->> 'companyPhone', ''),
                             'booking.' || event, dedupe);
    end if;
  end if;

  if event in ('received', 'cancelled_by_customer')
     and coalesce((notifications ->> 'emailNotifications')::boolean, true)
     and nullif(notifications ->> 'adminEmailAddress', '') is not null then
    perform outbox.enqueue(
      'email', notifications ->> 'adminEmailAddress',
      case event when 'received' then 'Nouvelle réservation ' else 'Réservation annulée par le client ' end || ref,
      case event when 'received' then 'Une nouvelle demande de réservation attend votre confirmation.'
                 else 'Le client a annulé sa réservation.' end || E'\n\n' || details || E'\n\n'
      || 'Client : ' || c.name || E'\n' || 'E-mail : ' || coalesce(c.email, '—') || E'\n'
      || 'Téléphone : ' || coalesce(c.phone, '—')
      || case when b ->> 'driver_license_number' is not null then E'\nPermis : ' || (b ->> 'driver_license_number') else '' end
      || case when nullif(trim(coalesce(b ->> 'special_requests', b ->> 'special_requirements', b ->> 'notes')), '') is not null
              then E'\nDemandes : ' || trim(coalesce(b ->> 'special_requests', b ->> 'special_requirements', b ->> 'notes')) else '' end,
      'booking.notice.' || event);
  end if;
end
$$;
revoke execute on function public.send_booking_messages(text, text, jsonb) from public, anon, authenticated, service_role;

-- the event a booking write is, if any.
create function public.notify_booking() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  event text;
  was record;
  now_is record;
begin
  if coalesce(current_setting('app.notify', true), '') = 'off' then
    return null;
  end if;
  if tg_op = 'INSERT' then
    event := case when new.booking_status = 'pending' then 'received'
                  when new.booking_status in ('confirmed', 'active') then 'confirmed' end;
  elsif new.booking_status is distinct from old.booking_status then
    event := case new.booking_status
               when 'confirmed' then 'confirmed'
               when 'cancelled' then
                 case when auth.uid() is not null and auth.uid() = new.user_id and not public.is_admin()
                      then 'cancelled_by_customer' else 'cancelled_by_company' end end;
  elsif new.booking_status in ('pending', 'confirmed') then
    select * into was from public.booking_description(tg_table_name, to_jsonb(old));
    select * into now_is from public.booking_description(tg_table_name, to_jsonb(new));
    if was.what is distinct from now_is.what or was.dates is distinct from now_is.dates
       or new.total_amount is distinct from old.total_amount then
      event := 'changed';
    end if;
  end if;
  if event is not null then
    perform public.send_booking_messages(tg_table_name, event, to_jsonb(new));
  end if;
  return null;
end
$$;

-- the reminders of tomorrow's confirmed bookings (tomorrow in the company's time zone); run by
-- the outbox worker every 15 minutes, each reminder kept once by its dedupe key.
create function public.enqueue_booking_reminders() returns int
language plpgsql volatile security definer set search_path = ''
as $$
declare
  tz text := coalesce((select s.value ->> 'timezone' from public.app_settings s where s.section = 'general'), 'Africa/Kinshasa');
  tomorrow date := (now() at time zone tz)::date + 1;
  r record;
  n int := 0;
begin
  for r in
    select 'bookings' as kind, to_jsonb(x) as b from public.bookings x where x.booking_status = 'confirmed' and x.start_date = tomorrow
    union all
    select 'airport_bookings', to_jsonb(x) from public.airport_bookings x where x.booking_status = 'confirmed' and x.flight_date = tomorrow
    union all
    select 'diagnostic_bookings', to_jsonb(x) from public.diagnostic_bookings x where x.booking_status = 'confirmed' and x.appointment_date = tomorrow
    union all
    select 'premium_service_bookings', to_jsonb(x) from public.premium_service_bookings x where x.booking_status = 'confirmed' and x.start_date = tomorrow
  loop
    perform public.send_booking_messages(r.kind, 'reminder', r.b);
    n := n + 1;
  end loop;
  return n;
end
$$;
revoke execute on function public.enqueue_booking_reminders() from public, anon, authenticated, service_role;

insert into outbox.schedules (name, function_name, every)
values ('booking_reminders', 'public.enqueue_booking_reminders', interval '15 minutes');

create trigger notify_booking after insert or update on public.bookings
for each row execute function public.notify_booking();
create trigger notify_booking after insert or update on public.airport_bookings
for each row execute function public.notify_booking();
create trigger notify_booking after insert or update on public.diagnostic_bookings
for each row execute function public.notify_booking();
create trigger notify_booking after insert or update on public.premium_service_bookings
for each row execute function public.notify_booking();
