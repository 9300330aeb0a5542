-- list-v2 (issue #16): `POST /storage/v1/object/list-v2/{bucket}` pages through a bucket in
-- byte order of the names, optionally grouping names by their next `/` into folders.
--
-- storage.list_v2_delimited walks the names with a skip scan: each step is one index lookup of
-- the next name after the cursor; a name with a `/` after the prefix yields its folder, and the
-- next lookup starts after everything under that folder. So a page of N entries costs at most
-- N + 1 lookups, however many objects the folders hold. It is SECURITY INVOKER: the caller's
-- row-level security decides which objects (and so which folders) exist for them.
--
-- Names compare with COLLATE "C" (code point order, the same on every server locale); the
-- index below serves those comparisons.

-- A time as storage-api's JSON writes it (JavaScript's Date#toISOString: UTC, milliseconds, `Z`).
create function storage.js_time(t timestamptz) returns text
language sql stable parallel safe
set search_path = ''
as $$ select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

grant execute on function storage.js_time(timestamptz) to anon, authenticated, service_role;

create index if not exists objects_bucket_name_c on storage.objects (bucket_id, name collate "C");

create function storage.list_v2_delimited(
  p_bucket text,
  p_prefix text,
  p_limit integer,
  p_after text,
  p_desc boolean
) returns table (name text, id uuid, updated_at timestamptz, created_at timestamptz, last_accessed_at timestamptz, metadata jsonb)
language plpgsql stable security invoker
set search_path = ''
as $$
declare
  -- a page that ended on a folder resumes after everything under it
  v_cursor text := case when not p_desc and right(coalesce(p_after, ''), 1) = '/' then p_after || U&'\+10FFFF'
                        else coalesce(p_after, '') end;
  v_pattern text := replace(replace(replace(coalesce(p_prefix, ''), '\', '\\'), '%', '\%'), '_', '\_') || '%';
  v_found integer := 0;
  v_row record;
  v_slash integer;
  v_folder text;
begin
  while v_found < p_limit loop
    if p_desc then
      select o.name, o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata into v_row
      from storage.objects o
      where o.bucket_id = p_bucket and o.name collate "C" like v_pattern
        and (v_cursor = '' or o.name collate "C" < v_cursor)
      order by o.name collate "C" desc limit 1;
    else
      select o.name, o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata into v_row
      from storage.objects o
      where o.bucket_id = p_bucket and o.name collate "C" like v_pattern
        and o.name collate "C" > v_cursor
      order by o.name collate "C" asc limit 1;
    end if;
    exit when not found;
    v_slash := strpos(substr(v_row.name, char_length(coalesce(p_prefix, '')) + 1), '/');
    if v_slash > 0 then
      v_folder := left(v_row.name, char_length(coalesce(p_prefix, '')) + v_slash);
      name := v_folder;
      id := null; updated_at := null; created_at := null; last_accessed_at := null; metadata := null;
      return next;
      -- past every name under the folder: ascending, after the folder and anything longer
      -- (U+10FFFF sorts after every character); descending, before the folder itself
      v_cursor := case when p_desc then v_folder else v_folder || U&'\+10FFFF' end;
    else
      name := v_row.name; id := v_row.id; updated_at := v_row.updated_at; created_at := v_row.created_at;
      last_accessed_at := v_row.last_accessed_at; metadata := v_row.metadata;
      return next;
      v_cursor := v_row.name;
    end if;
    v_found := v_found + 1;
  end loop;
end $$;

grant execute on function storage.list_v2_delimited(text, text, integer, text, boolean) to anon, authenticated, service_role;
