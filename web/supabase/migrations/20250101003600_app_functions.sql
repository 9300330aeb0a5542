-- what the pages call: availability search with real overlap semantics, the public booking,
-- and the back office's statistics computed in the database (administrators only).

-- vehicles free on [start_date, end_date) (no confirmed or active booking overlaps), with the
-- quote each would cost, filtered as the advanced search does. runs as the caller: rls shows
-- the public only available vehicles.
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
language sql stable
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
      where b.vehicle_id = v.id and b.booking_status in ('confirmed', 'active')
        and daterange(b.start_date, greatest(b.end_date, b.start_date + 1), '[)')
            && daterange(search_available_vehicles.start_date, greatest(search_available_vehicles.end_date, search_available_vehicles.start_date + 1), '[)')
    )
  order by public.vehicle_daily_rate(v), v.name
$$;

-- the public three-step booking: a pending booking for the signed-in user, or an anonymous one
-- that keeps the visitor's contact details. the price is the database's. security definer only
-- so a visitor can learn the reference and total of what they just booked; it inserts exactly
-- what the policies allow (pending, own user id or none).
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
  special_requests text default null
)
returns table (id uuid, total_amount numeric, days int, discount_percent numeric, booking_status text)
language plpgsql volatile security definer set search_path = ''
as $$
declare
  booking public.bookings;
  q record;
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
  if not exists (select 1 from public.vehicles v where v.id = book_vehicle.vehicle_id and v.rental_status = 'available') then
    raise exception 'Véhicule introuvable ou indisponible' using errcode = 'PT404';
  end if;
  insert into public.bookings (user_id, vehicle_id, start_date, end_date, pickup_location, dropoff_location,
                               customer_name, customer_email, customer_phone, driver_license_number, special_requests, booking_status)
  values (auth.uid(), book_vehicle.vehicle_id, book_vehicle.start_date, book_vehicle.end_date,
          nullif(trim(book_vehicle.pickup_location), ''), nullif(trim(book_vehicle.dropoff_location), ''),
          trim(book_vehicle.customer_name), lower(trim(book_vehicle.customer_email)), trim(book_vehicle.customer_phone),
          upper(trim(book_vehicle.driver_license_number)), nullif(trim(book_vehicle.special_requests), ''), 'pending')
  returning * into booking;
  select * into q from public.quote_vehicle_rental(booking.vehicle_id, booking.start_date, booking.end_date);
  return query select booking.id, booking.total_amount, q.days, q.discount_percent, booking.booking_status;
end
$$;

-- every booking of the four kinds in one shape, for statistics.
create view public.all_bookings with (security_invoker = true) as
  select 'vehicle'::text as kind, b.id, b.user_id, b.total_amount, b.booking_status, b.created_at, b.vehicle_id from public.bookings b
  union all
  select 'airport', a.id, a.user_id, a.total_amount, a.booking_status, a.created_at, null from public.airport_bookings a
  union all
  select 'diagnostic', d.id, d.user_id, d.total_amount, d.booking_status, d.created_at, null from public.diagnostic_bookings d
  union all
  select 'premium', p.id, p.user_id, p.total_amount, p.booking_status, p.created_at, null from public.premium_service_bookings p;

-- the back office's figures (back-office.md section 9) over the last `period_days` days and the
-- period of the same length before it. administrators only.
create function public.admin_statistics(period_days int default 90)
returns jsonb
language plpgsql stable security definer set search_path = ''
as $$
declare
  period_start timestamptz := now() - make_interval(days => greatest(period_days, 1));
  previous_start timestamptz := now() - make_interval(days => 2 * greatest(period_days, 1));
  result jsonb;
begin
  if not public.is_admin() then
    raise exception 'Accès refusé' using errcode = '42501';
  end if;
  with b as (select * from public.all_bookings),
  cur as (select * from b where created_at >= period_start),
  prev as (select * from b where created_at >= previous_start and created_at < period_start),
  totals as (
    select
      (select count(*) from cur) as bookings,
      (select count(*) from prev) as previous_bookings,
      (select coalesce(sum(total_amount), 0) from cur where booking_status <> 'cancelled') as revenue,
      (select coalesce(sum(total_amount), 0) from prev where booking_status <> 'cancelled') as previous_revenue
  ),
  users as (
    select count(*) filter (where p.role = 'user') as total_users,
           count(*) filter (where p.role = 'user' and exists (select 1 from b where b.user_id = p.user_id and b.created_at >= now() - interval '30 days')) as active_users,
           count(*) filter (where p.role = 'user' and (select count(*) from b where b.user_id = p.user_id) > 1) as repeat_customers
    from public.profiles p
  )
  select jsonb_build_object(
    'period_days', period_days,
    'by_status', (select jsonb_object_agg(s, (select count(*) from b where b.booking_status = s))
                  from unnest(array['pending', 'confirmed', 'active', 'completed', 'cancelled']) s),
    'by_kind', (select jsonb_object_agg(k, jsonb_build_object(
                   'count', (select count(*) from b where b.kind = k),
                   'revenue', (select coalesce(sum(total_amount), 0) from b where b.kind = k and booking_status <> 'cancelled')))
                from unnest(array['vehicle', 'airport', 'diagnostic', 'premium']) k),
    'total_bookings', (select count(*) from b),
    'active_bookings', (select count(*) from b where booking_status in ('pending', 'confirmed', 'active')),
    'total_revenue', (select coalesce(sum(total_amount), 0) from b where booking_status <> 'cancelled'),
    'period', (select jsonb_build_object(
                 'bookings', t.bookings, 'previous_bookings', t.previous_bookings,
                 'revenue', t.revenue, 'previous_revenue', t.previous_revenue,
                 'bookings_growth', case when t.previous_bookings = 0 then 0 else round((t.bookings - t.previous_bookings) * 100.0 / t.previous_bookings, 1) end,
                 'revenue_growth', case when t.previous_revenue = 0 then 0 else round((t.revenue - t.previous_revenue) * 100.0 / t.previous_revenue, 1) end,
                 'average_basket', case when t.bookings = 0 then 0 else round(t.revenue / t.bookings, 2) end)
               from totals t),
    'month', (select jsonb_build_object(
                'bookings', count(*) filter (where date_trunc('month', created_at) = date_trunc('month', now())),
                'previous_bookings', count(*) filter (where date_trunc('month', created_at) = date_trunc('month', now()) - interval '1 month'),
                'revenue', coalesce(sum(total_amount) filter (where booking_status <> 'cancelled' and date_trunc('month', created_at) = date_trunc('month', now())), 0),
                'previous_revenue', coalesce(sum(total_amount) filter (where booking_status <> 'cancelled' and date_trunc('month', created_at) = date_trunc('month', now()) - interval '1 month'), 0))
              from b),
    'categories', (select coalesce(jsonb_agg(c order by c.revenue desc), '[]') from (
                     select v.category, count(*) as bookings,
                            coalesce(sum(x.total_amount) filter (where x.booking_status <> 'cancelled'), 0) as revenue
                     from cur x join public.vehicles v on v.id = x.vehicle_id
                     group by v.category) c),
    'top_vehicles', (select coalesce(jsonb_agg(t order by t.bookings desc, t.revenue desc), '[]') from (
                       select v.id, v.name, v.category, count(x.id) as bookings,
                              coalesce(sum(x.total_amount) filter (where x.booking_status <> 'cancelled'), 0) as revenue,
                              least(100, round(count(x.id) * 100.0 / greatest(1, extract(day from now() - v.created_at)::int + 1), 1)) as utilisation
                       from public.vehicles v join b x on x.vehicle_id = v.id
                       group by v.id order by count(x.id) desc limit 10) t),
    'customers', (select jsonb_build_object(
                    'total_users', u.total_users, 'active_users', u.active_users, 'repeat_customers', u.repeat_customers,
                    'retention_rate', case when u.total_users = 0 then 0 else round(u.repeat_customers * 100.0 / u.total_users, 1) end)
                  from users u),
    'daily', (select coalesce(jsonb_agg(jsonb_build_object('date', d::date, 'bookings',
                 (select count(*) from b where b.created_at::date = d::date)) order by d), '[]')
              from generate_series(current_date - 29, current_date, interval '1 day') d)
  ) into result;
  return result;
end
$$;

revoke execute on function public.admin_statistics(int) from anon;
