-- the jwt helpers policies call, defined as supabase defines them: they read the claims the
-- server sets per request in `request.jwt.claims`, falling back to the legacy
-- `request.jwt.claim.<name>` settings. an unset or empty setting reads as null.

create or replace function auth.jwt() returns jsonb
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

create or replace function auth.uid() returns uuid
language sql stable
as $$
  select nullif(
    coalesce(
      current_setting('request.jwt.claim.sub', true),
      nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'
    ),
    ''
  )::uuid
$$;

create or replace function auth.role() returns text
language sql stable
as $$
  select nullif(
    coalesce(
      current_setting('request.jwt.claim.role', true),
      nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role'
    ),
    ''
  )::text
$$;

create or replace function auth.email() returns text
language sql stable
as $$
  select nullif(
    coalesce(
      current_setting('request.jwt.claim.email', true),
      nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email'
    ),
    ''
  )::text
$$;

grant execute on function auth.jwt(), auth.uid(), auth.role(), auth.email() to anon, authenticated, service_role;
