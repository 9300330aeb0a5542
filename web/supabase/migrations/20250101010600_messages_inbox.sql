-- the back office's messages inbox: the contact and support messages read, replied to (the reply
-- mailed to the sender through the outbox) and archived. `handled` (V34) now says whether the
-- message was replied to or archived.

alter table public.contact_messages
  add column read_at timestamptz,
  add column replied_at timestamptz,
  add column reply text check (reply is null or length(reply) <= 5000),
  add column replied_by uuid references auth.users (id) on delete set null,
  add column archived_at timestamptz;

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
