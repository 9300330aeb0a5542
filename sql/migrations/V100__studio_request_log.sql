-- the request log: one row per http request the server answered (which surface, method, path
-- without its query string, route pattern, status, latency, request id, the caller's user id and
-- role when known, response bytes). written in batches by the server (request_log), read by the
-- dashboard's log explorer and reports, pruned by age and by row count.
--
-- unlogged: no wal for a log that is written all the time and may be lost; a crash of the
-- cluster empties it. it lives in _studio, which no api role may read.
create unlogged table _studio.request_log (
  id bigint generated always as identity primary key,
  at timestamptz not null,
  surface text not null,
  method text not null,
  path text not null,
  route text,
  status smallint not null,
  duration_ms double precision not null,
  request_id text not null,
  user_id uuid,
  role text,
  bytes bigint
);
-- time ranges (the explorer's range, the reports' buckets, the age pruning) and the one-request
-- look-up. the other filters scan the time range they are given.
create index request_log_at_idx on _studio.request_log (at);
create index request_log_request_id_idx on _studio.request_log (request_id);
