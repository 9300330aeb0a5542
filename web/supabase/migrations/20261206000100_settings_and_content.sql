-- squashes: 20250101003000 20250101003100 20250101003200 20250101003300 20250101003400
-- squashes: 20250101003500 20250101003600 20250101003700 20250101003800 20250101004000
-- squashes: 20250101004100 20250101004200 20250101004300 20250101004400 20250101004500
-- squashes: 20250101004600 20250101004700 20250101004800 20250101005000 20250101005100
-- squashes: 20250101005300 20250101005600 20250101010300 20250101010400 20250101010500
-- squashes: 20250101010600 20250101010700 20250101010800 20250101010900 20261202000000
--
-- what the site stores besides bookings: the back office's settings (server-side instead of
-- only in a browser, and taking effect on the server), messages from the contact and support
-- forms with the back office's inbox, and the blog.

-- the back office's settings, one json object per section.
create table public.app_settings (
  section text primary key check (section in ('general', 'business', 'notifications', 'system')),
  value jsonb not null check (jsonb_typeof(value) = 'object'),
  updated_at timestamptz not null default now(),
  updated_by uuid references auth.users (id) on delete set null
);
alter table public.app_settings enable row level security;

insert into public.app_settings (section, value) values
  ('general', '{"companyName": "Kinshasa Prestige Auto", "companyEmail": "contact@example.cd", "companyPhone": "+243 81 000 0000", "currency": "USD", "timezone": "Africa/Kinshasa", "language": "fr", "companyAddress": "Boulevard du 30 Juin, Gombe, Kinshasa", "exchangeRates": {"USD": 1, "CDF": 2850, "EUR": 0.92}}'),
  ('business', '{"defaultRentalDuration": 1, "minimumRentalDuration": 1, "maximumRentalDuration": 30, "advanceBookingDays": 90, "cancellationPolicy": "free_24h", "lateFeePercentage": 10, "securityDepositPercentage": 20}'),
  ('notifications', '{"adminEmailAddress": "admin@example.cd", "emailNotifications": true, "smsNotifications": false, "bookingConfirmations": true, "paymentReminders": true, "maintenanceAlerts": true, "lowStockAlerts": false}'),
  ('system', '{"sessionTimeout": 30, "maxLoginAttempts": 5, "backupFrequency": "daily", "dataRetentionDays": 365, "maintenanceMode": false, "allowRegistrations": true, "requireEmailVerification": true}');

-- whether v[key] is a json number in [lo, hi] (hi null: no upper bound), whole when asked.
create function public.settings_number_in(v jsonb, key text, lo numeric, hi numeric, whole boolean) returns boolean
language sql immutable
as $$
  select case when jsonb_typeof(v -> key) is distinct from 'number' then false
              else (v ->> key)::numeric >= lo
                   and (hi is null or (v ->> key)::numeric <= hi)
                   and (not whole or (v ->> key)::numeric = trunc((v ->> key)::numeric)) end
$$;

-- the settings rules and ranges of back-office.md section 5, enforced whatever the browser
-- checked: every number must be a json number in its range and every toggle a json boolean.
create function public.check_app_settings() returns trigger
language plpgsql
as $$
declare
  v jsonb := new.value;
  k text;
begin
  if new.section = 'general' then
    if coalesce(trim(v ->> 'companyName'), '') = '' then raise exception 'Le nom de l''entreprise est requis' using errcode = '23514'; end if;
    if coalesce(v ->> 'companyEmail', '') !~* '^[^@\s]+@[^@\s]+\.[^@\s]+$' then raise exception 'Email de l''entreprise invalide' using errcode = '23514'; end if;
    if coalesce(v ->> 'currency', '') not in ('EUR', 'USD', 'CDF') then raise exception 'Devise invalide' using errcode = '23514'; end if;
    if coalesce(v ->> 'timezone', '') not in ('Europe/Paris', 'Africa/Kinshasa', 'America/New_York') then raise exception 'Fuseau horaire invalide' using errcode = '23514'; end if;
    if coalesce(v ->> 'language', '') not in ('fr', 'en') then raise exception 'Langue invalide' using errcode = '23514'; end if;
  elsif new.section = 'business' then
    foreach k in array array['defaultRentalDuration', 'minimumRentalDuration', 'maximumRentalDuration', 'advanceBookingDays'] loop
      if not public.settings_number_in(v, k, 1, null, true) then
        raise exception 'Durée invalide (%) : un nombre entier de jours, au moins 1', k using errcode = '23514';
      end if;
    end loop;
    if (v ->> 'maximumRentalDuration')::numeric < (v ->> 'minimumRentalDuration')::numeric
       or (v ->> 'defaultRentalDuration')::numeric not between (v ->> 'minimumRentalDuration')::numeric and (v ->> 'maximumRentalDuration')::numeric then
      raise exception 'Durées de location incohérentes' using errcode = '23514';
    end if;
    if coalesce(v ->> 'cancellationPolicy', '') not in ('free_24h', 'free_48h', 'free_7d', 'no_refund') then
      raise exception 'Politique d''annulation invalide' using errcode = '23514';
    end if;
    if not public.settings_number_in(v, 'lateFeePercentage', 0, 100, false) or not public.settings_number_in(v, 'securityDepositPercentage', 0, 100, false) then
      raise exception 'Pourcentage invalide : entre 0 et 100' using errcode = '23514';
    end if;
  elsif new.section = 'notifications' then
    if coalesce(v ->> 'adminEmailAddress', '') !~* '^[^@\s]+@[^@\s]+\.[^@\s]+$' then raise exception 'Email administrateur invalide' using errcode = '23514'; end if;
    foreach k in array array['emailNotifications', 'smsNotifications', 'bookingConfirmations', 'paymentReminders', 'maintenanceAlerts', 'lowStockAlerts'] loop
      if jsonb_typeof(v -> k) is distinct from 'boolean' then raise exception 'Option invalide (%)', k using errcode = '23514'; end if;
    end loop;
  elsif new.section = 'system' then
    if coalesce(v ->> 'backupFrequency', '') not in ('hourly', 'daily', 'weekly', 'monthly') then raise exception 'Fréquence de sauvegarde invalide' using errcode = '23514'; end if;
    if not public.settings_number_in(v, 'sessionTimeout', 5, 1440, true) then raise exception 'Délai de session invalide : entre 5 et 1440 minutes' using errcode = '23514'; end if;
    if not public.settings_number_in(v, 'maxLoginAttempts', 3, 10, true) then raise exception 'Tentatives de connexion invalides : entre 3 et 10' using errcode = '23514'; end if;
    if not public.settings_number_in(v, 'dataRetentionDays', 30, 3650, true) then raise exception 'Rétention des données invalide : entre 30 et 3650 jours' using errcode = '23514'; end if;
    foreach k in array array['maintenanceMode', 'allowRegistrations', 'requireEmailVerification'] loop
      if jsonb_typeof(v -> k) is distinct from 'boolean' then raise exception 'Option invalide (%)', k using errcode = '23514'; end if;
    end loop;
  end if;
  new.updated_at := now();
  new.updated_by := auth.uid();
  return new;
end
$$;

create trigger check_app_settings before insert or update on public.app_settings
for each row execute function public.check_app_settings();

create table public.contact_messages (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete set null default auth.uid(),
  source text not null default 'contact' check (source in ('contact', 'support')),
  name text not null check (length(trim(name)) >= 2),
  email text not null check (email ~* '^[^@\s]+@[^@\s]+\.[^@\s]+$'),
  phone text,
  subject text not null check (subject in ('reservation', 'information', 'support', 'other')),
  message text not null check (length(trim(message)) >= 2 and length(message) <= 5000),
  handled boolean not null default false,
  created_at timestamptz not null default now(),
  -- the back office's inbox: a message is read, replied to (the reply mailed to the sender
  -- through the outbox) and archived; `handled` says whether it was replied to or archived.
  read_at timestamptz,
  replied_at timestamptz,
  reply text check (reply is null or length(reply) <= 5000),
  replied_by uuid references auth.users (id) on delete set null,
  archived_at timestamptz
);
alter table public.contact_messages enable row level security;

create table public.blog_posts (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique,
  title text not null,
  excerpt text not null,
  content text not null,
  author text not null,
  category text,
  cover_image text,
  published boolean not null default false,
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table public.blog_posts enable row level security;

create trigger touch_updated_at before update on public.blog_posts for each row execute function public.touch_updated_at();

-- settings: administrators only.
create policy settings_admin on public.app_settings for all to authenticated using ((select public.is_admin())) with check ((select public.is_admin()));

-- contact messages: anyone writes (as themselves when signed in), only administrators read.
create policy contact_insert on public.contact_messages for insert to anon, authenticated
  with check (user_id is null or user_id = (select auth.uid()));

create policy contact_admin on public.contact_messages for all to authenticated using ((select public.is_admin())) with check ((select public.is_admin()));

-- blog: published posts are public.
create policy blog_read_published on public.blog_posts for select to anon, authenticated using (published or (select public.is_admin()));

create policy blog_admin on public.blog_posts for all to authenticated using ((select public.is_admin())) with check ((select public.is_admin()));

-- the back office's settings take effect on the server, not only in its page:
--   - the public part of them is readable by anyone through rpc/site_settings (the site's
--     company name, contact details, currency and rate, maintenance mode, booking rules);
--   - « Autoriser les inscriptions » off: the auth server's before-user-created hook
--     (public.before_user_created) refuses every sign-up with signup_disabled;
--   - « Mode maintenance » on: customers and visitors cannot book (PT503); administrators can;
--   - « Réservation à l'avance » (advanceBookingDays): nobody but an administrator books further
--     ahead than that;
--   - the display currency's rate (exchangeRates) is checked like the other settings.
--   (maintenance mode and the advance booking limit are held by check_booking_settings, with
--   the bookings.)

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

-- 3. the display currency's rates: a json object of positive numbers, the dollar at 1.
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

create index contact_messages_inbox_idx on public.contact_messages (created_at desc) where archived_at is null;

-- what administrators may change by hand: read and archived; the reply goes through
-- admin_reply_message, the sender's words and the dates stay as they came.
create function public.guard_contact_message() returns trigger
language plpgsql
as $$
begin
  if tg_op = 'UPDATE' and current_user in ('anon', 'authenticated')
     and (to_jsonb(new) - 'read_at' - 'archived_at' - 'handled') is distinct from (to_jsonb(old) - 'read_at' - 'archived_at' - 'handled') then
    raise exception 'Un message reçu ne se modifie pas : seuls « lu » et « archivé » changent (la réponse passe par admin_reply_message)'
      using errcode = '42501';
  end if;
  if tg_op = 'INSERT' and current_user in ('anon', 'authenticated') then
    -- a sent message arrives unread, unanswered, in the inbox, whatever the form sent.
    new.read_at := null; new.replied_at := null; new.reply := null; new.replied_by := null; new.archived_at := null;
  end if;
  new.handled := new.replied_at is not null or new.archived_at is not null;
  return new;
end
$$;

create trigger guard_contact_message before insert or update on public.contact_messages
for each row execute function public.guard_contact_message();

-- reply to a message: mailed to its sender (french, with their message quoted), noted on the
-- message (read, replied). administrators only.
create function public.admin_reply_message(message_id uuid, body text) returns public.contact_messages
language plpgsql volatile security definer set search_path = ''
as $$
declare
  m public.contact_messages;
  general jsonb := coalesce((select s.value from public.app_settings s where s.section = 'general'), '{}');
  subject_label text;
begin
  if not public.is_admin() then
    raise exception 'Accès refusé' using errcode = '42501';
  end if;
  body := trim(coalesce(body, ''));
  if length(body) < 2 or length(body) > 5000 then
    raise exception 'La réponse doit contenir entre 2 et 5000 caractères' using errcode = '23514';
  end if;
  select * into m from public.contact_messages c where c.id = message_id for update;
  if m.id is null then
    raise exception 'Message introuvable' using errcode = 'P0002';
  end if;
  subject_label := case m.subject when 'reservation' then 'votre réservation' when 'information' then 'votre demande d''information'
                                  when 'support' then 'votre demande d''assistance' else 'votre message' end;
  perform outbox.enqueue(
    'email', m.email,
    'Réponse à ' || subject_label || ' — ' || coalesce(general ->> 'companyName', 'Kinshasa Prestige Auto'),
    'Bonjour ' || m.name || E',\n\n' || body || E'\n\n' || coalesce(general ->> 'companyName', 'Kinshasa Prestige Auto')
    || E'\n' || concat_ws(' — ', general ->> 'companyPhone', general ->> 'companyEmail')
    || E'\n\n---\nVotre message du ' || to_char(m.created_at at time zone coalesce(general ->> 'timezone', 'Africa/Kinshasa'), 'DD/MM/YYYY "à" HH24:MI')
    || E' :\n' || regexp_replace(m.message, '^', '> ', 'gn'),
    'contact.reply');
  update public.contact_messages c
  set reply = body, replied_at = now(), replied_by = auth.uid(), read_at = coalesce(c.read_at, now())
  where c.id = message_id
  returning * into m;
  return m;
end
$$;
revoke execute on function public.admin_reply_message(uuid, text) from public, anon;
grant execute on function public.admin_reply_message(uuid, text) to authenticated;
