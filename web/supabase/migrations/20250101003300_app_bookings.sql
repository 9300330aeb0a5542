-- the four kinds of bookings. the database sets every price (a total sent by a browser is
-- ignored), keeps updated_at, and refuses two confirmed or active rentals of one vehicle on
-- overlapping dates.

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
  ) where (booking_status in ('confirmed', 'active'))
);
create index bookings_user_idx on public.bookings (user_id);
create index bookings_vehicle_idx on public.bookings (vehicle_id);

create table public.airport_bookings (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
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
  updated_at timestamptz not null default now()
);
create index airport_bookings_user_idx on public.airport_bookings (user_id);

create table public.diagnostic_bookings (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
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
  updated_at timestamptz not null default now()
);
create index diagnostic_bookings_user_idx on public.diagnostic_bookings (user_id);

create table public.premium_service_bookings (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
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
  updated_at timestamptz not null default now()
);
create index premium_service_bookings_user_idx on public.premium_service_bookings (user_id);

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

create function public.touch_updated_at() returns trigger
language plpgsql
as $$
begin
  new.updated_at := now();
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

create trigger price_booking before insert or update on public.bookings
for each row execute function public.price_vehicle_booking();
create trigger price_booking before insert or update on public.airport_bookings
for each row execute function public.price_airport_booking();
create trigger price_booking before insert or update on public.diagnostic_bookings
for each row execute function public.price_diagnostic_booking();
create trigger price_booking before insert or update on public.premium_service_bookings
for each row execute function public.price_premium_booking();

create trigger touch_updated_at before update on public.bookings for each row execute function public.touch_updated_at();
create trigger touch_updated_at before update on public.airport_bookings for each row execute function public.touch_updated_at();
create trigger touch_updated_at before update on public.diagnostic_bookings for each row execute function public.touch_updated_at();
create trigger touch_updated_at before update on public.premium_service_bookings for each row execute function public.touch_updated_at();

-- customers create pending bookings and may only cancel their own pending ones: whatever else a
-- browser sends on update is refused.
create function public.guard_customer_booking() returns trigger
language plpgsql
as $$
begin
  if current_user not in ('anon', 'authenticated') or public.is_admin() then
    return new;
  end if;
  if tg_op = 'INSERT' then
    if new.booking_status <> 'pending' then
      raise exception 'Une nouvelle réservation est toujours en attente' using errcode = '42501';
    end if;
    return new;
  end if;
  if old.booking_status <> 'pending' or new.booking_status <> 'cancelled'
     or (to_jsonb(new) - 'booking_status' - 'updated_at') <> (to_jsonb(old) - 'booking_status' - 'updated_at') then
    raise exception 'Seule l''annulation d''une réservation en attente est possible' using errcode = '42501';
  end if;
  return new;
end
$$;

create trigger guard_customer_booking before insert or update on public.bookings
for each row execute function public.guard_customer_booking();
create trigger guard_customer_booking before insert or update on public.airport_bookings
for each row execute function public.guard_customer_booking();
create trigger guard_customer_booking before insert or update on public.diagnostic_bookings
for each row execute function public.guard_customer_booking();
create trigger guard_customer_booking before insert or update on public.premium_service_bookings
for each row execute function public.guard_customer_booking();
