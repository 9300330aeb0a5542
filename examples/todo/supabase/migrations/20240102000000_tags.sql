-- Tags anyone may read; a function that counts a user's open to-dos.
create table public.tags (name text primary key, color text not null default 'grey');
alter table public.tags enable row level security;
create policy "Tags are public" on public.tags for select to anon, authenticated using (true);

create function public.open_todos() returns bigint
language sql stable security invoker
as $$
  select count(*) from public.todos where not is_complete;
$$;
