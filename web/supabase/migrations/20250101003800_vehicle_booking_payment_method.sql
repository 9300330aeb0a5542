-- what the reservation dialog (customer-site.md sections 3, 5 and 7) records with a vehicle
-- booking: how the customer means to pay, plus the pick-up time and number of people it asks.
-- no payment is taken online: these columns tell the team how to settle it. card numbers, cvv
-- and expiry never reach the database. book_vehicle takes them as optional parameters (older
-- callers, which name only the first ten, keep working) and now also refuses dates on which a
-- confirmed or active rental already holds the vehicle.

alter table public.bookings
  add column payment_method text check (payment_method in ('card', 'mobile', 'bank', 'digital_wallet')),
  add column mobile_money_provider text check (mobile_money_provider in ('mpesa', 'orange', 'airtel')),
  add column mobile_money_phone text,
  -- the reference the customer quotes on a bank transfer (no 0/O/1/I to misread).
  add column payment_reference text check (payment_reference ~ '^VIR-[A-HJ-NP-Z2-9]{8}$'),
  add column pickup_time time,
  add column passengers int check (passengers between 1 and 50),
  -- provider and phone belong to mobile money only, and mobile money needs both.
  add constraint bookings_mobile_money check (
    case when payment_method = 'mobile'
         then mobile_money_provider is not null and length(trim(coalesce(mobile_money_phone, ''))) >= 6
         else mobile_money_provider is null and mobile_money_phone is null end
  ),
  -- a bank transfer has a reference, and only a bank transfer.
  add constraint bookings_bank_reference check ((payment_reference is not null) = coalesce(payment_method = 'bank', false));

create unique index bookings_payment_reference_key on public.bookings (payment_reference) where payment_reference is not null;

-- replaced rather than overloaded: postgrest resolves an rpc by its argument names, and two
-- candidates would make the old calls ambiguous. the reservation dialog generates the transfer
-- reference it shows before confirming and sends it; other callers choosing a bank transfer get
-- one generated here.
drop function public.book_vehicle(uuid, date, date, text, text, text, text, text, text, text);

create function public.book_vehicle(
  vehicle_id uuid,
  start_date date,
  end_date date,
  pickup_location text default null,
  dropoff_location text default null,
  customer_name text default null,
  customer_email text default null,
  customer_phone text default null,
  driver_license_number text default null,
  special_requests text default null,
  payment_method text default null,
  mobile_money_provider text default null,
  mobile_money_phone text default null,
  payment_reference text default null,
  pickup_time time default null,
  passengers int default null
)
returns table (id uuid, total_amount numeric, days int, discount_percent numeric, booking_status text)
language plpgsql volatile security definer set search_path = ''
as $$
declare
  booking public.bookings;
  q record;
  reference text := upper(nullif(trim(book_vehicle.payment_reference), ''));
begin
  if book_vehicle.start_date < current_date then
    raise exception 'La date de début ne peut pas être dans le passé' using errcode = '22023';
  end if;
  if book_vehicle.end_date < book_vehicle.start_date then
    raise exception 'La date de fin doit suivre la date de début' using errcode = '22023';
  end if;
  if nullif(trim(book_vehicle.customer_name), '') is null or nullif(trim(book_vehicle.customer_email), '') is null
     or nullif(trim(book_vehicle.customer_phone), '') is null or nullif(trim(book_vehicle.driver_license_number), '') is null then
    raise exception 'Veuillez remplir tous les champs obligatoires' using errcode = '22023';
  end if;
  if book_vehicle.customer_email !~* '^[^@\s]+@[^@\s]+\.[^@\s]+$' then
    raise exception 'Format d''email invalide' using errcode = '22023';
  end if;
  if book_vehicle.payment_method is not null and book_vehicle.payment_method not in ('card', 'mobile', 'bank', 'digital_wallet') then
    raise exception 'Moyen de paiement invalide' using errcode = '22023';
  end if;
  if not exists (select 1 from public.vehicles v where v.id = book_vehicle.vehicle_id and v.rental_status = 'available') then
    raise exception 'Véhicule introuvable ou indisponible' using errcode = 'PT404';
  end if;
  -- the same overlap rule as the search and the exclusion constraint: [start, end).
  if exists (
    select 1 from public.bookings b
    where b.vehicle_id = book_vehicle.vehicle_id and b.booking_status in ('confirmed', 'active')
      and daterange(b.start_date, greatest(b.end_date, b.start_date + 1), '[)')
          && daterange(book_vehicle.start_date, greatest(book_vehicle.end_date, book_vehicle.start_date + 1), '[)')
  ) then
    raise exception 'Ce véhicule est déjà réservé sur ces dates'
      using errcode = 'PT409', detail = 'A confirmed or active booking of this vehicle overlaps these dates.';
  end if;
  if book_vehicle.payment_method = 'bank' and reference is null then
    select 'VIR-' || string_agg(substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 1 + floor(random() * 32)::int, 1), '')
      into reference from generate_series(1, 8);
  elsif book_vehicle.payment_method is distinct from 'bank' then
    reference := null;
  end if;
  insert into public.bookings (user_id, vehicle_id, start_date, end_date, pickup_location, dropoff_location,
                               customer_name, customer_email, customer_phone, driver_license_number, special_requests,
                               payment_method, mobile_money_provider, mobile_money_phone, payment_reference,
                               pickup_time, passengers, booking_status)
  values (auth.uid(), book_vehicle.vehicle_id, book_vehicle.start_date, book_vehicle.end_date,
          nullif(trim(book_vehicle.pickup_location), ''), nullif(trim(book_vehicle.dropoff_location), ''),
          trim(book_vehicle.customer_name), lower(trim(book_vehicle.customer_email)), trim(book_vehicle.customer_phone),
          upper(trim(book_vehicle.driver_license_number)), nullif(trim(book_vehicle.special_requests), ''),
          book_vehicle.payment_method,
          case when book_vehicle.payment_method = 'mobile' then book_vehicle.mobile_money_provider end,
          case when book_vehicle.payment_method = 'mobile' then nullif(trim(book_vehicle.mobile_money_phone), '') end,
          reference, book_vehicle.pickup_time, book_vehicle.passengers, 'pending')
  returning * into booking;
  select * into q from public.quote_vehicle_rental(booking.vehicle_id, booking.start_date, booking.end_date);
  return query select booking.id, booking.total_amount, q.days, q.discount_percent, booking.booking_status;
end
$$;
