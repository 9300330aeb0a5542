-- profiles are created by the database when an account is created, and protect their role.
begin;
\ir setup.psql
select plan(7);

select is((select username from public.profiles where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'), 'alice', 'username is the part of the e-mail before @');
select is((select full_name from public.profiles where user_id = 'aaaaaaaa-0000-4000-8000-000000000001'), 'Alice Mbuyi', 'full name from the sign-up metadata');
select is((select full_name from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'), 'bob', 'full name falls back to the e-mail''s local part');
select is((select role from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'), 'user', 'new accounts are plain users');
select is((select email from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'), 'bob@example.cd', 'the profile carries the e-mail');
update auth.users set email = 'robert@example.cd' where id = 'bbbbbbbb-0000-4000-8000-000000000002';
select is((select email from public.profiles where user_id = 'bbbbbbbb-0000-4000-8000-000000000002'), 'robert@example.cd', 'an account e-mail change reaches the profile');
select is(pg_temp.attempt('a', $$select public.admin_statistics()$$), 'error:42501', 'statistics are for administrators only');

select * from finish();
rollback;
