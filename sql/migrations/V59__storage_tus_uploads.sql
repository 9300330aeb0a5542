-- Resumable uploads (TUS, issue #16): the state of each upload in progress, so that any server
-- instance can take its next chunk. `id` is the version the object gets once whole; `chunks`
-- lists the offsets of the chunks received (each stored as its own object under
-- `tus/<id>/<offset>` in the object store); `owner_id` and `role` are the creator's, who alone may
-- send the rest. Only the server's owner connection reads it. Unfinished uploads expire after a
-- day (the storage sweep removes them and their chunks).

create table storage.tus_uploads (
  id uuid primary key,
  bucket_id text not null references storage.buckets (id) on delete cascade,
  name text not null,
  owner_id text,
  role text not null,
  upload_length bigint not null check (upload_length >= 0),
  upload_offset bigint not null default 0 check (upload_offset >= 0 and upload_offset <= upload_length),
  chunks bigint[] not null default '{}',
  upsert boolean not null default false,
  content_type text not null,
  cache_control text not null,
  user_metadata jsonb,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index tus_uploads_expires_at on storage.tus_uploads (expires_at);

revoke all on storage.tus_uploads from public, anon, authenticated, service_role;
