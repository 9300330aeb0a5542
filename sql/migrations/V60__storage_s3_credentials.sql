-- S3 protocol access keys (issue #16): `server keys s3-new` issues an access key id and its
-- secret; requests signed with them (AWS Signature Version 4) run as service_role, as Supabase's
-- S3 access keys do. The secret is kept as is: SigV4 needs it to recompute signatures. Only the
-- server's owner connection reads this table.

create table storage.s3_credentials (
  access_key_id text primary key,
  secret_access_key text not null,
  description text not null default '',
  created_at timestamptz not null default now()
);

revoke all on storage.s3_credentials from public, anon, authenticated, service_role;
