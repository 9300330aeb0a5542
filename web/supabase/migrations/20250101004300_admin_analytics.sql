-- the analytics screen ('Rapports & Analyses', back-office.md sections 2 and 9) over a chosen
-- period, computed in the database instead of downloading every booking, vehicle and profile:
-- the period [start 00:00, end 23:59:59.999] against the period of equal length just before it.
-- administrators only; it runs as the caller (row-level security applies as well).

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
                              least(100, round(count(x.id) * 100.0 / greatest(1, extract(day from now() - v.created_at)::int), 1)) as utilisation
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
