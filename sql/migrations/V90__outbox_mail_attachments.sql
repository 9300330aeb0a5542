-- attachments of outbox mail (server/src/outbox/attachments.rs): files the worker adds to a
-- message when it sends it, as a multipart/mixed mail. each is described in the row, as one
-- element of the `attachments` array:
--
--   {"function": "booking-receipt", "body": {"id": "…"}, "filename": "recu.pdf"}
--       made at each attempt by an edge function of this server, called over loopback with
--       the service role key (POST, the json `body`); the file is its answer, named by
--       `filename`, else by the answer's content-disposition. a call that fails (any answer
--       but 2xx, a timeout) fails the attempt, which is tried again with the outbox's backoff.
--   {"filename": "conditions.txt", "content_type": "text/plain", "content_base64": "…"}
--       bytes kept in the row.
--
-- which messages carry what is the application's business (its sql); the server knows no
-- function by name. text messages carry none.

alter table outbox.messages add column attachments jsonb not null default '[]';

-- whether `a` is an array of attachment descriptions of the two shapes above.
create function outbox.attachments_valid(a jsonb) returns boolean
language sql immutable set search_path = ''
as $$
  select jsonb_typeof(a) = 'array' and not exists (
    select 1 from jsonb_array_elements(a) e (x)
    where not coalesce(
      jsonb_typeof(x) = 'object'
      and (not x ? 'filename' or (jsonb_typeof(x -> 'filename') = 'string' and length(trim(x ->> 'filename')) > 0))
      and (
        -- made by a function: its name as /functions/v1 accepts it, a json body if any
        (x ? 'function' and not x ? 'content_base64'
         and jsonb_typeof(x -> 'function') = 'string'
         and (x ->> 'function') ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$')
        or
        -- kept in the row: named, its bytes in base64
        (x ? 'content_base64' and not x ? 'function' and x ? 'filename'
         and jsonb_typeof(x -> 'content_base64') = 'string'
         and (not x ? 'content_type' or jsonb_typeof(x -> 'content_type') = 'string'))
      ), false)
  )
$$;

alter table outbox.messages
  add constraint outbox_attachments_described check (outbox.attachments_valid(attachments)),
  add constraint outbox_attachments_by_mail check (channel = 'email' or attachments = '[]');

-- enqueue gains the attachments (a new trailing argument with a default: the calls written
-- for the old signature keep working).
drop function outbox.enqueue(text, text, text, text, text, text, text);
create function outbox.enqueue(
  channel text, recipient text, subject text, body_text text, topic text,
  dedupe_key text default null, body_html text default null, attachments jsonb default '[]'
) returns bigint
language sql volatile security definer set search_path = ''
as $$
  insert into outbox.messages (channel, recipient, subject, body_text, body_html, topic, dedupe_key, attachments)
  values (enqueue.channel, trim(enqueue.recipient), enqueue.subject, enqueue.body_text, enqueue.body_html,
          enqueue.topic, enqueue.dedupe_key, coalesce(enqueue.attachments, '[]'))
  on conflict (dedupe_key) do nothing
  returning id
$$;
revoke execute on function outbox.enqueue(text, text, text, text, text, text, text, jsonb) from public;
