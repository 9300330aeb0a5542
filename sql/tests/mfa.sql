-- an administrator with a verified second factor is an administrator only at aal2 (V45): every
-- admin read, write and function is refused in an aal1 session and allowed in an aal2 one; an
-- administrator without a verified factor keeps working at aal1; customers are unaffected.
begin;
\ir setup.psql
select plan(38);

-- run `stmt` as `who` ('a', 'admin') with the given jwt `aal` claim (null: no claim); rolled back.
create function pg_temp.attempt_aal(who text, aal text, stmt text) returns text
language plpgsql as $$
declare
  n bigint;
  sub text := case who when 'a' then 'aaaaaaaa-0000-4000-8000-000000000001'
                       when 'admin' then 'adadadad-0000-4000-8000-000000000003' end;
begin
  begin
    perform set_config('request.jwt.claims',
      jsonb_strip_nulls(jsonb_build_object('sub', sub, 'role', 'authenticated', 'aal', aal))::text, true);
    perform set_config('role', 'authenticated', true);
    execute stmt;
    get diagnostics n = row_count;
    raise exception using errcode = 'P0099', message = n::text;
  exception
    when sqlstate 'P0099' then return 'ok:' || sqlerrm;
    when others then return 'error:' || sqlstate;
  end;
end $$;

select is((select prosecdef and provolatile = 's' and proconfig = array['search_path=""'] from pg_proc where oid = 'public.is_admin()'::regprocedure),
  true, 'is_admin() stays stable security definer with an empty search_path');

-- no factor: aal1 is enough.
select is(pg_temp.attempt_aal('admin', 'aal1', 'select * from public.admin_users()'), 'ok:3', 'without a factor an aal1 administrator lists users');
select is(pg_temp.attempt_aal('admin', 'aal1', $$update public.vehicles set daily_rate = 101 where id = '11111111-0000-4000-8000-00000000000a'$$), 'ok:1', 'without a factor an aal1 administrator updates a vehicle');
select is(pg_temp.attempt_aal('admin', null, 'select public.admin_statistics(30)'), 'ok:1', 'without a factor a token without aal is enough');

-- an unverified (enrolment in progress) factor does not count.
insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
values ('fafafafa-0000-4000-8000-000000000001', 'adadadad-0000-4000-8000-000000000003', 'téléphone', 'totp', 'unverified', now(), now(), 'JBSWY3DPEHPK3PXP');
select is(pg_temp.attempt_aal('admin', 'aal1', 'select * from public.admin_users()'), 'ok:3', 'an unverified factor does not require aal2');

update auth.mfa_factors set status = 'verified' where id = 'fafafafa-0000-4000-8000-000000000001';

-- verified factor, aal1 session (or no aal claim): refused everywhere.
set local request.jwt.claims = '{"sub": "adadadad-0000-4000-8000-000000000003", "role": "authenticated", "aal": "aal1"}';
select is(public.is_admin(), false, 'a verified factor at aal1: not an administrator');
set local request.jwt.claims = '{"sub": "adadadad-0000-4000-8000-000000000003", "role": "authenticated", "aal": "aal2"}';
select is(public.is_admin(), true, 'a verified factor at aal2: an administrator');
set local request.jwt.claims = '{"sub": "adadadad-0000-4000-8000-000000000003", "role": "authenticated"}';
select is(public.is_admin(), false, 'a verified factor and no aal claim: not an administrator');
reset request.jwt.claims;

select is(t.got, c.want, c.what) from (values
  ('admin', 'aal1', 'select * from public.admin_users()', 'error:42501', 'aal1: admin_users refused'),
  ('admin', 'aal1', 'select public.admin_statistics(30)', 'error:42501', 'aal1: admin_statistics refused'),
  ('admin', 'aal1', 'select public.admin_analytics(current_date - 30, current_date)', 'error:42501', 'aal1: admin_analytics refused'),
  ('admin', 'aal1', $$select public.admin_delete_users(array['bbbbbbbb-0000-4000-8000-000000000002']::uuid[])$$, 'error:42501', 'aal1: admin_delete_users refused'),
  ('admin', 'aal1', $$update public.vehicles set daily_rate = 101 where id = '11111111-0000-4000-8000-00000000000a'$$, 'ok:0', 'aal1: a vehicle update touches nothing'),
  ('admin', 'aal1', $$insert into public.vehicles (name, make, model, year, category, daily_rate) values ('X', 'X', 'X', 2020, 'suv', 10)$$, 'error:42501', 'aal1: a vehicle insert is refused'),
  ('admin', 'aal1', $$update public.app_settings set value = value where section = 'system'$$, 'ok:0', 'aal1: settings writes touch nothing'),
  ('admin', 'aal1', 'select * from public.bookings', 'ok:0', 'aal1: no one else''s rental is readable'),
  ('admin', 'aal1', 'select * from public.profiles', 'ok:1', 'aal1: only the own profile is readable (the role the back office needs)'),
  ('admin', 'aal1', 'select * from public.contact_messages', 'ok:0', 'aal1: contact messages hidden'),
  ('admin', 'aal1', $$insert into storage.objects (bucket_id, name, version) values ('vehicles', 'new.svg', 'v3')$$, 'error:42501', 'aal1: vehicle photo upload refused'),
  ('admin', 'aal1', $$delete from storage.objects where bucket_id = 'vehicles'$$, 'ok:0', 'aal1: vehicle photo delete touches nothing'),
  ('admin', 'aal1', $$update public.profiles set email = 'x@example.cd' where user_id = auth.uid()$$, 'error:42501', 'aal1: the administrator is treated as a customer by protect_profile'),
  ('admin', null, 'select * from public.admin_users()', 'error:42501', 'no aal claim: admin_users refused'),
  -- aal2: allowed.
  ('admin', 'aal2', 'select * from public.admin_users()', 'ok:3', 'aal2: admin_users allowed'),
  ('admin', 'aal2', 'select public.admin_statistics(30)', 'ok:1', 'aal2: admin_statistics allowed'),
  ('admin', 'aal2', 'select public.admin_analytics(current_date - 30, current_date)', 'ok:1', 'aal2: admin_analytics allowed'),
  ('admin', 'aal2', $$update public.vehicles set daily_rate = 101 where id = '11111111-0000-4000-8000-00000000000a'$$, 'ok:1', 'aal2: a vehicle update is applied'),
  ('admin', 'aal2', $$update public.app_settings set value = value where section = 'system'$$, 'ok:1', 'aal2: settings writes applied'),
  ('admin', 'aal2', $$insert into storage.objects (bucket_id, name, version) values ('vehicles', 'new.svg', 'v3')$$, 'ok:1', 'aal2: vehicle photo upload allowed'),
  ('admin', 'aal2', 'select * from public.bookings', 'ok:2', 'aal2: every rental readable'),
  -- customers: unchanged, whatever their aal.
  ('a', 'aal1', 'select * from public.bookings', 'ok:1', 'a customer at aal1 reads their own rental'),
  ('a', 'aal2', 'select * from public.admin_users()', 'error:42501', 'a customer at aal2 is still no administrator'),
  ('a', 'aal2', $$update public.vehicles set daily_rate = 1$$, 'ok:0', 'a customer at aal2 updates no vehicle')
) as c(who, aal, stmt, want, what), lateral (select pg_temp.attempt_aal(c.who, c.aal, c.stmt) as got) t;

-- a customer with a verified factor at aal1 still reaches their own data.
insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
values ('fafafafa-0000-4000-8000-000000000002', 'aaaaaaaa-0000-4000-8000-000000000001', 'téléphone', 'totp', 'verified', now(), now(), 'JBSWY3DPEHPK3PXP');
select is(pg_temp.attempt_aal('a', 'aal1', 'select * from public.bookings'), 'ok:1', 'a customer with a factor at aal1 still reads their own rental');

-- removing the factor restores aal1 access.
delete from auth.mfa_factors where id = 'fafafafa-0000-4000-8000-000000000001';
select is(pg_temp.attempt_aal('admin', 'aal1', 'select * from public.admin_users()'), 'ok:3', 'after the factor is removed aal1 is enough again');

-- the private halves of the signing keys (V55) are the server's alone.
select is(pg_temp.attempt('anon', $$select 1 from auth.signing_keys$$), 'error:42501', 'a visitor cannot read the signing keys');
select is(pg_temp.attempt('admin', $$select 1 from auth.signing_keys$$), 'error:42501', 'nor can an administrator of the site');
select is(pg_temp.attempt('service_role', $$select 1 from auth.signing_keys$$), 'error:42501', 'nor the service role');
select is(pg_temp.attempt('authenticated', $$update auth.signing_keys set status = 'revoked'$$), 'error:42501', 'no API role can revoke or rotate a key');

select * from finish();
rollback;
