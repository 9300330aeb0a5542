-- the reports' history of the figures the request log does not hold: every reports_sample_secs
-- each server instance writes one row per figure (database connections by state, the cache hit
-- ratio, bytes per storage bucket, the realtime sockets open on that instance). read by the
-- dashboard's reports as series over a period, pruned by age (7 days, the longest period) by
-- the same task that writes them.
--
-- unlogged: samples are cheap to lose (a crash of the cluster empties the history, the charts
-- start again); no wal for a table written every minute. it lives in _studio, which no api role
-- may read.
create unlogged table _studio.metric_samples (
  at timestamptz not null,
  -- the realtime relay's name of the instance that wrote the sample: realtime sockets are summed
  -- across instances, the database's figures (the same for all) are averaged.
  instance text not null,
  -- db_connections, cache_hit_ratio, storage_bytes or realtime_connections.
  name text not null,
  -- the connection state or the bucket id; '' for a figure without one.
  key text not null default '',
  value double precision not null
);
-- the reports' period and the age pruning both read a time range.
create index metric_samples_at_idx on _studio.metric_samples (at);
