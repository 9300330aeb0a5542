-- A customer who signs up or in with a phone number (issue #15) keeps it in the profile: a new
-- account's profile takes the number from the sign-up form's metadata, else the account's own
-- (`+` and the E.164 digits GoTrue stores), and a confirmed phone change on the account is
-- mirrored in the profile, as an e-mail change is (V31).

create or replace function public.handle_new_user() returns trigger
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

create function public.handle_user_phone_change() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  update public.profiles set phone = '+' || new.phone where user_id = new.id;
  return new;
end
$$;

create trigger on_auth_user_phone_changed after update of phone on auth.users
for each row when (old.phone is distinct from new.phone and nullif(new.phone, '') is not null)
execute function public.handle_user_phone_change();

revoke execute on function public.handle_user_phone_change() from public, anon, authenticated, service_role;
