-- deleting a user from the back office deletes the account (auth.users), not only the profile
-- as the original did (which left a working login behind). administrators only, never their own
-- account. the profile and the service bookings go with the account (on delete cascade); vehicle
-- rentals are kept for the accounts, as contact bookings carrying the customer's name and e-mail.

create function public.admin_delete_users(ids uuid[]) returns int
language plpgsql volatile security definer set search_path = ''
as $$
declare
  deleted int;
begin
  if not public.is_admin() then
    raise exception 'Accès refusé' using errcode = '42501';
  end if;
  if auth.uid() = any (ids) then
    raise exception 'Vous ne pouvez pas supprimer votre propre compte' using errcode = '22023';
  end if;
  -- a rental without an account must carry its contact (constraint bookings_contact).
  update public.bookings b
  set customer_name = coalesce(nullif(trim(b.customer_name), ''), nullif(trim(p.full_name), ''), u.email, 'Client supprimé'),
      customer_email = coalesce(nullif(trim(b.customer_email), ''), u.email, 'inconnu@invalid.cd'),
      customer_phone = coalesce(nullif(trim(b.customer_phone), ''), nullif(trim(p.phone), ''), 'inconnu'),
      driver_license_number = coalesce(nullif(trim(b.driver_license_number), ''), 'inconnu')
  from auth.users u left join public.profiles p on p.user_id = u.id
  where b.user_id = u.id and u.id = any (ids);
  delete from auth.users u where u.id = any (ids);
  get diagnostics deleted = row_count;
  return deleted;
end
$$;

revoke execute on function public.admin_delete_users(uuid[]) from public, anon;
grant execute on function public.admin_delete_users(uuid[]) to authenticated;
