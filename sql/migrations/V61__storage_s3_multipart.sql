-- S3 multipart uploads (issue #16): an upload in progress and its parts, so that any server
-- instance takes the next part. Each part's bytes are an object of their own under
-- `s3parts/<upload id>/<part number>` in the object store until CompleteMultipartUpload joins them
-- into the object's version. `owner_id` and `role` are the creator's, who alone may send parts.
-- Only the server's owner connection reads these tables; the storage sweep removes uploads left
-- for more than a day, and their parts.

create table storage.s3_multipart_uploads (
  id uuid primary key,
  bucket_id text not null references storage.buckets (id) on delete cascade,
  name text not null,
  owner_id text,
  role text not null,
  content_type text not null,
  cache_control text not null,
  user_metadata jsonb,
  created_at timestamptz not null default now()
);

create table storage.s3_multipart_parts (
  upload_id uuid not null references storage.s3_multipart_uploads (id) on delete cascade,
  part_number integer not null check (part_number between 1 and 10000),
  size bigint not null,
  etag text not null,
  created_at timestamptz not null default now(),
  primary key (upload_id, part_number)
);

revoke all on storage.s3_multipart_uploads, storage.s3_multipart_parts from public, anon, authenticated, service_role;
