-- policies evaluated once per statement (V53): no policy calls is_admin(), auth.uid(),
-- auth.jwt() or auth.role() outside a scalar subquery, and the planner runs them as an InitPlan
-- instead of testing each row.
begin;
\ir setup.psql
select plan(4);

select is(
  (select count(*)::int from pg_policies
   where schemaname in ('public', 'storage', 'realtime')
     and coalesce(qual, '') || ' ' || coalesce(with_check, '') ~ '(?<!SELECT )((public\.)?is_admin\(\)|auth\.(uid|jwt|role)\(\))'),
  0,
  'every policy calls the helpers through a scalar subquery');

create function pg_temp.plan_of(stmt text) returns text language plpgsql as $$
declare
  line text;
  plan text := '';
begin
  for line in execute 'explain (costs off) ' || stmt loop
    plan := plan || line || E'\n';
  end loop;
  return plan;
end $$;

select count(*)::int as all_vehicles from public.vehicles \gset
set local request.jwt.claims = '{"sub": "adadadad-0000-4000-8000-000000000003", "role": "authenticated", "aal": "aal2"}';
set local role authenticated;
select matches(pg_temp.plan_of('select * from public.vehicles'), 'InitPlan',
  'an administrator''s vehicle list evaluates is_admin() once, as an InitPlan');
select doesnt_match(pg_temp.plan_of('select * from public.vehicles'), 'is_admin\(\)',
  'no row filter calls is_admin() itself');
select is((select count(*)::int from public.vehicles), :all_vehicles,
  'the administrator still sees every vehicle');
reset role;

select * from finish();
rollback;
