-- Demo data, loaded once on a fresh database.
insert into public.tags (name, color) values ('home', 'green'), ('work', 'blue'), ('errands', 'orange');
insert into public.todos (user_id, task) values
  ('00000000-0000-4000-8000-000000000001', 'Water the plants'),
  ('00000000-0000-4000-8000-000000000001', 'Call the garage'),
  ('00000000-0000-4000-8000-000000000002', 'Book the airport transfer');
