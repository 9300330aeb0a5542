-- the back office's settings ranges (back-office.md section 5) enforced by the database in full:
-- v34 checked the choices and a few lower bounds only. every number must be a json number in its
-- range and every toggle a json boolean, whatever the browser sent.

-- whether v[key] is a json number in [lo, hi] (hi null: no upper bound), whole when asked.
create function public.settings_number_in(v jsonb, key text, lo numeric, hi numeric, whole boolean) returns boolean
language sql immutable
as $$
  select case when jsonb_typeof(v -> key) is distinct from 'number' then false
              else (v ->> key)::numeric >= lo
                   and (hi is null or (v ->> key)::numeric <= hi)
                   and (not whole or (v ->> key)::numeric = trunc((v ->> key)::numeric)) end
$$;

create or replace function public.check_app_settings() returns trigger
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
