-- Row-level security evaluated once per statement (issue #14, item 4): every policy of the
-- application's schemas that calls is_admin(), auth.uid(), auth.jwt() or auth.role() calls it
-- through a scalar subquery, `(select auth.uid())`, as Supabase advises. Postgres then runs it
-- once per statement as an InitPlan instead of once per row: an administrator's list of 10,000
-- rows asked is_admin() 10,000 times (and again inside each nested policy). The results do not
-- depend on the row, so what each policy allows is unchanged (the pgTAP policy tests say so).
--
-- Rewritten from the catalog, so policies created by earlier migrations need no copy here and
-- running it again changes nothing (a wrapped call is left as it is).
do $$
declare
  p record;
  calls constant text := '(?<!SELECT )((public\.)?is_admin\(\)|auth\.(uid|jwt|role)\(\))';
  using_expr text;
  check_expr text;
begin
  for p in
    select pol.polname, n.nspname, c.relname,
           pg_get_expr(pol.polqual, pol.polrelid) as qual,
           pg_get_expr(pol.polwithcheck, pol.polrelid) as with_check
    from pg_policy pol
    join pg_class c on c.oid = pol.polrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname in ('public', 'storage', 'realtime')
  loop
    using_expr := regexp_replace(p.qual, calls, '(select \1)', 'g');
    check_expr := regexp_replace(p.with_check, calls, '(select \1)', 'g');
    if using_expr is distinct from p.qual then
      execute format('alter policy %I on %I.%I using (%s)', p.polname, p.nspname, p.relname, using_expr);
    end if;
    if check_expr is distinct from p.with_check then
      execute format('alter policy %I on %I.%I with check (%s)', p.polname, p.nspname, p.relname, check_expr);
    end if;
  end loop;
end $$;
