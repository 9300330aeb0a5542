-- bookkeeping of this server (not in gotrue's schema): rate-limit counters kept in the database
-- so that limits hold across several server instances, and the development inbox where e-mails
-- land when no smtp server is configured.
set local role supabase_auth_admin;

-- one row per (limit key, fixed window); old windows are deleted as new ones are written.
create table auth.rate_limits (
  key text not null,
  window_start timestamptz not null,
  count integer not null default 0,
  primary key (key, window_start)
);
create index rate_limits_window_start_idx on auth.rate_limits (window_start);

create table auth.dev_inbox (
  id bigserial primary key,
  recipient text not null,
  subject text not null,
  kind text not null,
  html text not null,
  body_text text not null,
  link text,
  created_at timestamptz not null default now()
);
create index dev_inbox_recipient_idx on auth.dev_inbox (lower(recipient), id desc);

reset role;
