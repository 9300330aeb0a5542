-- squashes: 20250101003000 20250101003100 20250101003200 20250101003300 20250101003400
-- squashes: 20250101003500 20250101003600 20250101003700 20250101003800 20250101004000
-- squashes: 20250101004100 20250101004200 20250101004300 20250101004400 20250101004500
-- squashes: 20250101004600 20250101004700 20250101004800 20250101005000 20250101005100
-- squashes: 20250101005300 20250101005600 20250101010300 20250101010400 20250101010500
-- squashes: 20250101010600 20250101010700 20250101010800 20250101010900 20261202000000
--
-- the four kinds of bookings (vehicle rentals, airport services, diagnostics, premium services)
-- and their rules. the database sets every price (a total sent by a browser is ignored), keeps
-- updated_at, and refuses two confirmed or active rentals of one vehicle on overlapping dates.
--
-- a booking outlives the account that made it: the account's deletion empties user_id and the
-- booking keeps the customer's contact (admin_delete_users). each booking also references the
-- customer's profile by its user_id, the relationship /rest/v1 embeds
-- (`bookings?select=*,profiles(full_name,email,phone,role)`); deleting a profile alone while its
-- user has bookings is refused (23503): delete the account instead.
create extension if not exists btree_gist with schema extensions;

create table public.bookings (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete set null,
  vehicle_id uuid not null references public.vehicles (id),
  start_date date not null,
  end_date date not null,
  pickup_location text,
  dropoff_location text,
  special_requests text,
  -- contact of a public (signed-out) booking; the original collected these and discarded them.
  customer_name text,
  customer_email text,
  customer_phone text,
  driver_license_number text,
  total_amount numeric(10, 2) not null default 0,
  booking_status text not null default 'pending' check (booking_status in ('pending', 'confirmed', 'active', 'completed', 'cancelled')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- what the reservation dialog (customer-site.md sections 3, 5 and 7) records: how the customer
  -- means to pay, the pick-up time and the number of people. no payment is taken online: these
  -- columns tell the team how to settle it. card numbers, cvv and expiry never reach the database.
  payment_method text check (payment_method in ('card', 'mobile', 'bank', 'digital_wallet')),
  mobile_money_provider text check (mobile_money_provider in ('mpesa', 'orange', 'airtel')),
  mobile_money_phone text,
  -- the reference the customer quotes on a bank transfer (no 0/O/1/I to misread).
  payment_reference text check (payment_reference ~ '^VIR-[A-HJ-NP-Z2-9]{8}$'),
  pickup_time time,
  passengers int check (passengers between 1 and 50),
  constraint bookings_profile_fkey foreign key (user_id) references public.profiles (user_id),
  constraint bookings_dates check (end_date >= start_date),
  constraint bookings_contact check (
    user_id is not null
    or (nullif(trim(customer_name), '') is not null and nullif(trim(customer_email), '') is not null
        and nullif(trim(customer_phone), '') is not null and nullif(trim(driver_license_number), '') is not null)
  ),
  -- a rental occupies [start, end) (a same-day rental occupies its day): the return day can be
  -- the next pick-up day.
  constraint bookings_no_overlap exclude using gist (
    vehicle_id with =,
    daterange(start_date, greatest(end_date, start_date + 1), '[)') with &&
  ) where (booking_status in ('confirmed', 'active')),
  -- provider and phone belong to mobile money only, and mobile money needs both.
  constraint bookings_mobile_money check (
    case when payment_method = 'mobile'
         then mobile_money_provider is not null and length(trim(coalesce(mobile_money_phone, ''))) >= 6
         else mobile_money_provider is null and mobile_money_phone is null end
  ),
  -- a bank transfer has a reference, and only a bank transfer.
  constraint bookings_bank_reference check ((payment_reference is not null) = coalesce(payment_method = 'bank', false))
);
alter table public.bookings enable row level security;
create index bookings_user_idx on public.bookings (user_id);
create index bookings_vehicle_idx on public.bookings (vehicle_id);
create unique index bookings_payment_reference_key on public.bookings (payment_reference) where payment_reference is not null;

create table public.airport_bookings (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete set null,
  service_type text not null references public.airport_services (code),
  flight_date date not null,
  flight_time time not null,
  flight_number text not null check (flight_number ~ '^[A-Z0-9]{2,8}$'),
  flight_type text not null default 'arrival' check (flight_type in ('arrival', 'departure')),
  passengers int not null default 1 check (passengers between 1 and 50),
  special_requests text,
  total_amount numeric(10, 2) not null default 0,
  booking_status text not null default 'pending' check (booking_status in ('pending', 'confirmed', 'active', 'completed', 'cancelled')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- the customer's contact, kept when the account is deleted.
  customer_name text,
  customer_email text,
  customer_phone text,
  constraint airport_bookings_profile_fkey foreign key (user_id) references public.profiles (user_id),
  constraint airport_bookings_contact check (user_id is not null or customer_email is not null)
);
alter table public.airport_bookings enable row level security;
create index airport_bookings_user_idx on public.airport_bookings (user_id);

create table public.diagnostic_bookings (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete set null,
  service_type text not null references public.diagnostic_services (code),
  service_name text,
  service_price numeric(10, 2),
  appointment_date date not null,
  appointment_time time not null check (appointment_time in ('09:00', '10:00', '11:00', '14:00', '15:00', '16:00')),
  vehicle_type text not null check (length(trim(vehicle_type)) >= 2),
  customer_email text not null check (customer_email ~* '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
  customer_phone text not null check (length(trim(customer_phone)) >= 6),
  notes text,
  total_amount numeric(10, 2) not null default 0,
  booking_status text not null default 'pending' check (booking_status in ('pending', 'confirmed', 'active', 'completed', 'cancelled')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  customer_name text,
  constraint diagnostic_bookings_profile_fkey foreign key (user_id) references public.profiles (user_id)
);
alter table public.diagnostic_bookings enable row level security;
create index diagnostic_bookings_user_idx on public.diagnostic_bookings (user_id);

create table public.premium_service_bookings (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete set null,
  service_type text not null references public.premium_services (code),
  service_name text,
  service_price_per_day numeric(10, 2),
  start_date date not null,
  duration_days int not null check (duration_days in (1, 2, 3, 7, 14, 30)),
  customer_name text not null check (length(trim(customer_name)) >= 2),
  customer_email text not null check (customer_email ~* '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
  customer_phone text not null check (length(trim(customer_phone)) >= 6),
  special_requirements text,
  total_amount numeric(10, 2) not null default 0,
  booking_status text not null default 'pending' check (booking_status in ('pending', 'confirmed', 'active', 'completed', 'cancelled')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint premium_service_bookings_profile_fkey foreign key (user_id) references public.profiles (user_id)
);
alter table public.premium_service_bookings enable row level security;
create index premium_service_bookings_user_idx on public.premium_service_bookings (user_id);

-- prices and lengths.

-- days of a rental: the rounded-up difference of the dates, a same-day rental counting as one.
create function public.rental_days(start_date date, end_date date) returns int
language sql immutable
as $$ select greatest(1, abs(end_date - start_date)) $$;

-- the price of renting a vehicle: daily rate x days, with the monthly discount from 30 days or
-- the weekly one from 7 days (not cumulative).
create function public.quote_vehicle_rental(vehicle_id uuid, start_date date, end_date date)
returns table (days int, daily_rate numeric, base_total numeric, discount_percent numeric, total numeric)
language sql stable security definer set search_path = ''
as $$
  with v as (
    select public.vehicle_daily_rate(x) as rate,
           coalesce(nullif(x.pricing ->> 'weekly_discount', '')::numeric, 10) as weekly,
           coalesce(nullif(x.pricing ->> 'monthly_discount', '')::numeric, 20) as monthly
    from public.vehicles x
    where x.id = quote_vehicle_rental.vehicle_id and x.rental_status <> 'retired'
  ), d as (
    select public.rental_days(quote_vehicle_rental.start_date, quote_vehicle_rental.end_date) as n
  )
  select d.n, v.rate, round(v.rate * d.n, 2),
         case when d.n >= 30 then v.monthly when d.n >= 7 then v.weekly else 0 end,
         round(v.rate * d.n * (1 - (case when d.n >= 30 then v.monthly when d.n >= 7 then v.weekly else 0 end) / 100), 2)
  from v, d
$$;

-- the booking rules of customer-site.md and back-office.md, held by the database for every path
-- (rpc/book_vehicle, a rest insert, an update, an upsert) of the four kinds of bookings, so that
-- no direct insert takes a vehicle in maintenance, in the past, for ten years, over a confirmed
-- rental, or with a forged created_at.
--
-- who the rules bind: every role row-level security binds (anon, authenticated, administrators
-- included). service_role, superusers and a session without `set role` (the owner: migrations,
-- `server seed`) are trusted, as they are by row-level security.
--
-- two triggers per table, before booking_settings and price_booking (triggers fire in name order):
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
-- and confirmations do not deadlock inside the exclusion constraint (the lock is taken before
-- it is checked, in one order).
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
    -- a customer may move the dates of their own pending rental, changing nothing else: the
    -- rules that follow (booking_rules, booking_settings) check the new dates, price_booking
    -- prices them again.
    if tg_table_name = 'bookings' and old.booking_status = 'pending' and new.booking_status = 'pending' then
      if (to_jsonb(new) -> 'start_date', to_jsonb(new) -> 'end_date') is distinct from (to_jsonb(old) -> 'start_date', to_jsonb(old) -> 'end_date')
         and (to_jsonb(new) - 'start_date' - 'end_date' - 'total_amount' - 'updated_at')
             = (to_jsonb(old) - 'start_date' - 'end_date' - 'total_amount' - 'updated_at') then
        return new;
      end if;
    end if;
    -- otherwise a customer (row-level security shows them their own rows only) cancels a
    -- pending booking, changing nothing else.
    if new.booking_status is distinct from 'cancelled'
       or (to_jsonb(new) - 'booking_status' - 'updated_at') <> (to_jsonb(old) - 'booking_status' - 'updated_at') then
      raise exception 'Seules l''annulation d''une réservation en attente et le changement des dates d''une location en attente sont possibles' using errcode = '42501';
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

-- 3. maintenance mode and how far ahead one may book, for the four kinds.
create function public.check_booking_settings() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  first_day date;
  old_first_day date;
  ahead int;
begin
  if not public.booking_rules_apply() or public.is_admin() then
    return new;
  end if;
  if tg_op = 'INSERT' and coalesce((public.setting('system', 'maintenanceMode'))::boolean, false) then
    raise exception 'Le site est en maintenance : les réservations reprennent bientôt. Contactez-nous au %',
      coalesce(public.setting('general', 'companyPhone') #>> '{}', '+243 81 000 0000')
      using errcode = 'PT503', hint = 'maintenanceMode of the system settings';
  end if;
  first_day := public.booking_first_day(tg_table_name, to_jsonb(new));
  if tg_op = 'UPDATE' then
    old_first_day := public.booking_first_day(tg_table_name, to_jsonb(old));
  end if;
  ahead := coalesce((public.setting('business', 'advanceBookingDays'))::int, 90);
  if first_day is distinct from old_first_day and first_day > current_date + ahead then
    raise exception 'Les réservations sont ouvertes jusqu''à % jours à l''avance', ahead
      using errcode = '22023', hint = 'advanceBookingDays of the business settings';
  end if;
  return new;
end
$$;

create function public.refuse_anonymous_booking() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if not public.is_permanent_user() then
    raise exception 'Un compte invité ne peut pas réserver : créez un compte ou connectez-vous.'
      using errcode = '42501';
  end if;
  return new;
end
$$;

-- prices are the database's: set on insert, and again when an administrator changes what they
-- depend on.
create function public.price_vehicle_booking() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  quoted numeric;
begin
  if tg_op = 'INSERT' or new.vehicle_id is distinct from old.vehicle_id
     or new.start_date is distinct from old.start_date or new.end_date is distinct from old.end_date then
    select q.total into quoted from public.quote_vehicle_rental(new.vehicle_id, new.start_date, new.end_date) q;
    if quoted is null then
      raise exception 'Véhicule introuvable ou indisponible' using errcode = 'PT404';
    end if;
    new.total_amount := quoted;
  elsif tg_op = 'UPDATE' then
    new.total_amount := old.total_amount;
  end if;
  -- a clear 409 before the exclusion constraint would refuse it.
  if new.booking_status in ('confirmed', 'active') and exists (
    select 1 from public.bookings b
    where b.vehicle_id = new.vehicle_id and b.id <> new.id and b.booking_status in ('confirmed', 'active')
      and daterange(b.start_date, greatest(b.end_date, b.start_date + 1), '[)')
          && daterange(new.start_date, greatest(new.end_date, new.start_date + 1), '[)')
  ) then
    raise exception 'Ce véhicule est déjà réservé sur ces dates'
      using errcode = 'PT409', detail = 'Another confirmed or active booking of this vehicle overlaps these dates.';
  end if;
  return new;
end
$$;

create function public.price_airport_booking() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  new.flight_number := upper(trim(new.flight_number));
  if tg_op = 'INSERT' or new.service_type is distinct from old.service_type or new.passengers is distinct from old.passengers then
    select s.price * new.passengers into new.total_amount from public.airport_services s where s.code = new.service_type;
  else
    new.total_amount := old.total_amount;
  end if;
  return new;
end
$$;

create function public.price_diagnostic_booking() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  if tg_op = 'INSERT' or new.service_type is distinct from old.service_type then
    select s.name, s.price, s.price into new.service_name, new.service_price, new.total_amount
    from public.diagnostic_services s where s.code = new.service_type;
  else
    new.service_name := old.service_name;
    new.service_price := old.service_price;
    new.total_amount := old.total_amount;
  end if;
  return new;
end
$$;

create function public.price_premium_booking() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  if tg_op = 'INSERT' or new.service_type is distinct from old.service_type or new.duration_days is distinct from old.duration_days then
    select s.name, s.price_per_day, s.price_per_day * new.duration_days
      into new.service_name, new.service_price_per_day, new.total_amount
    from public.premium_services s where s.code = new.service_type;
  else
    new.service_name := old.service_name;
    new.service_price_per_day := old.service_price_per_day;
    new.total_amount := old.total_amount;
  end if;
  return new;
end
$$;

-- the triggers of the four tables. before a write they fire in name order: booking_guard (who may
-- write what), booking_rules (the kind's values), booking_settings (the back office's settings),
-- price_booking (the database's price), refuse_anonymous_booking, touch_updated_at.

create trigger booking_guard before insert or update on public.bookings
for each row execute function public.guard_booking();
create trigger booking_rules before insert or update on public.bookings
for each row execute function public.check_vehicle_booking();
create trigger booking_settings before insert or update on public.bookings
for each row execute function public.check_booking_settings();
create trigger price_booking before insert or update on public.bookings
for each row execute function public.price_vehicle_booking();
create trigger touch_updated_at before update on public.bookings for each row execute function public.touch_updated_at();
create trigger refuse_anonymous_booking before insert or update on public.bookings
  for each row execute function public.refuse_anonymous_booking();

create trigger booking_guard before insert or update on public.airport_bookings
for each row execute function public.guard_booking();
create trigger booking_rules before insert or update on public.airport_bookings
for each row execute function public.check_airport_booking();
create trigger booking_settings before insert or update on public.airport_bookings
for each row execute function public.check_booking_settings();
create trigger price_booking before insert or update on public.airport_bookings
for each row execute function public.price_airport_booking();
create trigger touch_updated_at before update on public.airport_bookings for each row execute function public.touch_updated_at();
create trigger refuse_anonymous_booking before insert or update on public.airport_bookings
  for each row execute function public.refuse_anonymous_booking();

create trigger booking_guard before insert or update on public.diagnostic_bookings
for each row execute function public.guard_booking();
create trigger booking_rules before insert or update on public.diagnostic_bookings
for each row execute function public.check_diagnostic_booking();
create trigger booking_settings before insert or update on public.diagnostic_bookings
for each row execute function public.check_booking_settings();
create trigger price_booking before insert or update on public.diagnostic_bookings
for each row execute function public.price_diagnostic_booking();
create trigger touch_updated_at before update on public.diagnostic_bookings for each row execute function public.touch_updated_at();
create trigger refuse_anonymous_booking before insert or update on public.diagnostic_bookings
  for each row execute function public.refuse_anonymous_booking();

create trigger booking_guard before insert or update on public.premium_service_bookings
for each row execute function public.guard_booking();
create trigger booking_rules before insert or update on public.premium_service_bookings
for each row execute function public.check_premium_booking();
create trigger booking_settings before insert or update on public.premium_service_bookings
for each row execute function public.check_booking_settings();
create trigger price_booking before insert or update on public.premium_service_bookings
for each row execute function public.price_premium_booking();
create trigger touch_updated_at before update on public.premium_service_bookings for each row execute function public.touch_updated_at();
create trigger refuse_anonymous_booking before insert or update on public.premium_service_bookings
  for each row execute function public.refuse_anonymous_booking();

-- vehicles: the public sees the available fleet; a customer also sees the vehicles of their own
-- bookings; administrators see and change everything.
create policy vehicle_read_available on public.vehicles for select to anon, authenticated using (rental_status = 'available');
create policy vehicle_read_booked on public.vehicles for select to authenticated
  using (exists (select 1 from public.bookings b where b.vehicle_id = vehicles.id and b.user_id = (select auth.uid())));
create policy vehicle_admin on public.vehicles for all to authenticated using ((select public.is_admin())) with check ((select public.is_admin()));

-- policies call is_admin(), auth.uid() and auth.jwt() through a scalar subquery, `(select
-- auth.uid())`, as Supabase advises: postgres then runs each once per statement (an initplan)
-- instead of once per row.
--
-- vehicle bookings: a signed-in user reads and creates their own (pending); a visitor may create
-- an anonymous one with contact details but reads none. a customer's update reaches their own
-- bookings whatever the status, so a cancellation that lost a race against a confirmation gets
-- guard_booking's clear 409 instead of silently matching nothing; guard_booking allows a customer
-- nothing but cancelling a pending booking or moving the dates of a pending rental (which then
-- stays pending). administrators do all.
create policy booking_read_own on public.bookings for select to authenticated using (user_id = (select auth.uid()) or (select public.is_admin()));
create policy booking_insert_own on public.bookings for insert to authenticated
  with check ((user_id = (select auth.uid()) and booking_status = 'pending') or (select public.is_admin()));
create policy booking_insert_public on public.bookings for insert to anon with check (user_id is null and booking_status = 'pending');
create policy booking_update_own on public.bookings for update to authenticated
  using (user_id = (select auth.uid()) or (select public.is_admin()))
  with check ((user_id = (select auth.uid()) and booking_status in ('pending', 'cancelled')) or (select public.is_admin()));
create policy booking_delete_admin on public.bookings for delete to authenticated using ((select public.is_admin()));

-- the three service bookings: signed-in users only; a customer may cancel a pending one.
create policy booking_read_own on public.airport_bookings for select to authenticated using (user_id = (select auth.uid()) or (select public.is_admin()));
create policy booking_insert_own on public.airport_bookings for insert to authenticated with check ((user_id = (select auth.uid()) and booking_status = 'pending') or (select public.is_admin()));
create policy booking_cancel_own on public.airport_bookings for update to authenticated
  using (user_id = (select auth.uid()) or (select public.is_admin()))
  with check ((user_id = (select auth.uid()) and booking_status = 'cancelled') or (select public.is_admin()));
create policy booking_delete_admin on public.airport_bookings for delete to authenticated using ((select public.is_admin()));

create policy booking_read_own on public.diagnostic_bookings for select to authenticated using (user_id = (select auth.uid()) or (select public.is_admin()));
create policy booking_insert_own on public.diagnostic_bookings for insert to authenticated with check ((user_id = (select auth.uid()) and booking_status = 'pending') or (select public.is_admin()));
create policy booking_cancel_own on public.diagnostic_bookings for update to authenticated
  using (user_id = (select auth.uid()) or (select public.is_admin()))
  with check ((user_id = (select auth.uid()) and booking_status = 'cancelled') or (select public.is_admin()));
create policy booking_delete_admin on public.diagnostic_bookings for delete to authenticated using ((select public.is_admin()));

create policy booking_read_own on public.premium_service_bookings for select to authenticated using (user_id = (select auth.uid()) or (select public.is_admin()));
create policy booking_insert_own on public.premium_service_bookings for insert to authenticated with check ((user_id = (select auth.uid()) and booking_status = 'pending') or (select public.is_admin()));
create policy booking_cancel_own on public.premium_service_bookings for update to authenticated
  using (user_id = (select auth.uid()) or (select public.is_admin()))
  with check ((user_id = (select auth.uid()) and booking_status = 'cancelled') or (select public.is_admin()));
create policy booking_delete_admin on public.premium_service_bookings for delete to authenticated using ((select public.is_admin()));

-- what the pages call.
--
-- vehicles free on [start_date, end_date), with the quote each would cost, filtered as the
-- advanced search does: no confirmed or active booking overlaps, and no recent pending request
-- holds the dates. runs as the owner: the policies on bookings would hide other customers'
-- rentals from the check. it returns available vehicles only, and no private column.
create function public.search_available_vehicles(
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

-- the public three-step booking: a pending booking for the signed-in user, or an anonymous one
-- that keeps the visitor's contact details, with how the customer means to pay, the pick-up
-- time and the number of people (all optional after the first ten, which older callers name).
-- the price is the database's, and a bank transfer without the reference the dialog showed gets
-- one generated here. security definer only so a visitor can learn the reference and total of
-- what they just booked; it inserts exactly what the policies allow (pending, own user id or
-- none). one function, not overloads: postgrest resolves an rpc by its argument names, and two
-- candidates would make the shorter calls ambiguous.
create function public.book_vehicle(
  vehicle_id uuid,
  start_date date,
  end_date date,
  pickup_location text default null,
  dropoff_location text default null,
  customer_name text default null,
  customer_email text default null,
  customer_phone text default null,
  driver_license_number text default null,
  special_requests text default null,
  payment_method text default null,
  mobile_money_provider text default null,
  mobile_money_phone text default null,
  payment_reference text default null,
  pickup_time time default null,
  passengers int default null
)
returns table (id uuid, total_amount numeric, days int, discount_percent numeric, booking_status text)
language plpgsql volatile security definer set search_path = ''
as $$
declare
  booking public.bookings;
  q record;
  reference text := upper(nullif(trim(book_vehicle.payment_reference), ''));
begin
  if book_vehicle.start_date < current_date then
    raise exception 'La date de début ne peut pas être dans le passé' using errcode = '22023';
  end if;
  if book_vehicle.end_date < book_vehicle.start_date then
    raise exception 'La date de fin doit suivre la date de début' using errcode = '22023';
  end if;
  if nullif(trim(book_vehicle.customer_name), '') is null or nullif(trim(book_vehicle.customer_email), '') is null
     or nullif(trim(book_vehicle.customer_phone), '') is null or nullif(trim(book_vehicle.driver_license_number), '') is null then
    raise exception 'Veuillez remplir tous les champs obligatoires' using errcode = '22023';
  end if;
  if book_vehicle.customer_email !~* '^[^@\s]+@[^@\s]+\.[^@\s]+$' then
    raise exception 'Format d''email invalide' using errcode = '22023';
  end if;
  if book_vehicle.payment_method is not null and book_vehicle.payment_method not in ('card', 'mobile', 'bank', 'digital_wallet') then
    raise exception 'Moyen de paiement invalide' using errcode = '22023';
  end if;
  if not exists (select 1 from public.vehicles v where v.id = book_vehicle.vehicle_id and v.rental_status = 'available') then
    raise exception 'Véhicule introuvable ou indisponible' using errcode = 'PT404';
  end if;
  -- the same overlap rule as the search and the exclusion constraint: [start, end).
  if exists (
    select 1 from public.bookings b
    where b.vehicle_id = book_vehicle.vehicle_id and b.booking_status in ('confirmed', 'active')
      and daterange(b.start_date, greatest(b.end_date, b.start_date + 1), '[)')
          && daterange(book_vehicle.start_date, greatest(book_vehicle.end_date, book_vehicle.start_date + 1), '[)')
  ) then
    raise exception 'Ce véhicule est déjà réservé sur ces dates'
      using errcode = 'PT409', detail = 'A confirmed or active booking of this vehicle overlaps these dates.';
  end if;
  if book_vehicle.payment_method = 'bank' and reference is null then
    select 'VIR-' || string_agg(substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 1 + floor(random() * 32)::int, 1), '')
      into reference from generate_series(1, 8);
  elsif book_vehicle.payment_method is distinct from 'bank' then
    reference := null;
  end if;
  insert into public.bookings (user_id, vehicle_id, start_date, end_date, pickup_location, dropoff_location,
                               customer_name, customer_email, customer_phone, driver_license_number, special_requests,
                               payment_method, mobile_money_provider, mobile_money_phone, payment_reference,
                               pickup_time, passengers, booking_status)
  values (auth.uid(), book_vehicle.vehicle_id, book_vehicle.start_date, book_vehicle.end_date,
          nullif(trim(book_vehicle.pickup_location), ''), nullif(trim(book_vehicle.dropoff_location), ''),
          trim(book_vehicle.customer_name), lower(trim(book_vehicle.customer_email)), trim(book_vehicle.customer_phone),
          upper(trim(book_vehicle.driver_license_number)), nullif(trim(book_vehicle.special_requests), ''),
          book_vehicle.payment_method,
          case when book_vehicle.payment_method = 'mobile' then book_vehicle.mobile_money_provider end,
          case when book_vehicle.payment_method = 'mobile' then nullif(trim(book_vehicle.mobile_money_phone), '') end,
          reference, book_vehicle.pickup_time, book_vehicle.passengers, 'pending')
  returning * into booking;
  select * into q from public.quote_vehicle_rental(booking.vehicle_id, booking.start_date, booking.end_date);
  return query select booking.id, booking.total_amount, q.days, q.discount_percent, booking.booking_status;
end
$$;

-- the taken dates of a vehicle for its public page (/fleet/:id): the confirmed and active rentals
-- and the pending requests still holding their dates (booking_hold()), as date ranges [start, end)
-- (a same-day rental takes its day) from `from_date` over `days` days. nothing about who booked:
-- the bookings themselves stay hidden by row-level security. retired vehicles have no page.
create function public.vehicle_taken_dates(vehicle_id uuid, from_date date default current_date, days int default 90)
returns table (start_date date, end_date date, status text)
language sql stable security definer set search_path = ''
as $$
  select greatest(b.start_date, vehicle_taken_dates.from_date),
         least(greatest(b.end_date, b.start_date + 1), vehicle_taken_dates.from_date + least(greatest(vehicle_taken_dates.days, 1), 366)),
         case when b.booking_status = 'pending' then 'held' else 'booked' end
  from public.bookings b
  join public.vehicles v on v.id = b.vehicle_id and v.rental_status <> 'retired'
  where b.vehicle_id = vehicle_taken_dates.vehicle_id
    and (b.booking_status in ('confirmed', 'active')
         or (b.booking_status = 'pending' and b.created_at > now() - public.booking_hold()))
    and daterange(b.start_date, greatest(b.end_date, b.start_date + 1), '[)')
        && daterange(vehicle_taken_dates.from_date, vehicle_taken_dates.from_date + least(greatest(vehicle_taken_dates.days, 1), 366), '[)')
  order by 1
$$;
grant execute on function public.vehicle_taken_dates(uuid, date, int) to anon, authenticated, service_role;

-- anonymous users book nothing (is_permanent_user), whichever way: restrictive policies, so
-- every permissive policy above still applies as well.
create policy permanent_users_insert on public.bookings as restrictive for insert to authenticated
  with check ((select public.is_permanent_user()));
create policy permanent_users_update on public.bookings as restrictive for update to authenticated
  using ((select public.is_permanent_user())) with check ((select public.is_permanent_user()));
create policy permanent_users_delete on public.bookings as restrictive for delete to authenticated
  using ((select public.is_permanent_user()));
create policy permanent_users_insert on public.airport_bookings as restrictive for insert to authenticated
  with check ((select public.is_permanent_user()));
create policy permanent_users_update on public.airport_bookings as restrictive for update to authenticated
  using ((select public.is_permanent_user())) with check ((select public.is_permanent_user()));
create policy permanent_users_delete on public.airport_bookings as restrictive for delete to authenticated
  using ((select public.is_permanent_user()));
create policy permanent_users_insert on public.diagnostic_bookings as restrictive for insert to authenticated
  with check ((select public.is_permanent_user()));
create policy permanent_users_update on public.diagnostic_bookings as restrictive for update to authenticated
  using ((select public.is_permanent_user())) with check ((select public.is_permanent_user()));
create policy permanent_users_delete on public.diagnostic_bookings as restrictive for delete to authenticated
  using ((select public.is_permanent_user()));
create policy permanent_users_insert on public.premium_service_bookings as restrictive for insert to authenticated
  with check ((select public.is_permanent_user()));
create policy permanent_users_update on public.premium_service_bookings as restrictive for update to authenticated
  using ((select public.is_permanent_user())) with check ((select public.is_permanent_user()));
create policy permanent_users_delete on public.premium_service_bookings as restrictive for delete to authenticated
  using ((select public.is_permanent_user()));
