-- database webhooks on the outbox (V80): a supabase_functions.http_request trigger writes
-- supabase's payload as an outbox request in the change's own transaction (a rolled-back
-- change writes none) and notes it in supabase_functions.hooks; net.http_post queues on the
-- same outbox for the owner and service_role only; no api role reads the requests.
begin;
\ir setup.psql
\set QUIET 1

select plan(10);

delete from outbox.http_requests;
create table public.hooked (id int primary key, name text);
create trigger hooked_hook after insert or update or delete on public.hooked
for each row execute function supabase_functions.http_request(
  'http://localhost:54321/functions/v1/on-hooked', 'POST', '{"Content-Type":"application/json"}', '{}', '1000');

insert into public.hooked values (1, 'a');
select is((select body from outbox.http_requests order by id desc limit 1),
  '{"type": "INSERT", "table": "hooked", "schema": "public", "record": {"id": 1, "name": "a"}, "old_record": null}'::jsonb,
  'an insert queues supabase''s payload, old_record null');
update public.hooked set name = 'b';
select is((select body->'old_record' from outbox.http_requests order by id desc limit 1), '{"id": 1, "name": "a"}'::jsonb,
  'an update carries the old row');
delete from public.hooked;
select is((select body->>'type' || ':' || coalesce(body->>'record', 'null') from outbox.http_requests order by id desc limit 1),
  'DELETE:null', 'a delete carries record null');
select is((select row(method, url, headers, timeout_ms, source)::text from outbox.http_requests order by id desc limit 1),
  '(POST,http://localhost:54321/functions/v1/on-hooked,"{""Content-Type"": ""application/json""}",1000,webhook)',
  'the method, url, headers and timeout of the trigger''s arguments');
select is((select count(*)::int from supabase_functions.hooks h join outbox.http_requests r on r.id = h.request_id
           where h.hook_name = 'hooked_hook' and h.hook_table_id = 'public.hooked'::regclass::oid::int), 3,
  'each firing is in supabase_functions.hooks with its request');

savepoint before_rollback;
insert into public.hooked values (2, 'gone');
rollback to savepoint before_rollback;
select is((select count(*)::int from outbox.http_requests), 3, 'a rolled-back change queues nothing');

select is(pg_temp.attempt('a', $$insert into public.hooked values (3, 'c')$$), 'ok:1',
  'a signed-in user who may insert fires the webhook (the trigger function is security definer)');

select is(pg_temp.attempt('service_role', $$select net.http_post('https://example.org/x', '{"a": 1}')$$), 'ok:1',
  'service_role queues with net.http_post');
select is(pg_temp.attempt('authenticated', $$select net.http_post('https://example.org/x')$$), 'error:42501',
  'a signed-in user may not');
select is(pg_temp.attempt('service_role', $$select * from outbox.http_requests$$), 'error:42501',
  'no api role reads the requests');

select * from finish();
rollback;
