-- database webhooks on the outbox: supabase's sql interface (the supabase_functions schema, its
-- hooks table, the trigger function supabase_functions.http_request(url, method, headers,
-- params, timeout_ms), and pg_net's net.http_post / net.http_get when pg_net is not installed),
-- but the requests are rows of outbox.http_requests, written in the transaction of the change,
-- and delivered by the server's outbox worker (server/src/outbox/http.rs): at least once,
-- tried again with a growing delay, kept and marked when they give up. pg_net sends once and
-- forgets a request that fails; nothing here is sent unless its transaction commits.

create table outbox.http_requests (
  id bigint generated always as identity primary key,
  method text not null check (method in ('GET', 'POST', 'PUT', 'PATCH', 'DELETE')),
  -- absolute, or '/functions/v1/<name>' for a function of this server (the schedules).
  url text not null check (url ~ '^(https?://|/functions/v1/)'),
  headers jsonb not null default '{}' check (jsonb_typeof(headers) = 'object'),
  -- sent as the query string.
  params jsonb not null default '{}' check (jsonb_typeof(params) = 'object'),
  -- the json body (null: none).
  body jsonb,
  timeout_ms int not null default 1000 check (timeout_ms between 1 and 600000),
  -- the worker adds this server's service role key when the request has no authorization of
  -- its own (the function schedules: their jobs hold no key).
  as_service boolean not null default false,
  -- who asked: 'webhook', 'net.http_post', 'net.http_get', 'schedule'.
  source text not null,
  created_at timestamptz not null default now(),
  attempts int not null default 0,
  next_attempt_at timestamptz not null default now(),
  delivered_at timestamptz,
  failed_at timestamptz,
  -- the last answer: its status (null when none came), its content type and the start of its body.
  last_status int,
  last_content_type text,
  last_response text,
  last_error text
);
create index outbox_http_requests_due_idx on outbox.http_requests (next_attempt_at)
  where delivered_at is null and failed_at is null;

-- one row per request with its state, for operators and the status page of the docs.
create view outbox.http_deliveries as
select id, source, method, url, created_at, attempts,
       case when delivered_at is not null then 'delivered'
            when failed_at is not null then 'failed'
            else 'pending' end as state,
       next_attempt_at, delivered_at, failed_at, last_status, last_error
from outbox.http_requests;

create trigger announce after insert on outbox.http_requests
for each statement execute function outbox.announce();

-- keep one request; returns its id.
create function outbox.enqueue_http(
  method text, url text, headers jsonb, params jsonb, body jsonb, timeout_ms int, source text,
  as_service boolean default false
) returns bigint
language sql volatile security definer set search_path = ''
as $$
  insert into outbox.http_requests (method, url, headers, params, body, timeout_ms, source, as_service)
  values (upper(enqueue_http.method), enqueue_http.url, coalesce(enqueue_http.headers, '{}'),
          coalesce(enqueue_http.params, '{}'), enqueue_http.body, coalesce(enqueue_http.timeout_ms, 1000),
          enqueue_http.source, enqueue_http.as_service)
  returning id
$$;
revoke execute on function outbox.enqueue_http(text, text, jsonb, jsonb, jsonb, int, text, boolean) from public;

-- supabase's schema for webhooks, as supabase/postgres creates it.
create schema if not exists supabase_functions;
grant usage on schema supabase_functions to anon, authenticated, service_role;

create table if not exists supabase_functions.migrations (
  version text primary key,
  inserted_at timestamptz not null default now()
);
insert into supabase_functions.migrations (version) values ('initial'), ('20210809183423_update_grants')
on conflict do nothing;

-- the audit trail of fired hooks (request_id is the outbox request's id).
create table if not exists supabase_functions.hooks (
  id bigserial primary key,
  hook_table_id integer not null,
  hook_name text not null,
  created_at timestamptz not null default now(),
  request_id bigint
);
create index if not exists supabase_functions_hooks_request_id_idx on supabase_functions.hooks using btree (request_id);
create index if not exists supabase_functions_hooks_h_table_id_h_name_idx
  on supabase_functions.hooks using btree (hook_table_id, hook_name);
comment on table supabase_functions.hooks is 'Supabase Functions Hooks: Audit trail for triggered hooks.';

-- the trigger function of database webhooks: arguments url, method ('POST' or 'GET'), headers
-- (json text), params (json text), timeout in milliseconds, as supabase's. a POST carries
-- {type, table, schema, record, old_record}; a GET carries the params only.
create or replace function supabase_functions.http_request() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  request_id bigint;
  payload jsonb;
  url text := tg_argv[0]::text;
  method text := tg_argv[1]::text;
  headers jsonb default '{}'::jsonb;
  params jsonb default '{}'::jsonb;
  timeout_ms integer default 1000;
begin
  if url is null or url = 'null' then
    raise exception 'url argument is missing';
  end if;
  if method is null or method = 'null' then
    raise exception 'method argument is missing';
  end if;
  if tg_argv[2] is null or tg_argv[2] = 'null' then
    headers := '{"Content-Type": "application/json"}'::jsonb;
  else
    headers := tg_argv[2]::jsonb;
  end if;
  if tg_argv[3] is not null and tg_argv[3] <> 'null' then
    params := tg_argv[3]::jsonb;
  end if;
  if tg_argv[4] is not null and tg_argv[4] <> 'null' then
    timeout_ms := tg_argv[4]::integer;
  end if;

  case
    when method = 'GET' then
      request_id := outbox.enqueue_http('GET', url, headers, params, null, timeout_ms, 'webhook');
    when method = 'POST' then
      -- old is null on insert, new on delete: json nulls, as supabase sends them.
      payload := jsonb_build_object(
        'old_record', old,
        'record', new,
        'type', tg_op,
        'table', tg_table_name,
        'schema', tg_table_schema
      );
      request_id := outbox.enqueue_http('POST', url, headers, params, payload, timeout_ms, 'webhook');
    else
      raise exception 'method argument % is invalid', method;
  end case;

  insert into supabase_functions.hooks (hook_table_id, hook_name, request_id)
  values (tg_relid, tg_name, request_id);
  return new;
end
$$;
revoke all on function supabase_functions.http_request() from public;
grant execute on function supabase_functions.http_request() to anon, authenticated, service_role;

-- what a function schedule's pg_cron job runs ([functions.<name>] schedule, see
-- server/src/functions/schedule.rs): a post to the function, with the service role key.
create function supabase_functions.invoke_scheduled(function_name text) returns bigint
language sql volatile security definer set search_path = ''
as $$
  select outbox.enqueue_http(
    'POST', '/functions/v1/' || invoke_scheduled.function_name, '{"Content-Type": "application/json"}',
    '{}', jsonb_build_object('type', 'SCHEDULE', 'function', invoke_scheduled.function_name, 'scheduled_at', now()),
    60000, 'schedule', true)
$$;
revoke execute on function supabase_functions.invoke_scheduled(text) from public;

-- pg_net's functions, on the outbox, unless pg_net itself is installed (then its own stay and
-- only the webhooks above use the outbox). they return the request's id, as pg_net does;
-- net._http_response shows the answers of finished requests in pg_net's columns.
do $outer$
begin
  if exists (select 1 from pg_namespace where nspname = 'net') then
    raise notice 'schema net exists (pg_net?): net.http_post is left as it is';
    return;
  end if;
  create schema net;
  grant usage on schema net to service_role;

  create function net.http_post(
    url text,
    body jsonb default '{}'::jsonb,
    params jsonb default '{}'::jsonb,
    headers jsonb default '{"Content-Type": "application/json"}'::jsonb,
    timeout_milliseconds integer default 5000
  ) returns bigint
  language sql volatile security definer set search_path = ''
  as $$
    select outbox.enqueue_http('POST', http_post.url, http_post.headers, http_post.params, http_post.body,
                               http_post.timeout_milliseconds, 'net.http_post')
  $$;

  create function net.http_get(
    url text,
    params jsonb default '{}'::jsonb,
    headers jsonb default '{}'::jsonb,
    timeout_milliseconds integer default 5000
  ) returns bigint
  language sql volatile security definer set search_path = ''
  as $$
    select outbox.enqueue_http('GET', http_get.url, http_get.headers, http_get.params, null,
                               http_get.timeout_milliseconds, 'net.http_get')
  $$;

  revoke all on function net.http_post(text, jsonb, jsonb, jsonb, integer) from public;
  revoke all on function net.http_get(text, jsonb, jsonb, integer) from public;
  grant execute on function net.http_post(text, jsonb, jsonb, jsonb, integer) to service_role;
  grant execute on function net.http_get(text, jsonb, jsonb, integer) to service_role;

  create view net._http_response as
  select id, last_status as status_code, last_content_type as content_type, null::jsonb as headers,
         last_response as content, last_error like 'timed out%' as timed_out, last_error as error_msg,
         coalesce(delivered_at, failed_at) as created
  from outbox.http_requests
  where delivered_at is not null or failed_at is not null;
  grant select on net._http_response to service_role;
end
$outer$;
