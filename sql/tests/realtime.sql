-- the publication of /realtime/v1 (V49, V50): the four kinds of bookings are in it, so the site
-- can follow them live, and their old rows carry only the primary key.
begin;
\ir setup.psql
select plan(8);

select ok(exists (select from pg_publication_tables where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = t), format('%s is published to realtime', t))
from unnest(array['bookings', 'airport_bookings', 'diagnostic_bookings', 'premium_service_bookings']) t;

select is(c.relreplident, 'd', format('%s keeps the default replica identity (old rows carry only the key)', c.relname))
from pg_class c
where c.oid in ('public.bookings'::regclass, 'public.airport_bookings'::regclass, 'public.diagnostic_bookings'::regclass, 'public.premium_service_bookings'::regclass)
order by c.relname;

select * from finish();
rollback;
