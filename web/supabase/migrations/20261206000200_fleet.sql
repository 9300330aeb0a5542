-- squashes: 20250101003000 20250101003100 20250101003200 20250101003300 20250101003400
-- squashes: 20250101003500 20250101003600 20250101003700 20250101003800 20250101004000
-- squashes: 20250101004100 20250101004200 20250101004300 20250101004400 20250101004500
-- squashes: 20250101004600 20250101004700 20250101004800 20250101005000 20250101005100
-- squashes: 20250101005300 20250101005600 20250101010300 20250101010400 20250101010500
-- squashes: 20250101010600 20250101010700 20250101010800 20250101010900 20261202000000
--
-- the fleet: vehicles, their private records, their photos' bucket.

-- constraints, not comments: categories, statuses and specification values are checked (the
-- ranges of back-office.md section 5); plates are upper-cased; empty text is stored as null.
create table public.vehicles (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(trim(name)) >= 2),
  make text not null check (length(trim(make)) >= 1),
  model text not null check (length(trim(model)) >= 1),
  -- the upper bound moves with the calendar: check_vehicle_year holds it.
  year int not null check (year >= 1990),
  category text not null default 'economic' check (category in ('economic', 'luxury', 'suv', 'utility')),
  color text,
  license_plate text unique,
  -- price mirrors daily_rate (the original kept both).
  price numeric(10, 2) not null default 0 check (price >= 0),
  daily_rate numeric(10, 2) not null default 0 check (daily_rate >= 0),
  rental_status text not null default 'available' check (rental_status in ('available', 'rented', 'maintenance', 'retired')),
  description text,
  features text[] not null default '{}',
  location text,
  current_location text,
  home_location text,
  specifications jsonb not null default '{}' check (jsonb_typeof(specifications) = 'object'),
  pricing jsonb not null default '{}' check (jsonb_typeof(pricing) = 'object'),
  images jsonb not null default '[]' check (jsonb_typeof(images) = 'array'),
  primary_image text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint vehicles_engine_type check (coalesce(specifications ->> 'engine_type', '') in ('', '4 cylindres', '6 cylindres', 'V8', 'Électrique', 'Hybride')),
  constraint vehicles_fuel_type check (coalesce(specifications ->> 'fuel_type', 'Essence') in ('Essence', 'Diesel', 'Hybride', 'Électrique', 'GPL')),
  constraint vehicles_transmission check (coalesce(specifications ->> 'transmission', 'Manuelle') in ('Manuelle', 'Automatique', 'CVT')),
  constraint vehicles_seats check (coalesce((specifications ->> 'seats')::int, 5) between 1 and 50),
  constraint vehicles_doors check (coalesce((specifications ->> 'doors')::int, 4) between 2 and 10),
  constraint vehicles_mileage check (coalesce((specifications ->> 'mileage')::numeric, 0) >= 0),
  constraint vehicles_discounts check (
    coalesce((pricing ->> 'weekly_discount')::numeric, 10) between 0 and 50
    and coalesce((pricing ->> 'monthly_discount')::numeric, 20) between 0 and 50
    and coalesce((pricing ->> 'daily_rate')::numeric, 0) >= 0
    and coalesce((pricing ->> 'security_deposit')::numeric, 0) >= 0
  ),
  constraint vehicles_seasonal_rates check (
    jsonb_typeof(coalesce(pricing -> 'seasonal_rates', '[]')) = 'array'
    and not jsonb_path_exists(coalesce(pricing -> 'seasonal_rates', '[]'),
                              '$[*] ? (!(exists (@.rate_multiplier)) || @.rate_multiplier.type() != "number" || @.rate_multiplier < 0.1 || @.rate_multiplier > 5)')
  )
);
alter table public.vehicles enable row level security;
create index vehicles_category_idx on public.vehicles (category);
create index vehicles_status_idx on public.vehicles (rental_status);

-- the daily rate a rental is charged: pricing.daily_rate when set, else daily_rate.
create function public.vehicle_daily_rate(v public.vehicles) returns numeric
language sql immutable
as $$ select coalesce(nullif(v.pricing ->> 'daily_rate', '')::numeric, v.daily_rate) $$;

-- the values as stored: trimmed, empty text as null, plates upper-cased, one daily rate.
create function public.normalize_vehicle() returns trigger
language plpgsql
as $$
begin
  new.name := trim(new.name);
  new.make := trim(new.make);
  new.model := trim(new.model);
  new.color := nullif(trim(new.color), '');
  new.license_plate := upper(nullif(trim(new.license_plate), ''));
  new.description := nullif(trim(new.description), '');
  new.location := nullif(trim(new.location), '');
  new.current_location := nullif(trim(new.current_location), '');
  new.home_location := nullif(trim(new.home_location), '');
  new.primary_image := nullif(trim(new.primary_image), '');
  new.features := coalesce(array(select trim(f) from unnest(new.features) f where nullif(trim(f), '') is not null), '{}');
  -- one daily rate: the pricing object's, mirrored into daily_rate and price.
  if nullif(new.pricing ->> 'daily_rate', '') is not null then
    new.daily_rate := (new.pricing ->> 'daily_rate')::numeric;
  else
    new.pricing := new.pricing || jsonb_build_object('daily_rate', new.daily_rate);
  end if;
  new.price := new.daily_rate;
  new.updated_at := now();
  return new;
end
$$;

create trigger normalize_vehicle before insert or update on public.vehicles
for each row execute function public.normalize_vehicle();

-- the public `vehicles` bucket of vehicle photos: anyone reads (an <img> sends no key),
-- administrators upload, replace and remove; 10 mb images only (back-office.md section 9).
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('vehicles', 'vehicles', true, 10485760, array['image/*'])
on conflict (id) do nothing;

create policy vehicle_images_read on storage.objects for select to anon, authenticated
  using (bucket_id = 'vehicles');

create policy vehicle_images_insert on storage.objects for insert to authenticated
  with check (bucket_id = 'vehicles' and (select public.is_admin()));

create policy vehicle_images_update on storage.objects for update to authenticated
  using (bucket_id = 'vehicles' and (select public.is_admin())) with check (bucket_id = 'vehicles' and (select public.is_admin()));

create policy vehicle_images_delete on storage.objects for delete to authenticated
  using (bucket_id = 'vehicles' and (select public.is_admin()));

-- a year up to next year's.
create function public.check_vehicle_year() returns trigger
language plpgsql
as $$
begin
  if new.year > extract(year from current_date)::int + 1 then
    raise exception 'L''année doit être comprise entre 1990 et %', extract(year from current_date)::int + 1
      using errcode = '23514', constraint = 'vehicles_year_check';
  end if;
  return new;
end
$$;

create trigger check_vehicle_year before insert or update of year on public.vehicles
for each row execute function public.check_vehicle_year();

-- a vehicle's administrative record (vin, insurance policy, registration and service dates) is
-- the company's, not the public's. everyone reads the available fleet, and row-level security
-- cannot hide columns of the vehicles anon reads: these columns live in a table only
-- administrators read and write, one row per vehicle (an embedded to-one resource:
-- `vehicles?select=*,...vehicle_records(*)` reads them back in place).
create table public.vehicle_records (
  vehicle_id uuid primary key references public.vehicles (id) on delete cascade,
  vin text unique constraint vehicle_records_vin check (vin is null or length(vin) <= 17),
  insurance_policy text,
  registration_expiry date,
  last_service_date date,
  next_service_due date,
  updated_at timestamptz not null default now()
);
alter table public.vehicle_records enable row level security;

create policy vehicle_record_admin on public.vehicle_records for all to authenticated
  using ((select public.is_admin())) with check ((select public.is_admin()));

create function public.normalize_vehicle_record() returns trigger
language plpgsql
as $$
begin
  new.vin := upper(nullif(trim(new.vin), ''));
  new.insurance_policy := nullif(trim(new.insurance_policy), '');
  new.updated_at := now();
  return new;
end
$$;

create trigger normalize_vehicle_record before insert or update on public.vehicle_records
for each row execute function public.normalize_vehicle_record();

-- the vehicle wizard saves a vehicle and its private record in one transaction: two REST
-- calls could leave a new vehicle without its record (a duplicate vin refused the second call),
-- and saving again then created the vehicle twice. runs as the caller: the administrators'
-- policies on both tables decide, as they would for the two calls.
create function public.admin_save_vehicle(vehicle jsonb, record jsonb default '{}', vehicle_id uuid default null)
returns uuid
language plpgsql volatile
as $$
declare
  v public.vehicles := jsonb_populate_record(null::public.vehicles, vehicle);
  r public.vehicle_records := jsonb_populate_record(null::public.vehicle_records, coalesce(record, '{}'));
  saved uuid;
begin
  if not public.is_admin() then
    raise exception 'Accès refusé' using errcode = '42501';
  end if;
  if vehicle_id is null then
    insert into public.vehicles (name, make, model, year, category, color, license_plate, description, price, daily_rate,
                                 rental_status, features, location, current_location, home_location, specifications,
                                 pricing, images, primary_image)
    values (v.name, v.make, v.model, v.year, coalesce(v.category, 'economic'), v.color, v.license_plate, v.description,
            coalesce(v.price, 0), coalesce(v.daily_rate, 0), coalesce(v.rental_status, 'available'), coalesce(v.features, '{}'),
            v.location, v.current_location, v.home_location, coalesce(v.specifications, '{}'), coalesce(v.pricing, '{}'),
            coalesce(v.images, '[]'), v.primary_image)
    returning id into saved;
  else
    update public.vehicles t
    set name = v.name, make = v.make, model = v.model, year = v.year, category = coalesce(v.category, t.category),
        color = v.color, license_plate = v.license_plate, description = v.description, price = coalesce(v.price, t.price),
        daily_rate = coalesce(v.daily_rate, t.daily_rate), rental_status = coalesce(v.rental_status, t.rental_status),
        features = coalesce(v.features, '{}'), location = v.location, current_location = v.current_location,
        home_location = v.home_location, specifications = coalesce(v.specifications, '{}'),
        pricing = coalesce(v.pricing, '{}'), images = coalesce(v.images, '[]'), primary_image = v.primary_image
    where t.id = admin_save_vehicle.vehicle_id
    returning t.id into saved;
    if saved is null then
      raise exception 'Véhicule introuvable' using errcode = 'P0002';
    end if;
  end if;
  insert into public.vehicle_records (vehicle_id, vin, insurance_policy, registration_expiry, last_service_date, next_service_due)
  values (saved, r.vin, r.insurance_policy, r.registration_expiry, r.last_service_date, r.next_service_due)
  on conflict on constraint vehicle_records_pkey do update
  set vin = excluded.vin, insurance_policy = excluded.insurance_policy, registration_expiry = excluded.registration_expiry,
      last_service_date = excluded.last_service_date, next_service_due = excluded.next_service_due;
  return saved;
end
$$;
revoke execute on function public.admin_save_vehicle(jsonb, jsonb, uuid) from public, anon;
grant execute on function public.admin_save_vehicle(jsonb, jsonb, uuid) to authenticated;
