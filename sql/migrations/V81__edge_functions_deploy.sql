-- deployed edge functions, their secrets and their logs (server/src/functions/store.rs).
--
-- a deploy (management api or `server functions deploy`) writes a function's row and its
-- files in one transaction; every server instance listens on the `edge_functions` channel and
-- serves the new version within seconds. secrets are sealed by the server (aes-256-gcm with a
-- key derived from the jwt secret): the table never holds a value in clear. the logs are what
-- the functions print, kept bounded (the server prunes old rows).
--
-- no api role may read or write this schema: it holds code, sealed secrets and logs.

create schema if not exists edge_functions;
revoke all on schema edge_functions from public;

create table edge_functions.functions (
  id uuid primary key default gen_random_uuid(),
  -- the url's name: /functions/v1/<slug>
  slug text not null unique check (slug ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$'),
  name text not null,
  -- counts the deploys of this slug, from 1
  version int not null default 1,
  -- the entry file, a path among the function's files
  entrypoint_path text not null,
  import_map_path text,
  import_map jsonb,
  verify_jwt boolean not null default true,
  -- sha-256 of the files (paths and contents, sorted by path): the version the runtime runs
  sha256 text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table edge_functions.files (
  function_id uuid not null references edge_functions.functions (id) on delete cascade,
  -- relative, `/`-separated, without `.` or `..` parts (checked by the server too)
  path text not null check (path !~ '(^/|(^|/)\.\.?(/|$))' and length(path) between 1 and 1024),
  content bytea not null,
  primary key (function_id, path)
);

create table edge_functions.secrets (
  name text primary key check (name ~ '^[A-Za-z_][A-Za-z0-9_]*$' and name !~* '^supabase_'),
  -- nonce (12 bytes) || ciphertext || tag: never the value in clear
  sealed bytea not null,
  -- sha-256 of the value, hex, as the management api lists it
  digest text not null,
  updated_at timestamptz not null default now()
);

create table edge_functions.logs (
  id bigint generated always as identity primary key,
  function_slug text not null,
  level text not null,
  message text not null,
  request_id text,
  execution_id text,
  created_at timestamptz not null default now()
);
create index edge_functions_logs_by_function on edge_functions.logs (function_slug, id desc);

-- tell every instance that the deployed functions or the secrets changed (they also reload
-- when their listening connection comes back, so a lost notification is caught up).
create function edge_functions.announce() returns trigger
language plpgsql
as $$
begin
  perform pg_notify('edge_functions', tg_table_name);
  return null;
end
$$;

create trigger announce after insert or update or delete on edge_functions.functions
for each statement execute function edge_functions.announce();
create trigger announce after insert or update or delete on edge_functions.secrets
for each statement execute function edge_functions.announce();
