-- roles of the supabase platform.
-- roles are shared by every database of a cluster, so each is created only when missing
-- (a cluster restored from supabase, or a second database of the test cluster, already has them).
do $$
begin
  if not exists (select from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  -- the service role bypasses row-level security: it is the key servers use, never browsers.
  if not exists (select from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
  -- client requests log in as authenticator, which holds no privilege of its own (noinherit)
  -- and may only switch to the three roles above. the server sets its password at start.
  if not exists (select from pg_roles where rolname = 'authenticator') then
    create role authenticator login noinherit;
  end if;
  -- owners of the auth and storage internals.
  if not exists (select from pg_roles where rolname = 'supabase_auth_admin') then
    create role supabase_auth_admin nologin noinherit createrole;
  end if;
  if not exists (select from pg_roles where rolname = 'supabase_storage_admin') then
    create role supabase_storage_admin nologin noinherit createrole;
  end if;
end
$$;

grant anon, authenticated, service_role to authenticator;
grant anon, authenticated, service_role to supabase_storage_admin;

-- statement timeouts as supabase sets them; the request context applies the caller role's setting.
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
