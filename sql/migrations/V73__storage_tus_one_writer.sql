-- Resumable uploads: one request at a time writes an upload's next chunk (round 3, item 1).
-- A PATCH first claims the upload at its offset (`receiving`, a token of that request, valid
-- until `receiving_until`, which the request renews while bytes arrive); a second PATCH meanwhile
-- is refused with 409 and the current offset before it writes anything, so it can never replace
-- or delete the chunk the first one is writing. A claim left by a server that died expires.
alter table storage.tus_uploads
  add column receiving uuid,
  add column receiving_until timestamptz;
