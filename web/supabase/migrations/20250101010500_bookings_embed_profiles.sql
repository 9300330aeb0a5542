-- the embeds back-office.md section 7 reads, as written:
--   bookings?select=*,profiles(full_name,email,phone,role),vehicles(...)
--   airport_bookings?select=*,profiles(...)
--   profiles?select=*,bookings(id,total_amount,created_at,booking_status)
-- the booking tables referenced auth.users only, which /rest/v1 does not expose, so there was no
-- relationship to embed (PGRST200). each now also references the customer's profile by its
-- user_id (unique), the relationship /rest/v1 follows.
--
-- deleting an account still works as before (the profile goes with the account, the booking's
-- user_id is emptied or the booking removed by the reference to auth.users); deleting a profile
-- alone while its user has bookings is refused (23503): delete the account instead.

-- a booking whose account lost its profile would break the reference: give those back a profile.
insert into public.profiles (user_id, username, email, full_name)
select u.id, coalesce(nullif(split_part(coalesce(u.email, ''), '@', 1), ''), 'user_' || left(u.id::text, 8)), u.email,
       coalesce(nullif(split_part(coalesce(u.email, ''), '@', 1), ''), 'user_' || left(u.id::text, 8))
from auth.users u
where not exists (select 1 from public.profiles p where p.user_id = u.id)
  and (exists (select 1 from public.bookings b where b.user_id = u.id)
       or exists (select 1 from public.airport_bookings b where b.user_id = u.id)
       or exists (select 1 from public.diagnostic_bookings b where b.user_id = u.id)
       or exists (select 1 from public.premium_service_bookings b where b.user_id = u.id))
on conflict (user_id) do nothing;

alter table public.bookings
  add constraint bookings_profile_fkey foreign key (user_id) references public.profiles (user_id);
alter table public.airport_bookings
  add constraint airport_bookings_profile_fkey foreign key (user_id) references public.profiles (user_id);
alter table public.diagnostic_bookings
  add constraint diagnostic_bookings_profile_fkey foreign key (user_id) references public.profiles (user_id);
alter table public.premium_service_bookings
  add constraint premium_service_bookings_profile_fkey foreign key (user_id) references public.profiles (user_id);
