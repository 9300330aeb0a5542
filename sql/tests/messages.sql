-- the back office's messages inbox (V66): administrators read, mark read, archive and reply
-- (the reply mailed to the sender through the outbox); nobody edits a message's words; a sent
-- message arrives unread whatever the form sent.
begin;
\ir setup.psql
\set QUIET 1

select plan(13);

delete from outbox.messages;
insert into public.contact_messages (id, name, email, phone, subject, message, created_at) values
  ('c1000000-0000-4000-8000-000000000001', 'Marie Kabila', 'marie@example.cd', '+243810000005', 'reservation', E'Bonjour,\nle Land Cruiser est-il libre en décembre ?', '2026-11-20 09:30+01');

select is(pg_temp.attempt('anon', $$insert into public.contact_messages (name, email, subject, message, read_at, replied_at, reply, archived_at)
  values ('Faux', 'f@example.cd', 'other', 'Bonjour', now(), now(), 'déjà répondu', now())$$), 'ok:1', 'a visitor sends a message');
set local role anon;
insert into public.contact_messages (name, email, subject, message, read_at, replied_at, reply, archived_at)
values ('Faux', 'f@example.cd', 'other', 'Bonjour', now(), now(), 'déjà répondu', now());
reset role;
select is((select row(read_at, replied_at, reply, archived_at, handled)::text from public.contact_messages where name = 'Faux'), '(,,,,f)',
  'whatever the form sent, it arrives unread, unanswered, in the inbox');

select is(pg_temp.attempt('admin', $$update public.contact_messages set read_at = now() where id = 'c1000000-0000-4000-8000-000000000001'$$), 'ok:1', 'an administrator marks a message read');
select is(pg_temp.attempt('admin', $$update public.contact_messages set message = 'autre chose' where id = 'c1000000-0000-4000-8000-000000000001'$$), 'error:42501', 'but does not change its words');
select is(pg_temp.attempt('admin', $$update public.contact_messages set reply = 'oui', replied_at = now() where id = 'c1000000-0000-4000-8000-000000000001'$$), 'error:42501', 'nor writes a reply by hand');
select is(pg_temp.attempt('a', $$update public.contact_messages set read_at = now()$$), 'ok:0', 'a customer sees no message to mark');
select is(pg_temp.attempt('a', $$select public.admin_reply_message('c1000000-0000-4000-8000-000000000001', 'Oui, il est libre.')$$), 'error:42501', 'a customer cannot reply');
select is(pg_temp.attempt('admin', $$select public.admin_reply_message('c1000000-0000-4000-8000-000000000001', ' ')$$), 'error:23514', 'an empty reply is refused');

-- the reply
select set_config('request.jwt.claims', '{"sub": "adadadad-0000-4000-8000-000000000003", "role": "authenticated"}', true);
set local role authenticated;
select public.admin_reply_message('c1000000-0000-4000-8000-000000000001', 'Oui, il est libre du 10 au 20 décembre.');
reset role;
select is((select (replied_at is not null, read_at is not null, handled, reply, replied_by)::text from public.contact_messages where id = 'c1000000-0000-4000-8000-000000000001'),
  '(t,t,t,"Oui, il est libre du 10 au 20 décembre.",adadadad-0000-4000-8000-000000000003)', 'the reply is noted: replied, read, handled, by whom');
select is((select recipient || ' | ' || subject from outbox.messages), 'marie@example.cd | Réponse à votre réservation — Kinshasa Prestige Auto', 'and mailed to the sender');
select matches((select body_text from outbox.messages), E'^Bonjour Marie Kabila,\n\nOui, il est libre du 10 au 20 décembre\\.', 'greeting them, with the reply');
select matches((select body_text from outbox.messages), E'Votre message du 20/11/2026 à 09:30 :\n> Bonjour,\n> le Land Cruiser est-il libre en décembre \\?$', 'and their message quoted');

select is(pg_temp.attempt('admin', $$update public.contact_messages set archived_at = now() where name = 'Faux'$$), 'ok:1', 'an administrator archives a message');

select * from finish();
rollback;
