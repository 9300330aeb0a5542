-- Supabase Auth as an OAuth 2.1 authorization server (round 3, item 9): the tables of GoTrue's
-- migrations in their final shape (`oauth_clients`, `oauth_authorizations`, `oauth_consents`),
-- and the session's client and scopes. A client's id is its public `client_id`; only a hash of
-- its secret is kept (sha256, base64url, as GoTrue stores it), none for a public client.
set local role supabase_auth_admin;

create type auth.oauth_registration_type as enum ('dynamic', 'manual');
create type auth.oauth_client_type as enum ('public', 'confidential');
create type auth.oauth_authorization_status as enum ('pending', 'approved', 'denied', 'expired');
create type auth.oauth_response_type as enum ('code');

create table auth.oauth_clients (
  id uuid not null primary key,
  client_secret_hash text,
  registration_type auth.oauth_registration_type not null,
  -- comma-separated, as GoTrue stores them
  redirect_uris text not null,
  grant_types text not null,
  client_name text,
  client_uri text,
  logo_uri text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  client_type auth.oauth_client_type not null default 'confidential',
  token_endpoint_auth_method text not null
    check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'none')),
  constraint oauth_clients_client_name_length check (char_length(client_name) <= 1024),
  constraint oauth_clients_client_uri_length check (char_length(client_uri) <= 2048),
  constraint oauth_clients_logo_uri_length check (char_length(logo_uri) <= 2048)
);
create index oauth_clients_deleted_at_idx on auth.oauth_clients (deleted_at);

-- One request of `/oauth/authorize`: pending until the user answers, then approved (with its
-- single-use code, deleted when exchanged) or denied; it lives `OAUTH_SERVER_AUTHORIZATION_TTL`.
create table auth.oauth_authorizations (
  id uuid not null primary key,
  authorization_id text not null unique,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  user_id uuid references auth.users (id) on delete cascade,
  redirect_uri text not null,
  scope text not null,
  state text,
  resource text,
  code_challenge text,
  code_challenge_method auth.code_challenge_method,
  response_type auth.oauth_response_type not null default 'code',
  status auth.oauth_authorization_status not null default 'pending',
  authorization_code text unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null default (now() + interval '3 minutes'),
  approved_at timestamptz,
  nonce text,
  constraint oauth_authorizations_redirect_uri_length check (char_length(redirect_uri) <= 2048),
  constraint oauth_authorizations_scope_length check (char_length(scope) <= 4096),
  constraint oauth_authorizations_state_length check (char_length(state) <= 4096),
  constraint oauth_authorizations_resource_length check (char_length(resource) <= 2048),
  constraint oauth_authorizations_code_challenge_length check (char_length(code_challenge) <= 128),
  constraint oauth_authorizations_authorization_code_length check (char_length(authorization_code) <= 255),
  constraint oauth_authorizations_nonce_length check (char_length(nonce) <= 255),
  constraint oauth_authorizations_expires_at_future check (expires_at > created_at)
);
create index oauth_auth_pending_exp_idx on auth.oauth_authorizations (expires_at) where status = 'pending';

-- What a user granted a client; a later request for no more scopes is approved without asking.
create table auth.oauth_consents (
  id uuid not null primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  client_id uuid not null references auth.oauth_clients (id) on delete cascade,
  scopes text not null,
  granted_at timestamptz not null default now(),
  revoked_at timestamptz,
  constraint oauth_consents_user_client_unique unique (user_id, client_id),
  constraint oauth_consents_scopes_length check (char_length(scopes) <= 2048),
  constraint oauth_consents_scopes_not_empty check (char_length(trim(scopes)) > 0),
  constraint oauth_consents_revoked_after_granted check (revoked_at is null or revoked_at >= granted_at)
);
create index oauth_consents_user_order_idx on auth.oauth_consents (user_id, granted_at desc);
create index oauth_consents_active_client_idx on auth.oauth_consents (client_id) where revoked_at is null;

-- A session started by a client's code exchange: its refresh tokens are that client's alone,
-- and revoking the grant ends it.
alter table auth.sessions
  add column oauth_client_id uuid references auth.oauth_clients (id) on delete cascade,
  add column scopes text constraint sessions_scopes_length check (char_length(scopes) <= 4096);
create index sessions_oauth_client_id_idx on auth.sessions (oauth_client_id);

-- Only the auth server (the owner) reads them: never through REST, whatever the role.
revoke all on auth.oauth_clients, auth.oauth_authorizations, auth.oauth_consents
  from public, anon, authenticated, service_role;

reset role;
