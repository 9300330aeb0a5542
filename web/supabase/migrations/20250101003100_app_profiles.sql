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
  updated_at timestamptz not null default now()
);

-- whether the caller is an administrator. security definer so that policies on profiles itself
-- can call it without recursing through row-level security.
create function public.is_admin() returns boolean
language sql stable security definer set search_path = ''
as $$
  select exists (select 1 from public.profiles where user_id = auth.uid() and role = 'admin')
$$;

-- username: the part of the e-mail before @ (or user_ + 8 characters of the id);
-- full name: the sign-up metadata's full_name, else that same part.
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
    nullif(trim(new.raw_user_meta_data ->> 'phone'), '')
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

-- customers may change their name and phone only: role, email, username and user_id are the
-- administrator's (or the system's) to change.
create function public.protect_profile() returns trigger
language plpgsql
as $$
begin
  if current_user in ('anon', 'authenticated') and not public.is_admin() then
    if new.role is distinct from old.role
       or new.email is distinct from old.email
       or new.user_id is distinct from old.user_id
       or new.username is distinct from old.username
       or new.id is distinct from old.id
       or new.created_at is distinct from old.created_at then
      raise exception 'Seuls le nom et le téléphone peuvent être modifiés'
        using errcode = '42501', hint = 'role, email and user_id are changed by an administrator';
    end if;
  end if;
  new.updated_at := now();
  return new;
end
$$;

create trigger protect_profile before update on public.profiles
for each row execute function public.protect_profile();
