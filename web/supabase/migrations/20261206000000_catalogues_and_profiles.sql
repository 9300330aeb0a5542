-- squashes: 20250101003000 20250101003100 20250101003200 20250101003300 20250101003400
-- squashes: 20250101003500 20250101003600 20250101003700 20250101003800 20250101004000
-- squashes: 20250101004100 20250101004200 20250101004300 20250101004400 20250101004500
-- squashes: 20250101004600 20250101004700 20250101004800 20250101005000 20250101005100
-- squashes: 20250101005300 20250101005600 20250101010300 20250101010400 20250101010500
-- squashes: 20250101010600 20250101010700 20250101010800 20250101010900 20261202000000
--
-- the rental site's schema, as one baseline by domain (this file and the six after it): each
-- table, policy, trigger and function is defined once, in its final form. the history that led
-- here (30 migrations, 2025-01 to 2026-12) is in git; `-- squashes:` above tells the server that
-- a database migrated by that history already holds all of this (docs/projects.md).
--
-- row-level security of the site's tables: the browser decides nothing; the policies (with the
-- guard triggers of the bookings and profiles) do. service_role bypasses them.
--
-- this file: the service catalogues, the profiles and who is an administrator.

-- service catalogues of the rental company: the one place prices live. booking triggers read
-- them, so a price sent by a browser is never trusted.
create table public.airport_services (
  code text primary key check (code in ('vip', 'standard', 'baggage')),
  position int not null unique,
  name text not null,
  description text not null,
  price numeric(10, 2) not null check (price >= 0)
);
alter table public.airport_services enable row level security;

create table public.diagnostic_services (
  code text primary key check (code in ('mechanical', 'electronic', 'climate', 'reset', 'programming', 'key_programming')),
  position int not null unique,
  name text not null,
  description text not null,
  price numeric(10, 2) not null check (price >= 0)
);
alter table public.diagnostic_services enable row level security;

create table public.premium_services (
  code text primary key check (code in ('private_driver', 'vip_concierge', 'business_pack')),
  position int not null unique,
  name text not null,
  description text not null,
  price_per_day numeric(10, 2) not null check (price_per_day >= 0)
);
alter table public.premium_services enable row level security;

insert into public.airport_services (code, position, name, description, price) values
  ('vip', 1, 'Service VIP', 'Assistance personnelle complète, accès au salon VIP et passage accéléré (fast-track).', 150),
  ('standard', 2, 'Service Standard', 'Accueil personnalisé et aide aux formalités ; salon VIP inclus pour les vols domestiques. Pour les personnes disposant déjà d''un véhicule.', 50),
  ('baggage', 3, 'Navette aéroport', 'Prise en charge et transport de vos bagages.', 65);

insert into public.diagnostic_services (code, position, name, description, price) values
  ('mechanical', 1, 'Diagnostic Mécanique', 'Contrôle complet du moteur, des freins, de la suspension et de la transmission.', 50),
  ('electronic', 2, 'Diagnostic Électronique', 'Lecture des codes défauts et contrôle des calculateurs embarqués.', 50),
  ('climate', 3, 'Diagnostic Climatisation', 'Contrôle du circuit, de la pression et de l''efficacité de la climatisation.', 35),
  ('reset', 4, 'Service de réinitialisation', 'Remise à zéro des témoins de maintenance et des alertes.', 40),
  ('programming', 5, 'Programmation Mémoire', 'Programmation des modules et mises à jour logicielles.', 60),
  ('key_programming', 6, 'Programmation des clés de luxe', 'Programmation et appairage de clés pour véhicules haut de gamme.', 45);

insert into public.premium_services (code, position, name, description, price_per_day) values
  ('private_driver', 1, 'Service Chauffeur Privé', 'Un chauffeur professionnel à votre disposition toute la journée.', 200),
  ('vip_concierge', 2, 'Conciergerie VIP', 'Réservations, accueil et organisation de vos déplacements.', 150),
  ('business_pack', 3, 'Pack Business', 'Véhicule haut de gamme avec chauffeur et assistance pour vos rendez-vous d''affaires.', 300);

-- customer and administrator profiles, created by a trigger on auth.users so no client has to.
create table public.profiles (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references auth.users (id) on delete cascade,
  username text,
  email text,
  full_name text,
  phone text,
  role text not null default 'user' check (role in ('user', 'admin')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- the customer's choices of booking messages, on the profile page's notifications tab.
  notify_email boolean not null default true,
  notify_sms boolean not null default false
);
alter table public.profiles enable row level security;

-- whether the caller is an administrator. security definer so that policies on profiles itself
-- can call it without recursing through row-level security.
--
-- an administrator who has enrolled a second factor is an administrator only in a session that
-- proved it (jwt claim aal = 'aal2'): a stolen password alone does not open the back office.
-- an administrator without a verified factor works at aal1 until they enrol one (supabase's
-- documented rls pattern for mfa). every admin-only policy and function of the app goes
-- through is_admin(), so they all follow the rule; the customer side of each policy
-- (user_id = auth.uid()) does not, so an administrator at aal1 still reads their own profile
-- (the back office needs the role to show its two-factor challenge).
--
-- any verified factor counts (the server enrols totp only), as gotrue's nextLevel does.
create function public.is_admin() returns boolean
language sql stable security definer set search_path = ''
as $$
  select exists (select 1 from public.profiles where user_id = auth.uid() and role = 'admin')
     and (
       coalesce(auth.jwt() ->> 'aal', '') = 'aal2'
       or not exists (
         select 1 from auth.mfa_factors f
         where f.user_id = auth.uid() and f.status = 'verified'
       )
     )
$$;

-- username: the part of the e-mail before @ (or user_ + 8 characters of the id);
-- full name: the sign-up metadata's full_name, else that same part.
-- phone: the sign-up form's metadata, else the account's own (a customer who signs up with a
-- phone number: `+` and the E.164 digits GoTrue stores).
create function public.handle_new_user() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  local_part text := nullif(split_part(coalesce(new.email, ''), '@', 1), '');
  fallback text := coalesce(local_part, 'user_' || left(new.id::text, 8));
begin
  insert into public.profiles (user_id, username, email, full_name, phone)
  values (
    new.id,
    fallback,
    new.email,
    coalesce(nullif(trim(new.raw_user_meta_data ->> 'full_name'), ''), fallback),
    coalesce(nullif(trim(new.raw_user_meta_data ->> 'phone'), ''), '+' || nullif(new.phone, ''))
  )
  on conflict (user_id) do nothing;
  return new;
end
$$;

create trigger on_auth_user_created after insert on auth.users
for each row execute function public.handle_new_user();

-- a confirmed e-mail change on the account is mirrored in the profile.
create function public.handle_user_email_change() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  update public.profiles set email = new.email where user_id = new.id;
  return new;
end
$$;

create trigger on_auth_user_email_changed after update of email on auth.users
for each row when (old.email is distinct from new.email)
execute function public.handle_user_email_change();

-- customers may change their name and phone only. what identifies a profile is the system's:
-- administrators change names, phones and other users' roles (never their own, nor so lock the
-- back office out of its last administrator); the e-mail follows the account
-- (handle_user_email_change runs as the owner).
create function public.protect_profile() returns trigger
language plpgsql
as $$
begin
  if current_user in ('anon', 'authenticated') then
    if new.email is distinct from old.email
       or new.user_id is distinct from old.user_id
       or new.username is distinct from old.username
       or new.id is distinct from old.id
       or new.created_at is distinct from old.created_at then
      raise exception 'Seuls le nom et le téléphone peuvent être modifiés'
        using errcode = '42501', hint = 'the e-mail follows the account; id, user_id and username are fixed';
    end if;
    if new.role is distinct from old.role then
      if not public.is_admin() then
        raise exception 'Seuls le nom et le téléphone peuvent être modifiés'
          using errcode = '42501', hint = 'the role is changed by an administrator';
      elsif old.user_id = auth.uid() then
        raise exception 'Vous ne pouvez pas modifier votre propre rôle' using errcode = '22023';
      end if;
    end if;
  end if;
  new.updated_at := now();
  return new;
end
$$;

create trigger protect_profile before update on public.profiles
for each row execute function public.protect_profile();

-- keeps updated_at, for the tables whose rows have no other trigger doing it.
create function public.touch_updated_at() returns trigger
language plpgsql
as $$
begin
  new.updated_at := now();
  return new;
end
$$;

-- catalogues: everyone reads, administrators write.
create policy catalogue_read on public.airport_services for select to anon, authenticated using (true);

create policy catalogue_admin on public.airport_services for all to authenticated using ((select public.is_admin())) with check ((select public.is_admin()));

create policy catalogue_read on public.diagnostic_services for select to anon, authenticated using (true);

create policy catalogue_admin on public.diagnostic_services for all to authenticated using ((select public.is_admin())) with check ((select public.is_admin()));

create policy catalogue_read on public.premium_services for select to anon, authenticated using (true);

create policy catalogue_admin on public.premium_services for all to authenticated using ((select public.is_admin())) with check ((select public.is_admin()));

-- profiles: each user reads and edits their own (the trigger limits edits to name and phone);
-- a user may create their own missing profile, as a plain user only; administrators do all.
create policy profile_read_own on public.profiles for select to authenticated using (user_id = (select auth.uid()) or (select public.is_admin()));

create policy profile_insert_own on public.profiles for insert to authenticated with check ((user_id = (select auth.uid()) and role = 'user') or (select public.is_admin()));

create policy profile_update_own on public.profiles for update to authenticated using (user_id = (select auth.uid()) or (select public.is_admin())) with check (user_id = (select auth.uid()) or (select public.is_admin()));

create policy profile_delete_admin on public.profiles for delete to authenticated using ((select public.is_admin()));

-- a confirmed phone change on the account is mirrored in the profile, as an e-mail change is.
create function public.handle_user_phone_change() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  update public.profiles set phone = '+' || new.phone where user_id = new.id;
  return new;
end
$$;
revoke execute on function public.handle_user_phone_change() from public, anon, authenticated, service_role;

create trigger on_auth_user_phone_changed after update of phone on auth.users
for each row when (old.phone is distinct from new.phone and nullif(new.phone, '') is not null)
execute function public.handle_user_phone_change();

-- anonymous users (supabase.auth.signInAnonymously, when the auth server allows it) run as the
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

create policy permanent_users_insert on public.profiles as restrictive for insert to authenticated
  with check ((select public.is_permanent_user()));
create policy permanent_users_update on public.profiles as restrictive for update to authenticated
  using ((select public.is_permanent_user())) with check ((select public.is_permanent_user()));
create policy permanent_users_delete on public.profiles as restrictive for delete to authenticated
  using ((select public.is_permanent_user()));
