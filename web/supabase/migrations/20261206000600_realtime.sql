-- squashes: 20250101003000 20250101003100 20250101003200 20250101003300 20250101003400
-- squashes: 20250101003500 20250101003600 20250101003700 20250101003800 20250101004000
-- squashes: 20250101004100 20250101004200 20250101004300 20250101004400 20250101004500
-- squashes: 20250101004600 20250101004700 20250101004800 20250101005000 20250101005100
-- squashes: 20250101005300 20250101005600 20250101010300 20250101010400 20250101010500
-- squashes: 20250101010600 20250101010700 20250101010800 20250101010900 20261202000000
--
-- the rental tables whose changes the site follows live: a customer's « Mes réservations » shows
-- a status an administrator sets, the back office's bookings list and dashboard show a new
-- booking of any of the four kinds, without a reload. /realtime/v1 streams the changes of the
-- tables of the publication `supabase_realtime` (the platform creates it) to the subscribers
-- whose row-level-security policies let them `select` the row (a customer their own bookings,
-- an administrator all of them).
--
-- replica identity stays the default (the primary key): the old row of an update or a delete
-- then carries only `id`, never a customer's contact details or amounts.
alter publication supabase_realtime
  add table public.bookings, public.airport_bookings, public.diagnostic_bookings, public.premium_service_bookings;
