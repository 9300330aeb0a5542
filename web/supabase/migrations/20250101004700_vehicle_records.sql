-- a vehicle's administrative record (vin, insurance policy, registration and service dates) is
-- the company's, not the public's. everyone reads the available fleet, and row-level security
-- cannot hide columns, so anon could read every vin and insurance policy: these columns move to
-- a table only administrators read and write, one row per vehicle (an embedded to-one resource:
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
  using (public.is_admin()) with check (public.is_admin());

insert into public.vehicle_records (vehicle_id, vin, insurance_policy, registration_expiry, last_service_date, next_service_due)
select id, vin, insurance_policy, registration_expiry, last_service_date, next_service_due
from public.vehicles
where vin is not null or insurance_policy is not null or registration_expiry is not null
   or last_service_date is not null or next_service_due is not null;

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

-- normalize_vehicle (V32) without the columns that moved.
create or replace function public.normalize_vehicle() returns trigger
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

alter table public.vehicles
  drop column vin,
  drop column insurance_policy,
  drop column registration_expiry,
  drop column last_service_date,
  drop column next_service_due;
