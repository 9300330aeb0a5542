-- Anonymous users (supabase.auth.signInAnonymously, when the auth server allows it) run as the
-- `authenticated` role with `is_anonymous: true` in their token. They may look around the site,
-- but nothing they write is kept under an account they cannot come back to: bookings of every
-- kind, whichever way they are made (REST, `book_vehicle`, the forms' RPCs), and changes to
-- their profile are refused. The tables' policies follow Supabase's documented pattern
-- (restrictive policies on `is_anonymous`, so every permissive policy still applies as well);
-- a trigger on the booking tables also covers the security-definer functions that write them.

create function public.is_permanent_user() returns boolean
language sql stable
set search_path = ''
as $$
  select coalesce((auth.jwt() ->> 'is_anonymous')::boolean, false) is false
$$;

do $$
declare
  t text;
begin
  foreach t in array array['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings', 'profiles'] loop
    execute format('create policy permanent_users_insert on public.%I as restrictive for insert to authenticated
      with check ((select public.is_permanent_user()))', t);
    execute format('create policy permanent_users_update on public.%I as restrictive for update to authenticated
      using ((select public.is_permanent_user())) with check ((select public.is_permanent_user()))', t);
    execute format('create policy permanent_users_delete on public.%I as restrictive for delete to authenticated
      using ((select public.is_permanent_user()))', t);
  end loop;
end
$$;

create function public.refuse_anonymous_booking() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if not public.is_permanent_user() then
    raise exception 'Un compte invité ne peut pas réserver : créez un compte ou connectez-vous.'
      using errcode = '42501';
  end if;
  return new;
end
$$;

do $$
declare
  t text;
begin
  foreach t in array array['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings'] loop
    execute format('create trigger refuse_anonymous_booking before insert or update on public.%I
      for each row execute function public.refuse_anonymous_booking()', t);
  end loop;
end
$$;
