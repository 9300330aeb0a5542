-- an operator's second factor: a totp secret, sealed by the server like the auth secrets. it is
-- pending (enrolled_at null) until the operator verifies a first code; only a verified one is
-- asked for at sign-in. `server studio operators reset-totp` clears it.
alter table _studio.operators
  add column totp_secret bytea,
  add column totp_enrolled_at timestamptz,
  -- the last time step accepted, so a code is not accepted twice.
  add column totp_last_step bigint;
