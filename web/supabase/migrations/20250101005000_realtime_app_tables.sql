-- the rental tables whose changes the site follows live (issue #11): a customer's « Mes
-- réservations » shows a status an administrator sets, the back office's bookings list and
-- dashboard show a new booking of any of the four kinds, without a reload. /realtime/v1 streams
-- the changes of the tables of the publication `supabase_realtime` to the subscribers whose
-- row-level-security policies let them `select` the row (V35: a customer their own bookings,
-- an administrator all of them).
--
-- replica identity stays the default (the primary key): the old row of an update or a delete
-- then carries only `id`, never a customer's contact details or amounts.
--
-- V49 creates the publication; this file also applies where it already lists a table (a
-- database where someone added it by hand, as the Supabase dashboard does).
do $$
declare
  t text;
begin
  if not exists (select from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  foreach t in array array['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings'] loop
    if not exists (
      select from pg_publication_tables
      where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = t
    ) then
      execute format('alter publication supabase_realtime add table public.%I', t);
    end if;
  end loop;
end
$$;
