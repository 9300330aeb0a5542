-- algorithm-1 refresh tokens (V72): `auth.refresh_tokens` is indexed on its key, `token` and
-- `session_id` only, so the rotation's revoke (`revoked`, `updated_at`) is a HOT update with no
-- index insertion, and the rotation still finds, revokes and replaces tokens as before.
begin;
\ir setup.psql
select plan(10);

select is(
  (select array_agg(pg_get_indexdef(i.indexrelid) order by pg_get_indexdef(i.indexrelid))
     from pg_index i where i.indrelid = 'auth.refresh_tokens'::regclass),
  array['CREATE INDEX refresh_tokens_session_id_idx ON auth.refresh_tokens USING btree (session_id)',
        'CREATE UNIQUE INDEX refresh_tokens_pkey ON auth.refresh_tokens USING btree (id)',
        'CREATE UNIQUE INDEX refresh_tokens_token_key ON auth.refresh_tokens USING btree (token)'],
  'refresh_tokens is indexed on id, token and session_id only');
select is(
  (select count(*)::int from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any (i.indkey)
    where i.indrelid = 'auth.refresh_tokens'::regclass and a.attname in ('revoked', 'updated_at')),
  0, 'no index covers the columns the revoke writes');
select is((select count(*)::int from pg_index where indrelid = 'auth.audit_log_entries'::regclass), 1,
  'audit_log_entries keeps only its primary key');

insert into auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at)
values ('5e550000-0000-4000-8000-000000000001', 'aaaaaaaa-0000-4000-8000-000000000001', now(), now(), 'aal1', now());
insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id)
values ('00000000-0000-0000-0000-000000000000', 'first-token', 'aaaaaaaa-0000-4000-8000-000000000001', false,
        now(), now(), '5e550000-0000-4000-8000-000000000001');

create temp table hot_before as
  select pg_stat_get_xact_tuples_hot_updated('auth.refresh_tokens'::regclass) as hot,
         pg_stat_get_xact_tuples_updated('auth.refresh_tokens'::regclass) as updated;
create temp table granted as
  select * from auth.grant_refresh('first-token', 'second-token', 10, '127.0.0.1', 'k', 0, 300);

select is((select o_outcome from granted), 'refreshed', 'an unused token is rotated');
select is((select o_token from granted), 'second-token', 'the new token is handed out');
select is(
  (select pg_stat_get_xact_tuples_updated('auth.refresh_tokens'::regclass) - updated from hot_before), 1::bigint,
  'the rotation updates one token row');
select is(
  (select pg_stat_get_xact_tuples_hot_updated('auth.refresh_tokens'::regclass) - hot from hot_before), 1::bigint,
  'and that update is HOT');
select is(
  (select array_agg(token || ':' || revoked || ':' || coalesce(parent, '-') order by id)
     from auth.refresh_tokens where session_id = '5e550000-0000-4000-8000-000000000001'),
  array['first-token:true:-', 'second-token:false:first-token'],
  'the presented token is revoked and the new one is its child');
select is(
  (select o_token from auth.grant_refresh('first-token', 'third-token', 10, '127.0.0.1', 'k', 0, 300)),
  'second-token', 'a retry within the reuse interval finds the session''s current token by session_id');

-- a page filled by inserts keeps room for the revoke: 300 tokens fill several pages, and the
-- revoke of the first one, on the first (full) page, is still HOT.
insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id)
select '00000000-0000-0000-0000-000000000000', 'filler-' || n, 'aaaaaaaa-0000-4000-8000-000000000001', false,
       now(), now(), '5e550000-0000-4000-8000-000000000001'
  from generate_series(1, 300) n;
create temp table hot_filled as
  select pg_stat_get_xact_tuples_hot_updated('auth.refresh_tokens'::regclass) as hot;
update auth.refresh_tokens set revoked = true, updated_at = now()
 where token = (select token from auth.refresh_tokens where token like 'filler-%' order by ctid limit 1);
select is(
  (select pg_stat_get_xact_tuples_hot_updated('auth.refresh_tokens'::regclass) - hot from hot_filled), 1::bigint,
  'the revoke of a token on a page filled by inserts is HOT (fill factor 90)');

select * from finish();
rollback;
