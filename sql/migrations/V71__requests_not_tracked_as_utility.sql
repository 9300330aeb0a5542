-- Issue #14: a request's context is written as `SET LOCAL` statements with their values as
-- literals (role, claims, headers, the request id as application_name). pg_stat_statements, which
-- the embedded cluster preloads, keys a utility statement by its text, so with `track_utility`
-- on every request added new entries: a write to its query-text file each, and every few hundred
-- requests an eviction pass over all 5,000 entries under an exclusive lock. Measured at 32
-- connections on a single-row GET: 12% of Postgres's CPU per request. The connections of the
-- `authenticator` role (every /rest/v1 and /storage/v1 request) stop tracking utility statements;
-- the statement each request `EXECUTE`s is still counted, under its `PREPARE` text. The owner's
-- connections (/auth/v1, migrations) keep the default.
do $$
begin
  if current_setting('pg_stat_statements.track_utility', true) is not null then
    alter role authenticator set pg_stat_statements.track_utility = off;
  end if;
exception when insufficient_privilege then
  raise notice 'pg_stat_statements.track_utility left as it is for authenticator: %', sqlerrm;
end
$$;
