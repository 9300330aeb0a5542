-- the development inbox keeps the attachments of the mail it stores (server/src/auth/mail/inbox.rs),
-- so a developer can open a mail's pdf and a test can read it: one row per file.

set local role supabase_auth_admin;

create table auth.dev_inbox_attachments (
  id bigserial primary key,
  message_id bigint not null references auth.dev_inbox (id) on delete cascade,
  filename text not null,
  content_type text not null,
  content bytea not null
);
create index dev_inbox_attachments_message_idx on auth.dev_inbox_attachments (message_id, id);

reset role;
