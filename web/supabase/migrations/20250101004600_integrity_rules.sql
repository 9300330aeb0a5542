-- rules the specifications leave to the browser, held by the database (found by an audit of the
-- site against customer-site.md and back-office.md):
-- 1. the availability search sees every booking, not only the caller's;
-- 2. deleting an account keeps its service bookings, with the customer's contact, as it keeps
--    vehicle rentals (V41): a booking is business data, never lost with a profile;
-- 3. the vehicle ranges of back-office.md section 5;
-- 4. nobody changes a profile's e-mail, account or username from a browser, administrators
--    included (the e-mail follows the account's, V31);
-- 5. the analytics give the daily series of back-office.md section 9, and a vehicle's
--    utilisation over the same period as its bookings.

-- 1. run as the owner: the policies on bookings would hide other customers' rentals from the
-- check, so visitors and customers were offered vehicles already taken (book_vehicle then
-- refused them). it returns available vehicles only, and no private column.
alter function public.search_available_vehicles(date, date, text, numeric, int, text, text)
  security definer set search_path = '';

-- 2. service bookings outlive the account that made them.
alter table public.airport_bookings
  add column customer_name text,
  add column customer_email text,
  add column customer_phone text,
  alter column user_id drop not null,
  drop constraint airport_bookings_user_id_fkey,
  add constraint airport_bookings_user_id_fkey foreign key (user_id) references auth.users (id) on delete set null,
  add constraint airport_bookings_contact check (user_id is not null or customer_email is not null);
alter table public.diagnostic_bookings
  add column customer_name text,
  alter column user_id drop not null,
  drop constraint diagnostic_bookings_user_id_fkey,
  add constraint diagnostic_bookings_user_id_fkey foreign key (user_id) references auth.users (id) on delete set null;
alter table public.premium_service_bookings
  alter column user_id drop not null,
  drop constraint premium_service_bookings_user_id_fkey,
  add constraint premium_service_bookings_user_id_fkey foreign key (user_id) references auth.users (id) on delete set null;

create or replace function public.admin_delete_users(ids uuid[]) returns int
language plpgsql volatile security definer set search_path = ''
as $$
declare
  deleted int;
begin
  if not public.is_admin() then
    raise exception 'Accès refusé' using errcode = '42501';
  end if;
  if auth.uid() = any (ids) then
    raise exception 'Vous ne pouvez pas supprimer votre propre compte' using errcode = '22023';
  end if;
  -- a booking without an account carries its customer's contact.
  update public.bookings b
  set customer_name = coalesce(nullif(trim(b.customer_name), ''), nullif(trim(p.full_name), ''), u.email, 'Client supprimé'),
      customer_email = coalesce(nullif(trim(b.customer_email), ''), u.email, 'inconnu@invalid.cd'),
      customer_phone = coalesce(nullif(trim(b.customer_phone), ''), nullif(trim(p.phone), ''), 'inconnu'),
      driver_license_number = coalesce(nullif(trim(b.driver_license_number), ''), 'inconnu')
  from auth.users u left join public.profiles p on p.user_id = u.id
  where b.user_id = u.id and u.id = any (ids);
  update public.airport_bookings a
  set customer_name = coalesce(nullif(trim(p.full_name), ''), u.email, 'Client supprimé'),
      customer_email = coalesce(u.email, 'inconnu@invalid.cd'),
      customer_phone = nullif(trim(p.phone), '')
  from auth.users u left join public.profiles p on p.user_id = u.id
  where a.user_id = u.id and u.id = any (ids);
  update public.diagnostic_bookings d
  set customer_name = coalesce(nullif(trim(p.full_name), ''), u.email, 'Client supprimé')
  from auth.users u left join public.profiles p on p.user_id = u.id
  where d.user_id = u.id and u.id = any (ids);
  delete from auth.users u where u.id = any (ids);
  get diagnostics deleted = row_count;
  return deleted;
end
$$;

-- 3. the vehicle ranges (the year's upper bound moves with the calendar, so a trigger holds it;
-- the vin's length is checked where V47 keeps it).
alter table public.vehicles
  drop constraint vehicles_year_check,
  add constraint vehicles_year_check check (year >= 1990),
  drop constraint vehicles_seats,
  add constraint vehicles_seats check (coalesce((specifications ->> 'seats')::int, 5) between 1 and 50),
  drop constraint vehicles_doors,
  add constraint vehicles_doors check (coalesce((specifications ->> 'doors')::int, 4) between 2 and 10),
  drop constraint vehicles_discounts,
  add constraint vehicles_discounts check (
    coalesce((pricing ->> 'weekly_discount')::numeric, 10) between 0 and 50
    and coalesce((pricing ->> 'monthly_discount')::numeric, 20) between 0 and 50
    and coalesce((pricing ->> 'daily_rate')::numeric, 0) >= 0
    and coalesce((pricing ->> 'security_deposit')::numeric, 0) >= 0
  ),
  add constraint vehicles_seasonal_rates check (
    jsonb_typeof(coalesce(pricing -> 'seasonal_rates', '[]')) = 'array'
    and not jsonb_path_exists(coalesce(pricing -> 'seasonal_rates', '[]'),
                              '$[*] ? (!(exists (@.rate_multiplier)) || @.rate_multiplier.type() != "number" || @.rate_multiplier < 0.1 || @.rate_multiplier > 5)')
  );

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

-- 4. what identifies a profile is the system's: administrators change names, phones and other
-- users' roles; the e-mail follows the account (handle_user_email_change runs as the owner).
create or replace function public.protect_profile() returns trigger
language plpgsql
as $$
begin
  if current_user in ('anon', 'authenticated') then
    if new.email is distinct from old.email
       or new.user_id is distinct from old.user_id
       or new.username is distinct from old.username
       or new.id is distinct from old.id
       or new.created_at is distinct from old.created_at then
      raise exception 'Seuls le nom et le téléphone peuvent être modifiés'
        using errcode = '42501', hint = 'the e-mail follows the account; id, user_id and username are fixed';
    end if;
    if new.role is distinct from old.role then
      if not public.is_admin() then
        raise exception 'Seuls le nom et le téléphone peuvent être modifiés'
          using errcode = '42501', hint = 'the role is changed by an administrator';
      elsif old.user_id = auth.uid() then
        raise exception 'Vous ne pouvez pas modifier votre propre rôle' using errcode = '22023';
      end if;
    end if;
  end if;
  new.updated_at := now();
  return new;
end
$$;

-- 5. the analytics of V43 with the daily series of the period's last 30 days, and each top
-- vehicle's utilisation as its bookings of the period per day of the period it existed.
create or replace function public.admin_analytics(start_date date, end_date date)
returns jsonb
language plpgsql stable
as $$
declare
  from_ts timestamptz;
  to_ts timestamptz;
  prev_from timestamptz;
  result jsonb;
begin
  if not public.is_admin() then
    raise exception 'Accès refusé' using errcode = '42501';
  end if;
  if start_date is null or end_date is null or end_date < start_date then
    raise exception 'Période invalide : la date de fin doit suivre la date de début' using errcode = '22023';
  end if;
  from_ts := start_date::timestamptz;
  to_ts := (end_date + 1)::timestamptz;
  prev_from := from_ts - (to_ts - from_ts);

  with b as (select * from public.all_bookings),
  cur as (select * from b where created_at >= from_ts and created_at < to_ts),
  prev as (select * from b where created_at >= prev_from and created_at < from_ts),
  t as (
    select (select count(*) from cur) as bookings,
           (select count(*) from prev) as previous_bookings,
           (select coalesce(sum(total_amount), 0) from cur where booking_status <> 'cancelled') as revenue,
           (select coalesce(sum(total_amount), 0) from prev where booking_status <> 'cancelled') as previous_revenue
  ),
  customers as (
    select count(*) filter (where p.role = 'user') as total,
           count(*) filter (where p.role = 'user' and exists (select 1 from b where b.user_id = p.user_id and b.created_at >= now() - interval '30 days')) as active,
           count(*) filter (where p.role = 'user' and (select count(*) from b where b.user_id = p.user_id) > 1) as repeat,
           (select count(*) from b join public.profiles q on q.user_id = b.user_id and q.role = 'user') as customer_bookings
    from public.profiles p
  )
  select jsonb_build_object(
    'start_date', start_date,
    'end_date', end_date,
    'bookings', t.bookings,
    'previous_bookings', t.previous_bookings,
    'revenue', t.revenue,
    'previous_revenue', t.previous_revenue,
    'bookings_growth', case when t.previous_bookings = 0 then 0 else round((t.bookings - t.previous_bookings) * 100.0 / t.previous_bookings, 1) end,
    'revenue_growth', case when t.previous_revenue = 0 then 0 else round((t.revenue - t.previous_revenue) * 100.0 / t.previous_revenue, 1) end,
    'average_basket', case when t.bookings = 0 then 0 else round(t.revenue / t.bookings, 2) end,
    'monthly', (select coalesce(jsonb_agg(jsonb_build_object(
                    'month', to_char(m, 'YYYY-MM'),
                    'bookings', (select count(*) from cur where date_trunc('month', cur.created_at) = m),
                    'revenue', (select coalesce(sum(total_amount), 0) from cur where date_trunc('month', cur.created_at) = m and booking_status <> 'cancelled'))
                  order by m), '[]')
                from generate_series(date_trunc('month', from_ts), date_trunc('month', to_ts - interval '1 microsecond'), interval '1 month') m),
    'daily', (select jsonb_agg(jsonb_build_object(
                  'date', d::date,
                  'bookings', (select count(*) from cur where cur.created_at >= d and cur.created_at < d + interval '1 day'))
                order by d)
              from generate_series(greatest(start_date, end_date - 29)::timestamptz, end_date::timestamptz, interval '1 day') d),
    'by_kind', (select jsonb_object_agg(k, jsonb_build_object(
                   'bookings', (select count(*) from cur where cur.kind = k),
                   'revenue', (select coalesce(sum(total_amount), 0) from cur where cur.kind = k and booking_status <> 'cancelled')))
                from unnest(array['vehicle', 'airport', 'diagnostic', 'premium']) k),
    'categories', (select coalesce(jsonb_agg(c order by c.revenue desc, c.category), '[]') from (
                     select v.category, count(*) as bookings,
                            coalesce(sum(x.total_amount) filter (where x.booking_status <> 'cancelled'), 0) as revenue
                     from cur x join public.vehicles v on v.id = x.vehicle_id
                     group by v.category) c),
    'top_vehicles', (select coalesce(jsonb_agg(v order by v.bookings desc, v.revenue desc, v.name), '[]') from (
                       select v.id, v.name, v.category, count(x.id) as bookings,
                              coalesce(sum(x.total_amount) filter (where x.booking_status <> 'cancelled'), 0) as revenue,
                              least(100, round(count(x.id) * 100.0 / greatest(1, ceil(extract(epoch from
                                  least(to_ts, now()) - greatest(from_ts, v.created_at)) / 86400)::int), 1)) as utilisation
                       from public.vehicles v join cur x on x.vehicle_id = v.id
                       group by v.id
                       order by count(x.id) desc, revenue desc, v.name
                       limit 10) v),
    'customers', (select jsonb_build_object(
                    'total', c.total, 'active', c.active, 'repeat', c.repeat,
                    'retention_rate', case when c.total = 0 then 0 else round(c.repeat * 100.0 / c.total, 1) end,
                    'bookings_per_customer', case when c.total = 0 then 0 else round(c.customer_bookings::numeric / c.total, 1) end)
                  from customers c)
  ) into result
  from t;
  return result;
end
$$;
