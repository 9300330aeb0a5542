-- a customer changes the dates of their own pending rental (customer-site.md's profile could only
-- cancel): the guard of V51 lets the dates (and nothing else) of a pending vehicle booking move,
-- and the policy lets the owner's update keep a rental pending (V51's guard still says which
-- updates a customer may make). the new dates
-- go through every rule of a new booking (vehicle available, not in the past, length, lead time,
-- free dates under the vehicle's lock) and are priced again by the database; the customer gets
-- the « Réservation modifiée » message (V63).

alter policy booking_cancel_own on public.bookings rename to booking_update_own;
alter policy booking_update_own on public.bookings
  with check ((user_id = (select auth.uid()) and booking_status in ('pending', 'cancelled')) or (select public.is_admin()));

create or replace function public.guard_booking() returns trigger
language plpgsql set search_path = ''
as $$
declare
  admin boolean;
  uid uuid := auth.uid();
begin
  if not public.booking_rules_apply() then
    return new;
  end if;
  admin := public.is_admin();
  -- updated_at is the server's, whatever was sent (the back office of the spec sends one).
  new.updated_at := now();

  if tg_op = 'INSERT' then
    -- a column default equals now() exactly; anything else was sent by the client.
    if new.created_at is distinct from now() then
      raise exception 'La date de création d''une réservation est fixée par le serveur'
        using errcode = '428C9', hint = 'Omit created_at and updated_at: the database sets them.';
    end if;
    if admin then
      if new.booking_status not in ('pending', 'confirmed', 'active') then
        raise exception 'Une réservation se crée en attente, confirmée ou en cours' using errcode = '22023';
      end if;
      return new;
    end if;
    if uid is null and tg_table_name <> 'bookings' then
      raise exception 'Vous devez être connecté pour réserver' using errcode = '42501';
    end if;
    -- the account is the caller's (none for a visitor's public rental): never another one.
    if new.user_id is distinct from uid then
      raise exception 'Une réservation se fait au nom du compte connecté' using errcode = '42501',
        hint = 'user_id must be the signed-in user''s id.';
    end if;
    if new.booking_status is distinct from 'pending' then
      raise exception 'Une nouvelle réservation est toujours en attente' using errcode = '42501';
    end if;
    return new;
  end if;

  -- the row's identity is fixed; the account goes (null) only with a deleted account.
  if new.id is distinct from old.id or new.created_at is distinct from old.created_at
     or (new.user_id is distinct from old.user_id and new.user_id is not null) then
    raise exception 'L''identifiant, le compte et la date de création d''une réservation sont fixés par le serveur'
      using errcode = '428C9';
  end if;

  if not admin then
    -- a customer may move the dates of their own pending rental, changing nothing else: the
    -- rules that follow (booking_rules, booking_settings) check the new dates, price_booking
    -- prices them again.
    if tg_table_name = 'bookings' and old.booking_status = 'pending' and new.booking_status = 'pending' then
      if (to_jsonb(new) -> 'start_date', to_jsonb(new) -> 'end_date') is distinct from (to_jsonb(old) -> 'start_date', to_jsonb(old) -> 'end_date')
         and (to_jsonb(new) - 'start_date' - 'end_date' - 'total_amount' - 'updated_at')
             = (to_jsonb(old) - 'start_date' - 'end_date' - 'total_amount' - 'updated_at') then
        return new;
      end if;
    end if;
    -- otherwise a customer (row-level security shows them their own rows only) cancels a
    -- pending booking, changing nothing else.
    if new.booking_status is distinct from 'cancelled'
       or (to_jsonb(new) - 'booking_status' - 'updated_at') <> (to_jsonb(old) - 'booking_status' - 'updated_at') then
      raise exception 'Seules l''annulation d''une réservation en attente et le changement des dates d''une location en attente sont possibles' using errcode = '42501';
    end if;
    if old.booking_status <> 'pending' then
      raise exception 'Cette réservation ne peut plus être annulée : elle est « % »', public.booking_status_label(old.booking_status)
        using errcode = 'PT409', detail = format('The booking is %s; only a pending booking can be cancelled by its customer.', old.booking_status),
              hint = 'Reload the booking: it may have changed in the meantime.';
    end if;
    return new;
  end if;

  if new.booking_status is distinct from old.booking_status
     and not new.booking_status = any (public.booking_next_statuses(old.booking_status)) then
    raise exception 'Cette réservation est « % » : elle ne peut pas passer à « % »',
      public.booking_status_label(old.booking_status), public.booking_status_label(new.booking_status)
      using errcode = 'PT409',
            detail = format('Allowed from %s: %s.', old.booking_status,
                            coalesce(nullif(array_to_string(public.booking_next_statuses(old.booking_status), ', '), ''), 'none')),
            hint = 'Reload the booking: it may have changed in the meantime.';
  end if;
  return new;
end
$$;
