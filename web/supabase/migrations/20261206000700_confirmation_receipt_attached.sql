-- the « Réservation confirmée » mail carries the booking's receipt as a pdf: the outbox
-- message names the booking-receipt edge function and its body ({id, kind}), and the server's
-- outbox worker calls it with the service role key when it sends the mail (a failed call is
-- retried with the outbox's backoff; platform migration V90). the text message and the other
-- events are unchanged; the rest of the function is 20261206000500's.

create or replace function public.send_booking_messages(kind text, event text, b jsonb) returns void
language plpgsql volatile security definer set search_path = ''
as $$
declare
  general jsonb := coalesce((select s.value from public.app_settings s where s.section = 'general'), '{}');
  notifications jsonb := coalesce((select s.value from public.app_settings s where s.section = 'notifications'), '{}');
  company text := coalesce(general ->> 'companyName', 'Kinshasa Prestige Auto');
  reachable text := concat_ws(' — ', general ->> 'companyPhone', general ->> 'companyEmail');
  ref text := '#' || upper(left(b ->> 'id', 8));
  d record;
  c record;
  w record;
  details text;
  body text;
  dedupe text;
  receipt jsonb := '[]';
begin
  select * into d from public.booking_description(kind, b);
  select * into c from public.booking_contact(b);
  select * into w from public.booking_event_words(event);
  if w.subject is null then
    return;
  end if;
  details := 'Référence : ' || ref || E'\n' || d.what || E'\n' || d.dates || E'\n'
             || 'Montant : ' || public.format_money((b ->> 'total_amount')::numeric) || E'\n'
             || 'Statut : ' || public.booking_status_label(b ->> 'booking_status');

  if coalesce((notifications ->> 'bookingConfirmations')::boolean, true) then
    body := 'Bonjour ' || c.name || E',\n\n' || w.paragraph || E'\n\n'
            || case when event = 'confirmed' then E'Votre bon de réservation est joint à ce message (PDF).\n\n' else '' end
            || details || E'\n\n'
            || 'Pour toute question : ' || reachable || E'\n\n' || company;
    if c.by_email and c.email is not null then
      dedupe := case when event = 'reminder' then concat_ws(':', 'reminder', kind, b ->> 'id', d.first_day, 'email') end;
      if event = 'confirmed' then
        -- the receipt, made by the booking-receipt function when the mail is sent (recu-<ref>.pdf)
        receipt := jsonb_build_array(jsonb_build_object(
          'function', 'booking-receipt',
          'body', jsonb_build_object('id', b ->> 'id', 'kind', case kind
            when 'bookings' then 'vehicle' when 'airport_bookings' then 'airport'
            when 'diagnostic_bookings' then 'diagnostic' else 'premium' end)));
      end if;
      perform outbox.enqueue('email', c.email, w.subject || ' ' || ref, body, 'booking.' || event, dedupe,
                             attachments => receipt);
    end if;
    if c.by_sms and c.phone is not null and coalesce((notifications ->> 'smsNotifications')::boolean, false) then
      dedupe := case when event = 'reminder' then concat_ws(':', 'reminder', kind, b ->> 'id', d.first_day, 'sms') end;
      perform outbox.enqueue('sms', c.phone, null,
                             company || ' : ' || w.short || ' ' || ref || '. ' || d.what || '. ' || d.dates || '. '
                             || coalesce(general ->> 'companyPhone', ''),
                             'booking.' || event, dedupe);
    end if;
  end if;

  if event in ('received', 'cancelled_by_customer')
     and coalesce((notifications ->> 'emailNotifications')::boolean, true)
     and nullif(notifications ->> 'adminEmailAddress', '') is not null then
    perform outbox.enqueue(
      'email', notifications ->> 'adminEmailAddress',
      case event when 'received' then 'Nouvelle réservation ' else 'Réservation annulée par le client ' end || ref,
      case event when 'received' then 'Une nouvelle demande de réservation attend votre confirmation.'
                 else 'Le client a annulé sa réservation.' end || E'\n\n' || details || E'\n\n'
      || 'Client : ' || c.name || E'\n' || 'E-mail : ' || coalesce(c.email, '—') || E'\n'
      || 'Téléphone : ' || coalesce(c.phone, '—')
      || case when b ->> 'driver_license_number' is not null then E'\nPermis : ' || (b ->> 'driver_license_number') else '' end
      || case when nullif(trim(coalesce(b ->> 'special_requests', b ->> 'special_requirements', b ->> 'notes')), '') is not null
              then E'\nDemandes : ' || trim(coalesce(b ->> 'special_requests', b ->> 'special_requirements', b ->> 'notes')) else '' end,
      'booking.notice.' || event);
  end if;
end
$$;
