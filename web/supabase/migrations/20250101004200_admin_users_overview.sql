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
