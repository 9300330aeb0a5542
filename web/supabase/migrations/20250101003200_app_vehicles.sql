-- the fleet. constraints, not comments: categories, statuses and specification values are
-- checked; plates and vins are upper-cased; empty text is stored as null.

create table public.vehicles (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(trim(name)) >= 2),
  make text not null check (length(trim(make)) >= 1),
  model text not null check (length(trim(model)) >= 1),
  year int not null check (year between 1950 and 2100),
  category text not null default 'economic' check (category in ('economic', 'luxury', 'suv', 'utility')),
  color text,
  license_plate text unique,
  vin text unique,
  -- price mirrors daily_rate (the original kept both).
  price numeric(10, 2) not null default 0 check (price >= 0),
  daily_rate numeric(10, 2) not null default 0 check (daily_rate >= 0),
  rental_status text not null default 'available' check (rental_status in ('available', 'rented', 'maintenance', 'retired')),
  description text,
  features text[] not null default '{}',
  location text,
  current_location text,
  home_location text,
  insurance_policy text,
  registration_expiry date,
  last_service_date date,
  next_service_due date,
  specifications jsonb not null default '{}' check (jsonb_typeof(specifications) = 'object'),
  pricing jsonb not null default '{}' check (jsonb_typeof(pricing) = 'object'),
  images jsonb not null default '[]' check (jsonb_typeof(images) = 'array'),
  primary_image text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint vehicles_engine_type check (coalesce(specifications ->> 'engine_type', '') in ('', '4 cylindres', '6 cylindres', 'V8', 'Électrique', 'Hybride')),
  constraint vehicles_fuel_type check (coalesce(specifications ->> 'fuel_type', 'Essence') in ('Essence', 'Diesel', 'Hybride', 'Électrique', 'GPL')),
  constraint vehicles_transmission check (coalesce(specifications ->> 'transmission', 'Manuelle') in ('Manuelle', 'Automatique', 'CVT')),
  constraint vehicles_seats check (coalesce((specifications ->> 'seats')::int, 5) between 1 and 60),
  constraint vehicles_doors check (coalesce((specifications ->> 'doors')::int, 4) between 0 and 10),
  constraint vehicles_mileage check (coalesce((specifications ->> 'mileage')::numeric, 0) >= 0),
  constraint vehicles_discounts check (
    coalesce((pricing ->> 'weekly_discount')::numeric, 10) between 0 and 100
    and coalesce((pricing ->> 'monthly_discount')::numeric, 20) between 0 and 100
    and coalesce((pricing ->> 'daily_rate')::numeric, 0) >= 0
    and coalesce((pricing ->> 'security_deposit')::numeric, 0) >= 0
  )
);

create index vehicles_category_idx on public.vehicles (category);
create index vehicles_status_idx on public.vehicles (rental_status);

-- the daily rate a rental is charged: pricing.daily_rate when set, else daily_rate.
create function public.vehicle_daily_rate(v public.vehicles) returns numeric
language sql immutable
as $$ select coalesce(nullif(v.pricing ->> 'daily_rate', '')::numeric, v.daily_rate) $$;

create function public.normalize_vehicle() returns trigger
language plpgsql
as $$
begin
  new.name := trim(new.name);
  new.make := trim(new.make);
  new.model := trim(new.model);
  new.color := nullif(trim(new.color), '');
  new.license_plate := upper(nullif(trim(new.license_plate), ''));
  new.vin := upper(nullif(trim(new.vin), ''));
  new.description := nullif(trim(new.description), '');
  new.location := nullif(trim(new.location), '');
  new.current_location := nullif(trim(new.current_location), '');
  new.home_location := nullif(trim(new.home_location), '');
  new.insurance_policy := nullif(trim(new.insurance_policy), '');
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
