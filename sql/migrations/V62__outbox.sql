-- the outbox: mail and text messages written by the database in the transaction that causes
-- them, delivered afterwards by the server's outbox worker (server/src/outbox). a message is
-- sent only if its transaction commits, and is never lost once it has: a failed send stays in
-- the table and is tried again later, with a growing delay, until it goes or runs out of
-- attempts (then it is kept, marked failed, for an operator to read).
--
-- no api role may read or write it: messages hold addresses and texts. security definer
-- functions of the application (the booking notifications) enqueue through outbox.enqueue.

create schema if not exists outbox;
revoke all on schema outbox from public;

create table outbox.messages (
  id bigint generated always as identity primary key,
  channel text not null check (channel in ('email', 'sms')),
  -- an e-mail address, or a phone number as typed (the worker normalizes it).
  recipient text not null check (length(trim(recipient)) > 0),
  subject text,
  body_text text not null,
  -- optional: the worker builds one from the text when it is missing.
  body_html text,
  -- what the message is about (booking.received, booking.confirmed, ...): for logs and queries.
  topic text not null,
  -- a message enqueued twice under the same key is kept once (the day-before reminders).
  dedupe_key text unique,
  created_at timestamptz not null default now(),
  attempts int not null default 0,
  next_attempt_at timestamptz not null default now(),
  sent_at timestamptz,
  failed_at timestamptz,
  last_error text,
  constraint outbox_subject_of_mail check (channel <> 'email' or subject is not null)
);
create index outbox_messages_due_idx on outbox.messages (next_attempt_at) where sent_at is null and failed_at is null;
create index outbox_messages_topic_idx on outbox.messages (topic, created_at desc);

-- work the worker should run every so often (the day-before reminders): a function name and
-- its period. each instance's worker runs what is due; a row is locked while it runs, so two
-- instances never run it at once.
create table outbox.schedules (
  name text primary key,
  function_name text not null check (function_name ~ '^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$'),
  every interval not null check (every >= interval '1 second'),
  last_run_at timestamptz,
  last_error text
);

-- keep one message; returns its id (null when a message with that dedupe key already exists).
create function outbox.enqueue(
  channel text, recipient text, subject text, body_text text, topic text,
  dedupe_key text default null, body_html text default null
) returns bigint
language sql volatile security definer set search_path = ''
as $$
  insert into outbox.messages (channel, recipient, subject, body_text, body_html, topic, dedupe_key)
  values (enqueue.channel, trim(enqueue.recipient), enqueue.subject, enqueue.body_text, enqueue.body_html,
          enqueue.topic, enqueue.dedupe_key)
  on conflict (dedupe_key) do nothing
  returning id
$$;
revoke execute on function outbox.enqueue(text, text, text, text, text, text, text) from public;

-- wake the workers when messages are committed (they also poll, so a lost notification only
-- delays a message).
create function outbox.announce() returns trigger
language plpgsql
as $$
begin
  perform pg_notify('outbox', '');
  return null;
end
$$;

create trigger announce after insert on outbox.messages
for each statement execute function outbox.announce();

-- run the schedules that are due, each in its own subtransaction: one failing does not stop
-- the others and is noted on its row. returns how many ran.
create function outbox.run_due_schedules() returns int
language plpgsql volatile
as $$
declare
  s record;
  ran int := 0;
begin
  for s in
    select * from outbox.schedules
    where last_run_at is null or last_run_at + every <= now()
    order by name
    for update skip locked
  loop
    begin
      execute format('select %s()', s.function_name);
      update outbox.schedules set last_run_at = now(), last_error = null where name = s.name;
    exception when others then
      update outbox.schedules set last_run_at = now(), last_error = sqlerrm where name = s.name;
    end;
    ran := ran + 1;
  end loop;
  return ran;
end
$$;
revoke execute on function outbox.run_due_schedules() from public;
