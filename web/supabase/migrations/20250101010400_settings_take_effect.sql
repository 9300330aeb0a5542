-- the back office's settings take effect on the server, not only in its page:
--   - the public part of them is readable by anyone through rpc/site_settings (the site's
--     company name, contact details, currency and rate, maintenance mode, booking rules);
--   - « Autoriser les inscriptions » off: the auth server's before-user-created hook
--     (public.before_user_created) refuses every sign-up with signup_disabled;
--   - « Mode maintenance » on: customers and visitors cannot book (PT503); administrators can;
--   - « Réservation à l'avance » (advanceBookingDays): nobody but an administrator books further
--     ahead than that;
--   - the display currency's rate (exchangeRates) is checked like the other settings.

-- 1. what the public site needs to know.
create function public.site_settings() returns jsonb
language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'companyName', g.value ->> 'companyName',
    'companyEmail', g.value ->> 'companyEmail',
    'companyPhone', g.value ->> 'companyPhone',
    'companyAddress', g.value ->> 'companyAddress',
    'currency', coalesce(g.value ->> 'currency', 'USD'),
    'exchangeRate', coalesce((g.value -> 'exchangeRates' ->> coalesce(g.value ->> 'currency', 'USD'))::numeric, 1),
    'maintenanceMode', coalesce((s.value ->> 'maintenanceMode')::boolean, false),
    'allowRegistrations', coalesce((s.value ->> 'allowRegistrations')::boolean, true),
    'minimumRentalDuration', coalesce((b.value ->> 'minimumRentalDuration')::int, 1),
    'maximumRentalDuration', coalesce((b.value ->> 'maximumRentalDuration')::int, 30),
    'advanceBookingDays', coalesce((b.value ->> 'advanceBookingDays')::int, 90))
  from (select 1) one
  left join public.app_settings g on g.section = 'general'
  left join public.app_settings s on s.section = 'system'
  left join public.app_settings b on b.section = 'business'
$$;
grant execute on function public.site_settings() to anon, authenticated, service_role;

create function public.setting(section text, key text) returns jsonb
language sql stable security definer set search_path = ''
as $$ select s.value -> setting.key from public.app_settings s where s.section = setting.section $$;
revoke execute on function public.setting(text, text) from public, anon, authenticated, service_role;

-- 2. sign-ups: the auth server's before-user-created hook (HOOK_BEFORE_USER_CREATED_URI =
-- pg-functions://postgres/public/before_user_created).
create function public.before_user_created(event jsonb) returns jsonb
language plpgsql stable security definer set search_path = ''
as $$
begin
  if coalesce((public.setting('system', 'allowRegistrations'))::boolean, true) then
    return '{}';
  end if;
  return jsonb_build_object('error', jsonb_build_object(
    'http_code', 422,
    'error_code', 'signup_disabled',
    'message', 'Les inscriptions sont fermées pour le moment. Contactez-nous au '
               || coalesce(public.setting('general', 'companyPhone') #>> '{}', '+243 81 000 0000') || '.'));
end
$$;
revoke execute on function public.before_user_created(jsonb) from public, anon, authenticated, service_role;

-- 3. maintenance mode and how far ahead one may book, for the four kinds.
create function public.check_booking_settings() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  first_day date;
  old_first_day date;
  ahead int;
begin
  if not public.booking_rules_apply() or public.is_admin() then
    return new;
  end if;
  if tg_op = 'INSERT' and coalesce((public.setting('system', 'maintenanceMode'))::boolean, false) then
    raise exception 'Le site est en maintenance : les réservations reprennent bientôt. Contactez-nous au %',
      coalesce(public.setting('general', 'companyPhone') #>> '{}', '+243 81 000 0000')
      using errcode = 'PT503', hint = 'maintenanceMode of the system settings';
  end if;
  first_day := public.booking_first_day(tg_table_name, to_jsonb(new));
  if tg_op = 'UPDATE' then
    old_first_day := public.booking_first_day(tg_table_name, to_jsonb(old));
  end if;
  ahead := coalesce((public.setting('business', 'advanceBookingDays'))::int, 90);
  if first_day is distinct from old_first_day and first_day > current_date + ahead then
    raise exception 'Les réservations sont ouvertes jusqu''à % jours à l''avance', ahead
      using errcode = '22023', hint = 'advanceBookingDays of the business settings';
  end if;
  return new;
end
$$;

create trigger booking_settings before insert or update on public.bookings
for each row execute function public.check_booking_settings();
create trigger booking_settings before insert or update on public.airport_bookings
for each row execute function public.check_booking_settings();
create trigger booking_settings before insert or update on public.diagnostic_bookings
for each row execute function public.check_booking_settings();
create trigger booking_settings before insert or update on public.premium_service_bookings
for each row execute function public.check_booking_settings();

-- 4. the display currency's rates: a json object of positive numbers, the dollar at 1.
create function public.check_exchange_rates() returns trigger
language plpgsql
as $$
declare
  rates jsonb := new.value -> 'exchangeRates';
  k text;
begin
  if new.section <> 'general' or rates is null then
    return new;
  end if;
  if jsonb_typeof(rates) <> 'object' then
    raise exception 'Taux de change invalides' using errcode = '23514';
  end if;
  foreach k in array array['USD', 'CDF', 'EUR'] loop
    if not public.settings_number_in(rates, k, 0.000001, 1000000, false) then
      raise exception 'Taux de change invalide (%) : un nombre positif', k using errcode = '23514';
    end if;
  end loop;
  if (rates ->> 'USD')::numeric <> 1 then
    raise exception 'Le dollar est la devise de référence : son taux vaut 1' using errcode = '23514';
  end if;
  return new;
end
$$;

create trigger check_exchange_rates before insert or update on public.app_settings
for each row execute function public.check_exchange_rates();
