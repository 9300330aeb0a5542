-- Asymmetric signing keys of access tokens (issue #15), as Supabase manages them: one key is in
-- use (it signs), a standby key is published before it signs, previously used keys still verify
-- the tokens they signed, a revoked key verifies nothing. The legacy HS256 secret stays a
-- verifying key outside this table. Every server instance reads this table, so a rotation made
-- by one (`server keys rotate`) reaches the others without a restart.
--
-- The private key is PEM (PKCS#8 for EC, PKCS#1 or PKCS#8 for RSA); the public JWK is what
-- /auth/v1/.well-known/jwks.json publishes. Only the server's owner connection reads it.

set local role supabase_auth_admin;

create table auth.signing_keys (
  id uuid primary key,
  algorithm text not null check (algorithm in ('ES256', 'RS256')),
  status text not null check (status in ('standby', 'in_use', 'previously_used', 'revoked')),
  private_key text not null,
  public_jwk jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- At most one key signs.
create unique index signing_keys_one_in_use on auth.signing_keys ((true)) where status = 'in_use';

revoke all on auth.signing_keys from public, anon, authenticated, service_role;

reset role;
