-- the booking rules of customer-site.md and back-office.md held by the database for every path
-- (rpc/book_vehicle, a rest insert, an update, an upsert) of the four kinds of bookings: before
-- this, they lived in book_vehicle only, so a customer's direct insert could take a vehicle in
-- maintenance, in the past, for ten years, over a confirmed rental, with a forged created_at.
--
-- who the rules bind: every role row-level security binds (anon, authenticated, administrators
-- included). service_role, superusers and a session without `set role` (the owner: migrations,
-- `server seed`) are trusted, as they are by row-level security.
--
-- two triggers per table, before price_booking (triggers fire in name order):
--   booking_guard  who may write what: server-set fields, the status state machine;
--   booking_rules  the kind's values: vehicle available, dates, length, overlap, passengers...
-- error codes (postgrest status): 42501 who may (401/403), 428C9 a server-set field (400),
-- 22023 dates and durations (400, as book_vehicle), 23514 a value (400, the check constraints'
-- own code, with a french message instead of the constraint's name), 23505 a reused transfer
-- reference (409), PT404 vehicle unknown or unavailable (404), PT409 dates taken or a status
-- that moved on (409).
--
-- concurrency: every write that can take a vehicle's dates (an insert, new dates or vehicle, a
-- move into confirmed/active) first locks the vehicle's row, whatever the role. writers of one
-- vehicle's bookings therefore queue there and each checks the overlap after the previous one
-- committed: 30 simultaneous requests for the same dates give one booking and 29 clear 409s,
-- and confirmations no longer deadlock inside the exclusion constraint (the lock is taken
-- before it is checked, in one order).
--
-- simultaneous pending requests: a pending request holds its vehicle's dates for
-- booking_hold() (24 hours, the time the site promises the team's call) from its creation;
-- a new request on held or confirmed dates is refused with PT409. once the hold has expired
-- the request stays pending, the dates are free again for others, and an administrator can
-- still confirm it if nobody was confirmed on them first.

-- whether the booking rules bind the current request: the role set by the request (inside a
-- security definer function too, where current_user is the function's owner) is subject to
-- row-level security.
create function public.booking_rules_apply() returns boolean
language sql stable set search_path = ''
as $$
  select case when coalesce(current_setting('role', true), 'none') = 'none' then false
              else not exists (select 1 from pg_catalog.pg_roles r
                               where r.rolname = current_setting('role', true) and (r.rolsuper or r.rolbypassrls)) end
$$;

-- how long a pending request holds its vehicle's dates.
create function public.booking_hold() returns interval
language sql immutable
as $$ select interval '24 hours' $$;

-- the status state machine of the four kinds, as administrators move bookings along it (a
-- customer may only cancel their own pending booking). completed and cancelled are final.
create function public.booking_next_statuses(status text) returns text[]
language sql immutable
as $$
  select case status
           when 'pending' then array['confirmed', 'cancelled']
           when 'confirmed' then array['active', 'cancelled']
           when 'active' then array['completed']
           else array[]::text[] end
$$;

create function public.booking_status_label(status text) returns text
language sql immutable
as $$
  select case status when 'pending' then 'En attente' when 'confirmed' then 'Confirmée' when 'active' then 'En cours'
                     when 'completed' then 'Terminée' when 'cancelled' then 'Annulée' else coalesce(status, '?') end
$$;

-- the minimum and maximum rental length (whole days) of the back office's business settings.
create function public.rental_duration_limits(out minimum int, out maximum int)
language sql stable security definer set search_path = ''
as $$
  select coalesce(floor((s.value ->> 'minimumRentalDuration')::numeric)::int, 1),
         coalesce(floor((s.value ->> 'maximumRentalDuration')::numeric)::int, 30)
  from (select 1) one
  left join public.app_settings s on s.section = 'business'
$$;

-- lock the vehicles a booking write involves, in id order. a deadlock or lock timeout that
-- still happens (one statement writing bookings of several vehicles in another order) is a
-- 409 to retry rather than a 500.
create function public.lock_booking_vehicles(a uuid, b uuid default null) returns void
language plpgsql volatile security definer set search_path = ''
as $$
begin
  perform 1 from public.vehicles v where v.id in (a, b) order by v.id for no key update;
exception
  when deadlock_detected or lock_not_available then
    raise exception 'Ce véhicule est en cours de réservation par quelqu''un d''autre, veuillez réessayer'
      using errcode = 'PT409', detail = 'Another transaction was writing bookings of this vehicle.', hint = 'Retry the request.';
end
$$;

-- the triggers' helper, not an api: nobody locks vehicles through /rest/v1/rpc.
revoke execute on function public.lock_booking_vehicles(uuid, uuid) from public, anon, authenticated, service_role;

-- 1. who may write what, the same for the four kinds.
create function public.guard_booking() returns trigger
language plpgsql set search_path = ''
as $$
declare
  admin boolean;
  uid uuid := auth.uid();
begin
  if not public.booking_rules_apply() then
    return new;
  end if;
  admin := public.is_admin();
  -- updated_at is the server's, whatever was sent (the back office of the spec sends one).
  new.updated_at := now();

  if tg_op = 'INSERT' then
    -- a column default equals now() exactly; anything else was sent by the client.
    if new.created_at is distinct from now() then
      raise exception 'La date de création d''une réservation est fixée par le serveur'
        using errcode = '428C9', hint = 'Omit created_at and updated_at: the database sets them.';
    end if;
    if admin then
      if new.booking_status not in ('pending', 'confirmed', 'active') then
        raise exception 'Une réservation se crée en attente, confirmée ou en cours' using errcode = '22023';
      end if;
      return new;
    end if;
    if uid is null and tg_table_name <> 'bookings' then
      raise exception 'Vous devez être connecté pour réserver' using errcode = '42501';
    end if;
    -- the account is the caller's (none for a visitor's public rental): never another one.
    if new.user_id is distinct from uid then
      raise exception 'Une réservation se fait au nom du compte connecté' using errcode = '42501',
        hint = 'user_id must be the signed-in user''s id.';
    end if;
    if new.booking_status is distinct from 'pending' then
      raise exception 'Une nouvelle réservation est toujours en attente' using errcode = '42501';
    end if;
    return new;
  end if;

  -- the row's identity is fixed; the account goes (null) only with a deleted account.
  if new.id is distinct from old.id or new.created_at is distinct from old.created_at
     or (new.user_id is distinct from old.user_id and new.user_id is not null) then
    raise exception 'L''identifiant, le compte et la date de création d''une réservation sont fixés par le serveur'
      using errcode = '428C9';
  end if;

  if not admin then
    -- a customer (row-level security shows them their own rows only) cancels a pending
    -- booking, changing nothing else.
    if new.booking_status is distinct from 'cancelled'
       or (to_jsonb(new) - 'booking_status' - 'updated_at') <> (to_jsonb(old) - 'booking_status' - 'updated_at') then
      raise exception 'Seule l''annulation d''une réservation en attente est possible' using errcode = '42501';
    end if;
    if old.booking_status <> 'pending' then
      raise exception 'Cette réservation ne peut plus être annulée : elle est « % »', public.booking_status_label(old.booking_status)
        using errcode = 'PT409', detail = format('The booking is %s; only a pending booking can be cancelled by its customer.', old.booking_status),
              hint = 'Reload the booking: it may have changed in the meantime.';
    end if;
    return new;
  end if;

  if new.booking_status is distinct from old.booking_status
     and not new.booking_status = any (public.booking_next_statuses(old.booking_status)) then
    raise exception 'Cette réservation est « % » : elle ne peut pas passer à « % »',
      public.booking_status_label(old.booking_status), public.booking_status_label(new.booking_status)
      using errcode = 'PT409',
            detail = format('Allowed from %s: %s.', old.booking_status,
                            coalesce(nullif(array_to_string(public.booking_next_statuses(old.booking_status), ', '), ''), 'none')),
            hint = 'Reload the booking: it may have changed in the meantime.';
  end if;
  return new;
end
$$;

-- 2a. vehicle rentals. security definer: the availability, the other customers' bookings and
-- the settings are hidden from the caller by row-level security.
create function public.check_vehicle_booking() returns trigger
language plpgsql volatile security definer set search_path = ''
as $$
declare
  is_insert boolean := tg_op = 'INSERT';
  moved boolean := tg_op = 'INSERT' or new.vehicle_id is distinct from old.vehicle_id
                   or new.start_date is distinct from old.start_date or new.end_date is distinct from old.end_date;
  occupies boolean := new.booking_status in ('confirmed', 'active')
                      and (tg_op = 'INSERT' or old.booking_status not in ('confirmed', 'active'));
  v public.vehicles;
  limits record;
  days int;
  seats int;
  taken text;
begin
  -- lock order, for every role: the vehicle rows first (the old and the new one on a move).
  if moved or occupies then
    perform public.lock_booking_vehicles(new.vehicle_id, case when not is_insert then old.vehicle_id end);
  end if;
  if not public.booking_rules_apply() then
    return new;
  end if;

  if moved or new.passengers is distinct from old.passengers then
    select * into v from public.vehicles x where x.id = new.vehicle_id;
  end if;
  if moved then
    if v.id is null or v.rental_status in ('maintenance', 'retired') then
      raise exception 'Véhicule introuvable ou indisponible'
        using errcode = 'PT404', detail = 'The vehicle does not exist, is in maintenance or is retired.';
    end if;
    if (is_insert or new.start_date is distinct from old.start_date) and new.start_date < current_date then
      raise exception 'La date de début ne peut pas être dans le passé' using errcode = '22023';
    end if;
    if not is_insert and new.end_date is distinct from old.end_date and new.end_date < current_date then
      raise exception 'La date de fin ne peut pas être dans le passé' using errcode = '22023';
    end if;
    if new.end_date < new.start_date then
      raise exception 'La date de fin doit suivre la date de début' using errcode = '22023';
    end if;
    days := public.rental_days(new.start_date, new.end_date);
    limits := public.rental_duration_limits();
    if days > limits.maximum then
      raise exception 'La durée maximale de location est de % jours', limits.maximum
        using errcode = '22023', hint = 'maximumRentalDuration of the business settings';
    end if;
    if days < limits.minimum then
      raise exception 'La durée minimale de location est de % jour(s)', limits.minimum
        using errcode = '22023', hint = 'minimumRentalDuration of the business settings';
    end if;
    -- the dates must be free: no confirmed or active rental, no pending request still holding
    -- them (checked under the vehicle's lock, so it sees every earlier request).
    if new.booking_status in ('pending', 'confirmed', 'active') then
      select b.booking_status into taken from public.bookings b
      where b.vehicle_id = new.vehicle_id and b.id <> new.id
        and (b.booking_status in ('confirmed', 'active')
             or (b.booking_status = 'pending' and b.created_at > now() - public.booking_hold()))
        and daterange(b.start_date, greatest(b.end_date, b.start_date + 1), '[)')
            && daterange(new.start_date, greatest(new.end_date, new.start_date + 1), '[)')
      order by b.booking_status = 'pending'
      limit 1;
      if taken is not null then
        raise exception 'Ce véhicule est déjà réservé sur ces dates'
          using errcode = 'PT409',
                detail = case when taken = 'pending'
                              then 'Another request made less than ' || public.booking_hold()::text || ' ago holds these dates.'
                              else 'A confirmed or active booking of this vehicle overlaps these dates.' end;
      end if;
    end if;
  end if;

  if new.passengers is not null and (moved or new.passengers is distinct from old.passengers) then
    seats := least(50, coalesce((v.specifications ->> 'seats')::int, 5));
    if new.passengers not between 1 and seats then
      raise exception 'Ce véhicule accepte de 1 à % personne(s)', seats using errcode = '23514';
    end if;
  end if;

  -- the table's checks, with their meaning instead of their name.
  if new.user_id is null and (nullif(trim(new.customer_name), '') is null or nullif(trim(new.customer_email), '') is null
                              or nullif(trim(new.customer_phone), '') is null or nullif(trim(new.driver_license_number), '') is null) then
    raise exception 'Veuillez remplir tous les champs obligatoires'
      using errcode = '23514', hint = 'Without an account: customer_name, customer_email, customer_phone and driver_license_number.';
  end if;
  if new.customer_email is distinct from old.customer_email and new.customer_email !~* '^[^@\s]+@[^@\s]+\.[^@\s]+$' then
    raise exception 'Format d''email invalide' using errcode = '23514';
  end if;
  if new.payment_method is not null and new.payment_method not in ('card', 'mobile', 'bank', 'digital_wallet') then
    raise exception 'Moyen de paiement invalide' using errcode = '23514';
  end if;
  if new.payment_method = 'mobile' then
    if new.mobile_money_provider is null or new.mobile_money_provider not in ('mpesa', 'orange', 'airtel')
       or length(trim(coalesce(new.mobile_money_phone, ''))) < 6 then
      raise exception 'Le paiement mobile demande un opérateur (M-Pesa, Orange, Airtel) et un numéro' using errcode = '23514';
    end if;
  elsif new.mobile_money_provider is not null or new.mobile_money_phone is not null then
    raise exception 'Opérateur et numéro de paiement mobile vont avec un paiement mobile seulement' using errcode = '23514';
  end if;
  if (new.payment_reference is not null) <> coalesce(new.payment_method = 'bank', false) then
    raise exception 'Un virement bancaire a toujours sa référence, et seul un virement en a une' using errcode = '23514';
  end if;
  if new.payment_reference is distinct from old.payment_reference and new.payment_reference is not null then
    if new.payment_reference !~ '^VIR-[A-HJ-NP-Z2-9]{8}$' then
      raise exception 'Référence de virement invalide' using errcode = '23514';
    end if;
    if exists (select 1 from public.bookings b where b.payment_reference = new.payment_reference and b.id <> new.id) then
      raise exception 'Cette référence de virement est déjà utilisée' using errcode = '23505';
    end if;
  end if;
  return new;
end
$$;

-- 2b. airport services: the date not in the past (when set), the form's values.
create function public.check_airport_booking() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  if not public.booking_rules_apply() then
    return new;
  end if;
  if (tg_op = 'INSERT' or new.flight_date is distinct from old.flight_date) and new.flight_date < current_date then
    raise exception 'La date ne peut pas être dans le passé' using errcode = '22023';
  end if;
  if not exists (select 1 from public.airport_services s where s.code = new.service_type) then
    raise exception 'Service inconnu' using errcode = '23514';
  end if;
  if upper(trim(coalesce(new.flight_number, ''))) !~ '^[A-Z0-9]{2,8}$' then
    raise exception 'Format de numéro de vol invalide' using errcode = '23514';
  end if;
  if new.flight_type is null or new.flight_type not in ('arrival', 'departure') then
    raise exception 'Type de vol invalide : arrivée ou départ' using errcode = '23514';
  end if;
  if new.passengers is null or new.passengers not between 1 and 50 then
    raise exception 'Entre 1 et 50 passagers' using errcode = '23514';
  end if;
  if new.user_id is null and new.customer_email is null then
    raise exception 'Une réservation sans compte garde l''email du client' using errcode = '23514';
  end if;
  return new;
end
$$;

-- 2c. diagnostics.
create function public.check_diagnostic_booking() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  if not public.booking_rules_apply() then
    return new;
  end if;
  if (tg_op = 'INSERT' or new.appointment_date is distinct from old.appointment_date) and new.appointment_date < current_date then
    raise exception 'La date ne peut pas être dans le passé' using errcode = '22023';
  end if;
  if not exists (select 1 from public.diagnostic_services s where s.code = new.service_type) then
    raise exception 'Service inconnu' using errcode = '23514';
  end if;
  if new.appointment_time is null or new.appointment_time not in ('09:00', '10:00', '11:00', '14:00', '15:00', '16:00') then
    raise exception 'Créneau invalide : 09:00, 10:00, 11:00, 14:00, 15:00 ou 16:00' using errcode = '23514';
  end if;
  if length(trim(coalesce(new.vehicle_type, ''))) < 2 then
    raise exception 'Le type de véhicule est requis' using errcode = '23514';
  end if;
  if coalesce(new.customer_email, '') !~* '^[^@\s]+@[^@\s]+\.[^@\s]+$' then
    raise exception 'Format d''email invalide' using errcode = '23514';
  end if;
  if length(trim(coalesce(new.customer_phone, ''))) < 6 then
    raise exception 'Numéro de téléphone invalide' using errcode = '23514';
  end if;
  return new;
end
$$;

-- 2d. premium services.
create function public.check_premium_booking() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  if not public.booking_rules_apply() then
    return new;
  end if;
  if (tg_op = 'INSERT' or new.start_date is distinct from old.start_date) and new.start_date < current_date then
    raise exception 'La date de début ne peut pas être dans le passé' using errcode = '22023';
  end if;
  if not exists (select 1 from public.premium_services s where s.code = new.service_type) then
    raise exception 'Service inconnu' using errcode = '23514';
  end if;
  if new.duration_days is null or new.duration_days not in (1, 2, 3, 7, 14, 30) then
    raise exception 'Durée proposée : 1, 2, 3, 7, 14 ou 30 jours' using errcode = '23514';
  end if;
  if length(trim(coalesce(new.customer_name, ''))) < 2 then
    raise exception 'Le nom est requis' using errcode = '23514';
  end if;
  if coalesce(new.customer_email, '') !~* '^[^@\s]+@[^@\s]+\.[^@\s]+$' then
    raise exception 'Format d''email invalide' using errcode = '23514';
  end if;
  if length(trim(coalesce(new.customer_phone, ''))) < 6 then
    raise exception 'Numéro de téléphone invalide' using errcode = '23514';
  end if;
  return new;
end
$$;

-- the guard of V33 trusted any function running as its owner, so book_vehicle skipped it;
-- guard_booking decides by the request's role instead.
drop trigger guard_customer_booking on public.bookings;
drop trigger guard_customer_booking on public.airport_bookings;
drop trigger guard_customer_booking on public.diagnostic_bookings;
drop trigger guard_customer_booking on public.premium_service_bookings;
drop function public.guard_customer_booking();

create trigger booking_guard before insert or update on public.bookings
for each row execute function public.guard_booking();
create trigger booking_guard before insert or update on public.airport_bookings
for each row execute function public.guard_booking();
create trigger booking_guard before insert or update on public.diagnostic_bookings
for each row execute function public.guard_booking();
create trigger booking_guard before insert or update on public.premium_service_bookings
for each row execute function public.guard_booking();

create trigger booking_rules before insert or update on public.bookings
for each row execute function public.check_vehicle_booking();
create trigger booking_rules before insert or update on public.airport_bookings
for each row execute function public.check_airport_booking();
create trigger booking_rules before insert or update on public.diagnostic_bookings
for each row execute function public.check_diagnostic_booking();
create trigger booking_rules before insert or update on public.premium_service_bookings
for each row execute function public.check_premium_booking();

-- a customer's update reaches their own bookings whatever the status, so a cancellation that
-- lost a race against a confirmation gets guard_booking's clear 409 instead of silently
-- matching nothing; the trigger still allows a customer nothing but cancelling a pending one.
alter policy booking_cancel_own on public.bookings using (user_id = auth.uid() or public.is_admin());
alter policy booking_cancel_own on public.airport_bookings using (user_id = auth.uid() or public.is_admin());
alter policy booking_cancel_own on public.diagnostic_bookings using (user_id = auth.uid() or public.is_admin());
alter policy booking_cancel_own on public.premium_service_bookings using (user_id = auth.uid() or public.is_admin());

-- the search offers what can be booked: a vehicle held by a recent pending request is not
-- offered on those dates either (V46's signature and owner rights kept).
create or replace function public.search_available_vehicles(
  start_date date,
  end_date date,
  category text default null,
  max_daily_rate numeric default null,
  min_seats int default null,
  transmission text default null,
  fuel_type text default null
)
returns table (
  id uuid, name text, make text, model text, year int, category text, color text, daily_rate numeric,
  rental_status text, description text, features text[], location text, specifications jsonb, pricing jsonb,
  images jsonb, primary_image text, days int, base_total numeric, discount_percent numeric, total numeric
)
language sql stable security definer set search_path = ''
as $$
  select v.id, v.name, v.make, v.model, v.year, v.category, v.color, public.vehicle_daily_rate(v), v.rental_status,
         v.description, v.features, coalesce(v.location, v.current_location), v.specifications, v.pricing, v.images,
         v.primary_image, q.days, q.base_total, q.discount_percent, q.total
  from public.vehicles v
  cross join lateral public.quote_vehicle_rental(v.id, search_available_vehicles.start_date, search_available_vehicles.end_date) q
  where v.rental_status = 'available'
    and search_available_vehicles.end_date >= search_available_vehicles.start_date
    and (search_available_vehicles.category is null or search_available_vehicles.category = '' or v.category = search_available_vehicles.category)
    and (search_available_vehicles.max_daily_rate is null or public.vehicle_daily_rate(v) <= search_available_vehicles.max_daily_rate)
    and (search_available_vehicles.min_seats is null or coalesce((v.specifications ->> 'seats')::int, 5) >= search_available_vehicles.min_seats)
    and (search_available_vehicles.transmission is null or search_available_vehicles.transmission = '' or v.specifications ->> 'transmission' = search_available_vehicles.transmission)
    and (search_available_vehicles.fuel_type is null or search_available_vehicles.fuel_type = '' or v.specifications ->> 'fuel_type' = search_available_vehicles.fuel_type)
    and not exists (
      select 1 from public.bookings b
      where b.vehicle_id = v.id
        and (b.booking_status in ('confirmed', 'active')
             or (b.booking_status = 'pending' and b.created_at > now() - public.booking_hold()))
        and daterange(b.start_date, greatest(b.end_date, b.start_date + 1), '[)')
            && daterange(search_available_vehicles.start_date, greatest(search_available_vehicles.end_date, search_available_vehicles.start_date + 1), '[)')
    )
  order by public.vehicle_daily_rate(v), v.name
$$;
