-- WebAuthn (issue #15): passkeys that sign users in, and WebAuthn security keys as MFA factors,
-- in GoTrue's tables and columns.
--
-- * auth.webauthn_credentials: one passkey of a user. `credential` is the verified credential as
--   the server's WebAuthn library records it (public key, algorithm, counter, backup flags);
--   `credential_id` is unique across users, so one authenticator key signs in one account.
-- * auth.webauthn_challenges: the pending ceremonies of /passkeys (registration: bound to the
--   user; authentication: not bound, the passkey names its user). A challenge is consumed by its
--   first answer, right or wrong, and expires after WEBAUTHN_CHALLENGE_EXPIRY_DURATION.
-- * auth.mfa_factors.web_authn_credential / web_authn_aaguid: the key of a verified webauthn
--   factor; auth.mfa_challenges.web_authn_session_data: the pending ceremony of its challenge.
--
-- Only the server's owner connection reads these tables: no API role has any right on them.

set local role supabase_auth_admin;

alter table auth.mfa_factors
  add column web_authn_credential jsonb,
  add column web_authn_aaguid uuid;

alter table auth.mfa_challenges
  add column web_authn_session_data jsonb;

create table auth.webauthn_credentials (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  credential_id bytea not null,
  credential jsonb not null,
  aaguid uuid,
  sign_count bigint not null default 0,
  transports jsonb not null default '[]'::jsonb,
  backup_eligible boolean not null default false,
  backed_up boolean not null default false,
  friendly_name text not null default '' check (length(friendly_name) <= 120),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_used_at timestamptz
);
create unique index webauthn_credentials_credential_id_key on auth.webauthn_credentials (credential_id);
create index webauthn_credentials_user_id_idx on auth.webauthn_credentials (user_id);

create table auth.webauthn_challenges (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete cascade,
  challenge_type text not null check (challenge_type in ('signup', 'registration', 'authentication')),
  session_data jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index webauthn_challenges_user_id_idx on auth.webauthn_challenges (user_id);
create index webauthn_challenges_expires_at_idx on auth.webauthn_challenges (expires_at);

revoke all on auth.webauthn_credentials, auth.webauthn_challenges from public, anon, authenticated, service_role;

reset role;
