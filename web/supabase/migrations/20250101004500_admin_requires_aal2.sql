-- an administrator who has enrolled a second factor is an administrator only in a session that
-- proved it (jwt claim aal = 'aal2'): a stolen password alone no longer opens the back office.
-- an administrator without a verified factor keeps working at aal1 until they enrol one
-- (supabase's documented rls pattern for mfa). every admin-only policy and function of the app
-- (v35 policies, v36 admin_statistics, v37 bucket policies, v40–v44) goes through is_admin(),
-- so they all inherit the rule; the customer side of each policy (user_id = auth.uid()) is
-- unchanged, so an administrator at aal1 still reads their own profile (the back office needs
-- the role to show its two-factor challenge).
--
-- any verified factor counts (the server enrols totp only), as gotrue's nextLevel does.

create or replace function public.is_admin() returns boolean
language sql stable security definer set search_path = ''
as $$
  select exists (select 1 from public.profiles where user_id = auth.uid() and role = 'admin')
     and (
       coalesce(auth.jwt() ->> 'aal', '') = 'aal2'
       or not exists (
         select 1 from auth.mfa_factors f
         where f.user_id = auth.uid() and f.status = 'verified'
       )
     )
$$;
