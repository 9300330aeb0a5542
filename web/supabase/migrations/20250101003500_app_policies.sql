-- row-level security of the site's tables. the browser decides nothing: these policies (with
-- the guard triggers of the bookings and profiles) do. service_role bypasses them.

alter table public.profiles enable row level security;
alter table public.vehicles enable row level security;
alter table public.bookings enable row level security;
alter table public.airport_bookings enable row level security;
alter table public.diagnostic_bookings enable row level security;
alter table public.premium_service_bookings enable row level security;
alter table public.airport_services enable row level security;
alter table public.diagnostic_services enable row level security;
alter table public.premium_services enable row level security;
alter table public.app_settings enable row level security;
alter table public.contact_messages enable row level security;
alter table public.blog_posts enable row level security;

-- catalogues: everyone reads, administrators write.
create policy catalogue_read on public.airport_services for select to anon, authenticated using (true);
create policy catalogue_admin on public.airport_services for all to authenticated using (public.is_admin()) with check (public.is_admin());
create policy catalogue_read on public.diagnostic_services for select to anon, authenticated using (true);
create policy catalogue_admin on public.diagnostic_services for all to authenticated using (public.is_admin()) with check (public.is_admin());
create policy catalogue_read on public.premium_services for select to anon, authenticated using (true);
create policy catalogue_admin on public.premium_services for all to authenticated using (public.is_admin()) with check (public.is_admin());

-- profiles: each user reads and edits their own (the trigger limits edits to name and phone);
-- a user may create their own missing profile, as a plain user only; administrators do all.
create policy profile_read_own on public.profiles for select to authenticated using (user_id = auth.uid() or public.is_admin());
create policy profile_insert_own on public.profiles for insert to authenticated with check ((user_id = auth.uid() and role = 'user') or public.is_admin());
create policy profile_update_own on public.profiles for update to authenticated using (user_id = auth.uid() or public.is_admin()) with check (user_id = auth.uid() or public.is_admin());
create policy profile_delete_admin on public.profiles for delete to authenticated using (public.is_admin());

-- vehicles: the public sees the available fleet; a customer also sees the vehicles of their own
-- bookings; administrators see and change everything.
create policy vehicle_read_available on public.vehicles for select to anon, authenticated using (rental_status = 'available');
create policy vehicle_read_booked on public.vehicles for select to authenticated
  using (exists (select 1 from public.bookings b where b.vehicle_id = vehicles.id and b.user_id = auth.uid()));
create policy vehicle_admin on public.vehicles for all to authenticated using (public.is_admin()) with check (public.is_admin());

-- vehicle bookings: a signed-in user reads and creates their own (pending); a visitor may create
-- an anonymous one with contact details but reads none; cancelling is an update the guard
-- trigger restricts; administrators do all.
create policy booking_read_own on public.bookings for select to authenticated using (user_id = auth.uid() or public.is_admin());
create policy booking_insert_own on public.bookings for insert to authenticated
  with check ((user_id = auth.uid() and booking_status = 'pending') or public.is_admin());
create policy booking_insert_public on public.bookings for insert to anon with check (user_id is null and booking_status = 'pending');
create policy booking_cancel_own on public.bookings for update to authenticated
  using ((user_id = auth.uid() and booking_status = 'pending') or public.is_admin())
  with check ((user_id = auth.uid() and booking_status = 'cancelled') or public.is_admin());
create policy booking_delete_admin on public.bookings for delete to authenticated using (public.is_admin());

-- the three service bookings: signed-in users only.
create policy booking_read_own on public.airport_bookings for select to authenticated using (user_id = auth.uid() or public.is_admin());
create policy booking_insert_own on public.airport_bookings for insert to authenticated with check ((user_id = auth.uid() and booking_status = 'pending') or public.is_admin());
create policy booking_cancel_own on public.airport_bookings for update to authenticated
  using ((user_id = auth.uid() and booking_status = 'pending') or public.is_admin())
  with check ((user_id = auth.uid() and booking_status = 'cancelled') or public.is_admin());
create policy booking_delete_admin on public.airport_bookings for delete to authenticated using (public.is_admin());

create policy booking_read_own on public.diagnostic_bookings for select to authenticated using (user_id = auth.uid() or public.is_admin());
create policy booking_insert_own on public.diagnostic_bookings for insert to authenticated with check ((user_id = auth.uid() and booking_status = 'pending') or public.is_admin());
create policy booking_cancel_own on public.diagnostic_bookings for update to authenticated
  using ((user_id = auth.uid() and booking_status = 'pending') or public.is_admin())
  with check ((user_id = auth.uid() and booking_status = 'cancelled') or public.is_admin());
create policy booking_delete_admin on public.diagnostic_bookings for delete to authenticated using (public.is_admin());

create policy booking_read_own on public.premium_service_bookings for select to authenticated using (user_id = auth.uid() or public.is_admin());
create policy booking_insert_own on public.premium_service_bookings for insert to authenticated with check ((user_id = auth.uid() and booking_status = 'pending') or public.is_admin());
create policy booking_cancel_own on public.premium_service_bookings for update to authenticated
  using ((user_id = auth.uid() and booking_status = 'pending') or public.is_admin())
  with check ((user_id = auth.uid() and booking_status = 'cancelled') or public.is_admin());
create policy booking_delete_admin on public.premium_service_bookings for delete to authenticated using (public.is_admin());

-- settings: administrators only.
create policy settings_admin on public.app_settings for all to authenticated using (public.is_admin()) with check (public.is_admin());

-- contact messages: anyone writes (as themselves when signed in), only administrators read.
create policy contact_insert on public.contact_messages for insert to anon, authenticated
  with check (user_id is null or user_id = auth.uid());
create policy contact_admin on public.contact_messages for all to authenticated using (public.is_admin()) with check (public.is_admin());

-- blog: published posts are public.
create policy blog_read_published on public.blog_posts for select to anon, authenticated using (published or public.is_admin());
create policy blog_admin on public.blog_posts for all to authenticated using (public.is_admin()) with check (public.is_admin());
