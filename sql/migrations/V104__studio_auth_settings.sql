-- auth settings an operator changes in studio (auth → settings), over the environment and
-- config.toml: one row per setting name (a json value), the oauth providers' secrets sealed by the
-- server (aes-256-gcm under a key derived from the jwt secret; the database alone reveals
-- nothing), and the mail templates' replacements. every write notifies `auth_settings`, so every
-- server instance sharing the database reloads its effective auth configuration at once.
create table _studio.auth_settings (
  name text primary key,
  value jsonb not null,
  updated_at timestamptz not null default now()
);

create table _studio.auth_secrets (
  name text primary key,
  -- nonce || ciphertext || tag, the setting's name as associated data.
  sealed bytea not null,
  updated_at timestamptz not null default now()
);

create table _studio.auth_mail_templates (
  kind text primary key
    check (kind in ('confirmation', 'recovery', 'magic_link', 'invite', 'email_change', 'reauthentication')),
  subject text,
  html text,
  updated_at timestamptz not null default now()
);

create function _studio.notify_auth_settings() returns trigger
language plpgsql as $$
begin
  perform pg_notify('auth_settings', tg_table_name);
  return null;
end;
$$;

create trigger auth_settings_changed after insert or update or delete or truncate
  on _studio.auth_settings for each statement execute function _studio.notify_auth_settings();
create trigger auth_secrets_changed after insert or update or delete or truncate
  on _studio.auth_secrets for each statement execute function _studio.notify_auth_settings();
create trigger auth_mail_templates_changed after insert or update or delete or truncate
  on _studio.auth_mail_templates for each statement execute function _studio.notify_auth_settings();
