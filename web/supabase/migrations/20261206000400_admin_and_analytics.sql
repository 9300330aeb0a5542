-- squashes: 20250101003000 20250101003100 20250101003200 20250101003300 20250101003400
-- squashes: 20250101003500 20250101003600 20250101003700 20250101003800 20250101004000
-- squashes: 20250101004100 20250101004200 20250101004300 20250101004400 20250101004500
-- squashes: 20250101004600 20250101004700 20250101004800 20250101005000 20250101005100
-- squashes: 20250101005300 20250101005600 20250101010300 20250101010400 20250101010500
-- squashes: 20250101010600 20250101010700 20250101010800 20250101010900 20261202000000
--
-- the back office's figures and user management, computed in the database (administrators
-- only) instead of downloading every booking, vehicle and profile.

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

-- deleting a user from the back office deletes the account (auth.users), not only the profile
-- (which would leave a working login behind). administrators only, never their own account. the
-- profile goes with the account; its bookings of every kind are kept (a booking is business
-- data, never lost with a profile), carrying the customer's contact.
create function public.admin_delete_users(ids uuid[]) returns int
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
revoke execute on function public.admin_delete_users(uuid[]) from public, anon;
grant execute on function public.admin_delete_users(uuid[]) to authenticated;

-- the user management list: every profile with what the back office derives from its bookings
-- (all four kinds): count, total spent (cancelled excluded), last booking, active (a booking in
-- the last 30 days). one query instead of downloading every booking. administrators only; it
-- runs as the caller, so row-level security applies as well.
create function public.admin_users()
returns table (
  id uuid, user_id uuid, username text, email text, full_name text, phone text, role text,
  created_at timestamptz, updated_at timestamptz,
  booking_count bigint, total_spent numeric, last_booking timestamptz, is_active boolean
)
language plpgsql stable
as $$
begin
  if not public.is_admin() then
    raise exception 'Accès refusé' using errcode = '42501';
  end if;
  return query
  select p.id, p.user_id, p.username, p.email, p.full_name, p.phone, p.role, p.created_at, p.updated_at,
         count(b.id), coalesce(sum(b.total_amount) filter (where b.booking_status <> 'cancelled'), 0),
         max(b.created_at), coalesce(max(b.created_at) >= now() - interval '30 days', false)
  from public.profiles p
  left join public.all_bookings b on b.user_id = p.user_id
  group by p.id
  order by p.created_at desc;
end
$$;
revoke execute on function public.admin_users() from public, anon;
grant execute on function public.admin_users() to authenticated;

-- the analytics screen ('Rapports & Analyses', back-office.md sections 2 and 9) over a chosen
-- period, computed in the database instead of downloading every booking, vehicle and profile:
-- the period [start 00:00, end 23:59:59.999] against the period of equal length just before it.
-- administrators only; it runs as the caller (row-level security applies as well).
-- a vehicle's « utilisation » is the share of the period's days it was rented (confirmed, active
-- or completed rentals, each day counted once per rental, capped at 100 %) over the days it
-- existed in the period (not its bookings per day: one booking of a vehicle added yesterday
-- would read 100 %). the daily series covers the period's last 30 days.
create function public.admin_analytics(start_date date, end_date date)
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
                              least(100, round(100.0 * (
                                  select coalesce(sum(greatest(0, least(greatest(bk.end_date, bk.start_date + 1), admin_analytics.end_date + 1)
                                                               - greatest(bk.start_date, admin_analytics.start_date))), 0)
                                  from public.bookings bk
                                  where bk.vehicle_id = v.id and bk.booking_status in ('confirmed', 'active', 'completed'))
                                / greatest(1, (admin_analytics.end_date + 1) - greatest(admin_analytics.start_date, v.created_at::date)), 1)) as utilisation
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
revoke execute on function public.admin_analytics(date, date) from public, anon;
grant execute on function public.admin_analytics(date, date) to authenticated;
