-- realtime: what supabase realtime keeps in the database, plus the relay the server's instances
-- use to reach each other through postgres (listen/notify).

-- tables whose changes are streamed to postgres_changes subscribers; users add theirs with
-- `alter publication supabase_realtime add table ...`, as on supabase.
do $$
begin
  if not exists (select from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;

-- broadcast messages sent from the database (realtime.send, realtime.broadcast_changes) and the
-- table whose row-level-security policies authorize private channels: `select` to receive,
-- `insert` to send, with realtime.topic() naming the channel's topic. a database restored from
-- supabase already has it (partitioned by day): it is kept as it is.
create table if not exists realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  binary_payload bytea,
  event text,
  private boolean default false,
  updated_at timestamp not null default now(),
  inserted_at timestamp not null default now(),
  id uuid not null default gen_random_uuid(),
  primary key (id, inserted_at),
  constraint messages_payload_exclusive check (payload is null or binary_payload is null)
);
alter table realtime.messages add column if not exists binary_payload bytea;
create index if not exists messages_inserted_at_topic_index on realtime.messages (inserted_at desc, topic);
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;

-- the topic of the channel being authorized or sent to (set by the server and realtime.send).
create or replace function realtime.topic() returns text
language sql stable
as $$ select nullif(current_setting('realtime.topic', true), '')::text $$;

create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql
as $$
declare
  generated_id uuid;
  final_payload jsonb;
begin
  begin
    generated_id := gen_random_uuid();
    -- the payload carries the message id unless it has one of its own.
    if payload ? 'id' then
      final_payload := payload;
    else
      final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
    end if;
    perform set_config('realtime.topic', topic, true);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (generated_id, final_payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
  end;
end;
$$;

create or replace function realtime.send(payload bytea, event text, topic text, private boolean default true)
returns void
language plpgsql
as $$
declare
  generated_id uuid;
begin
  begin
    generated_id := gen_random_uuid();
    perform set_config('realtime.topic', topic, true);
    insert into realtime.messages (id, binary_payload, event, topic, private, extension)
    values (generated_id, payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'ErrorSendingBroadcastMessage: %', sqlerrm;
  end;
end;
$$;

create or replace function realtime.send_binary(payload bytea, event text, topic text, private boolean default true)
returns void
language sql
as $$ select realtime.send(payload, event, topic, private) $$;

-- for row triggers: broadcast a row change to `topic_name` as supabase defines it.
create or replace function realtime.broadcast_changes(
  topic_name text, event_name text, operation text, table_name text, table_schema text,
  new record, old record, level text default 'ROW'
) returns void
language plpgsql
as $$
declare
  row_data jsonb := '{}'::jsonb;
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation = 'INSERT' or operation = 'UPDATE' or operation = 'DELETE' then
    row_data := jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
                                   'table', table_name, 'schema', table_schema);
    perform realtime.send(row_data, event_name, topic_name);
  else
    raise exception 'Unexpected operation type: %', operation;
  end if;
exception
  when others then
    raise exception 'Failed to process the row: %', sqlerrm;
end;
$$;

grant execute on function realtime.topic() to anon, authenticated, service_role;
grant execute on function realtime.send(jsonb, text, text, boolean) to authenticated, service_role;
grant execute on function realtime.send(bytea, text, text, boolean) to authenticated, service_role;
grant execute on function realtime.send_binary(bytea, text, text, boolean) to authenticated, service_role;
grant execute on function realtime.broadcast_changes(text, text, text, text, text, record, record, text)
  to authenticated, service_role;
revoke execute on function realtime.send(jsonb, text, text, boolean) from public;
revoke execute on function realtime.send(bytea, text, text, boolean) from public;
revoke execute on function realtime.send_binary(bytea, text, text, boolean) from public;
revoke execute on function realtime.broadcast_changes(text, text, text, text, text, record, record, text) from public;

-- bodies too large for one notification (8000 bytes) wait here for the other instances; rows
-- are removed after a minute by the server.
create unlogged table if not exists realtime.relay (
  id bigserial primary key,
  body text not null,
  created_at timestamptz not null default now()
);
revoke all on realtime.relay from anon, authenticated, service_role;

-- every committed message is announced to every server instance; the notification carries the
-- message itself when it fits, else its key.
create or replace function realtime.announce_message() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  body text;
begin
  body := json_build_object('k', 'm', 'topic', new.topic, 'event', new.event, 'private', new.private,
                             'payload', new.payload,
                             'binary', encode(new.binary_payload, 'base64'))::text;
  if octet_length(body) > 7900 then
    body := json_build_object('k', 'm', 'id', new.id, 'at', new.inserted_at)::text;
  end if;
  perform pg_notify('realtime_relay', body);
  return null;
end;
$$;

drop trigger if exists messages_announce on realtime.messages;
create trigger messages_announce after insert on realtime.messages
for each row when (new.extension = 'broadcast') execute function realtime.announce_message();

-- private-channel checks insert two probe messages (one per extension) that the caller's
-- select policies then see or not; the server calls it as `authenticator`, before switching to
-- the caller's role, in a transaction it always rolls back.
create or replace function realtime.probe(topic text) returns uuid[]
language sql
security definer
set search_path = ''
as $$
  with inserted as (
    insert into realtime.messages (topic, extension, event, private)
    select topic, e, 'probe', true from unnest(array['broadcast', 'presence']) e
    returning id
  )
  select array_agg(id) from inserted
$$;
revoke execute on function realtime.probe(text) from public;
grant usage on schema realtime to authenticator;
grant execute on function realtime.probe(text) to authenticator;
