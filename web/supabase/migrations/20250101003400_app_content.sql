-- what the site stores besides bookings: the back office's settings (server-side instead of
-- only in a browser), messages from the contact and support forms, and the blog.

create table public.app_settings (
  section text primary key check (section in ('general', 'business', 'notifications', 'system')),
  value jsonb not null check (jsonb_typeof(value) = 'object'),
  updated_at timestamptz not null default now(),
  updated_by uuid references auth.users (id) on delete set null
);

insert into public.app_settings (section, value) values
  ('general', '{"companyName": "Kinshasa Prestige Auto", "companyEmail": "contact@example.cd", "companyPhone": "+243 81 000 0000", "currency": "USD", "timezone": "Africa/Kinshasa", "language": "fr", "companyAddress": "Boulevard du 30 Juin, Gombe, Kinshasa"}'),
  ('business', '{"defaultRentalDuration": 1, "minimumRentalDuration": 1, "maximumRentalDuration": 30, "advanceBookingDays": 90, "cancellationPolicy": "free_24h", "lateFeePercentage": 10, "securityDepositPercentage": 20}'),
  ('notifications', '{"adminEmailAddress": "admin@example.cd", "emailNotifications": true, "smsNotifications": false, "bookingConfirmations": true, "paymentReminders": true, "maintenanceAlerts": true, "lowStockAlerts": false}'),
  ('system', '{"sessionTimeout": 30, "maxLoginAttempts": 5, "backupFrequency": "daily", "dataRetentionDays": 365, "maintenanceMode": false, "allowRegistrations": true, "requireEmailVerification": true}');

-- the settings rules of back-office.md section 5, enforced whatever the browser checked.
create function public.check_app_settings() returns trigger
language plpgsql
as $$
declare
  v jsonb := new.value;
begin
  if new.section = 'general' then
    if coalesce(trim(v ->> 'companyName'), '') = '' then raise exception 'Le nom de l''entreprise est requis' using errcode = '23514'; end if;
    if coalesce(v ->> 'companyEmail', '') !~* '^[^@\s]+@[^@\s]+\.[^@\s]+$' then raise exception 'Email de l''entreprise invalide' using errcode = '23514'; end if;
    if coalesce(v ->> 'currency', '') not in ('EUR', 'USD', 'CDF') then raise exception 'Devise invalide' using errcode = '23514'; end if;
    if coalesce(v ->> 'language', '') not in ('fr', 'en') then raise exception 'Langue invalide' using errcode = '23514'; end if;
  elsif new.section = 'business' then
    if (v ->> 'minimumRentalDuration')::int < 1
       or (v ->> 'maximumRentalDuration')::int < (v ->> 'minimumRentalDuration')::int
       or (v ->> 'defaultRentalDuration')::int not between (v ->> 'minimumRentalDuration')::int and (v ->> 'maximumRentalDuration')::int then
      raise exception 'Durées de location incohérentes' using errcode = '23514';
    end if;
    if coalesce(v ->> 'cancellationPolicy', '') not in ('free_24h', 'free_48h', 'free_7d', 'no_refund') then
      raise exception 'Politique d''annulation invalide' using errcode = '23514';
    end if;
    if (v ->> 'lateFeePercentage')::numeric not between 0 and 100 or (v ->> 'securityDepositPercentage')::numeric not between 0 and 100 then
      raise exception 'Pourcentage invalide' using errcode = '23514';
    end if;
  elsif new.section = 'notifications' then
    if coalesce(v ->> 'adminEmailAddress', '') !~* '^[^@\s]+@[^@\s]+\.[^@\s]+$' then raise exception 'Email administrateur invalide' using errcode = '23514'; end if;
  elsif new.section = 'system' then
    if coalesce(v ->> 'backupFrequency', '') not in ('hourly', 'daily', 'weekly', 'monthly') then raise exception 'Fréquence de sauvegarde invalide' using errcode = '23514'; end if;
    if (v ->> 'sessionTimeout')::int < 5 or (v ->> 'maxLoginAttempts')::int < 1 or (v ->> 'dataRetentionDays')::int < 1 then
      raise exception 'Valeur système invalide' using errcode = '23514';
    end if;
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
  created_at timestamptz not null default now()
);

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
create trigger touch_updated_at before update on public.blog_posts for each row execute function public.touch_updated_at();
