-- studio, the operator's dashboard (/studio): its operators, their sessions and the audit log of
-- what they change. operators are not app users (auth.users): they sign in to the dashboard only.
--
-- the schema belongs to the owner and no api role is granted anything on it, so /rest/v1 (which
-- runs as anon, authenticated or service_role) can neither read nor write it, whatever its
-- exposed schemas.
create schema if not exists _studio;
revoke all on schema _studio from public;

create table _studio.operators (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  -- argon2id phc string.
  password_hash text not null,
  created_at timestamptz not null default now(),
  password_changed_at timestamptz not null default now(),
  last_sign_in_at timestamptz
);
create unique index operators_email_idx on _studio.operators (lower(email));

-- a session is known by the sha-256 of its random token (the cookie holds the token itself).
-- removing an operator ends their sessions.
create table _studio.sessions (
  id uuid primary key default gen_random_uuid(),
  operator_id uuid not null references _studio.operators (id) on delete cascade,
  token_hash bytea not null unique,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  ip text,
  user_agent text
);
create index sessions_operator_idx on _studio.sessions (operator_id);

-- one row per write an operator makes. the operator's e-mail is kept as written at the time, so
-- the log still says who after the operator is removed.
create table _studio.audit_log (
  id bigint generated always as identity primary key,
  operator_id uuid,
  operator_email text not null,
  action text not null,
  target text,
  detail jsonb not null default '{}',
  at timestamptz not null default now()
);
create index audit_log_at_idx on _studio.audit_log (at desc);
