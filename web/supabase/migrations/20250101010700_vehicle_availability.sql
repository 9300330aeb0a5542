-- the taken dates of a vehicle for its public page (/fleet/:id): the confirmed and active rentals
-- and the pending requests still holding their dates (V51's hold), as date ranges [start, end)
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
