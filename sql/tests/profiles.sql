-- profiles are created by the database when an account is created, and protect their role.
begin;
\ir setup.psql
select plan(10);

select is((select username from public.profiles where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'), 'alice', 'username is the part of the e-mail before @');
select is((select full_name from public.profiles where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'), 'Alice Mbuyi', 'full name from the sign-up metadata');
select is((select full_name from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'), 'bob', 'full name falls back to the e-mail''s local part');
select is((select role from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'), 'user', 'new accounts are plain users');
select is((select email from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'), 'bob@example.cd', 'the profile carries the e-mail');
update auth.users set email = 'robert@example.cd' where id = 'bbbbbbbb-0000-4000-8000-000000000002';
select is((select email from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'), 'robert@example.cd', 'an account e-mail change reaches the profile');
select is(pg_temp.attempt('a', $$select public.admin_statistics()$$), 'error:42501', 'statistics are for administrators only');

-- a customer who signs up by phone keeps the number in the profile (V56).
insert into auth.users (id, phone) values ('eeeeeeee-0000-4000-8000-000000000005', '243812345678');
select is((select phone from public.profiles where user_id = 'eeeeeeee-0000-4000-8000-000000000005'), '+243812345678', 'a phone sign-up''s number is in its profile');
select is((select username from public.profiles where user_id = 'eeeeeeee-0000-4000-8000-000000000005'), 'user_eeeeeeee', 'and its username falls back to the id');
update auth.users set phone = '243990000001' where id = 'eeeeeeee-0000-4000-8000-000000000005';
select is((select phone from public.profiles where user_id = 'eeeeeeee-0000-4000-8000-000000000005'), '+243990000001', 'a confirmed phone change reaches the profile');

select * from finish();
rollback;
