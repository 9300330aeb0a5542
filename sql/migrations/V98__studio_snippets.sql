-- the sql editor's saved snippets: named statements an operator keeps, each their own (another
-- operator neither lists nor opens them). a name is unique per operator, so "save" on a name
-- that exists is refused rather than silently overwriting another snippet.
create table _studio.snippets (
  id uuid primary key default gen_random_uuid(),
  operator_id uuid not null references _studio.operators (id) on delete cascade,
  name text not null check (length(btrim(name)) between 1 and 200),
  sql text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index snippets_operator_name_idx on _studio.snippets (operator_id, lower(name));
