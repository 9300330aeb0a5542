-- Auth grants in one statement each (issue #14): a refresh, and the session a sign-in starts once
-- the password matched, are one call that the server makes in one round trip, instead of ten
-- statements one after the other. The rules are those the server applied statement by statement:
-- a refresh token is used once; presenting a revoked one again inside the reuse interval gives
-- the session's current token, outside it revokes the whole session's tokens. The rate-limit
-- count, the audit row and a session's AAL/AMR have one definition here, which the server's
-- other flows call too.
--
-- These run on the server's owner connection, like every auth statement; no API role may call
-- them. They are PL/pgSQL, whose statement plans stay cached in the connection (a SQL-language
-- function called from another function is planned again on every call).

-- Count one event under a rate-limit key in its fixed window; the window's count so far.
-- Now and then, windows older than two hours are deleted.
create function auth.count_hit(p_key text, p_window_secs float8) returns integer
language plpgsql as $$
declare
  n integer;
begin
  insert into auth.rate_limits (key, window_start, count)
  values (p_key, to_timestamp(floor(extract(epoch from now())::float8 / p_window_secs) * p_window_secs), 1)
  on conflict (key, window_start) do update set count = auth.rate_limits.count + 1
  returning count into n;
  if random() < 0.01 then
    delete from auth.rate_limits where window_start < now() - interval '2 hours';
  end if;
  return n;
end $$;

-- One audit row in GoTrue's payload shape; the log type follows from the action.
create function auth.write_audit(p_actor uuid, p_username text, p_action text, p_traits jsonb, p_ip text)
returns void language plpgsql as $$
begin
  insert into auth.audit_log_entries (instance_id, id, payload, created_at, ip_address)
  values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(),
    jsonb_build_object(
      'actor_id', coalesce(p_actor::text, ''),
      'actor_username', coalesce(p_username, ''),
      'actor_via_sso', false,
      'action', p_action,
      'log_type', case
        when p_action in ('login', 'logout', 'login_failed', 'user_signedup', 'user_invited') then 'account'
        when p_action in ('token_refreshed', 'token_revoked') then 'token'
        else 'user' end,
      'traits', coalesce(p_traits, '{}'))::json,
    now(), coalesce(p_ip, ''));
end $$;

-- A session's assurance level and its authentication methods, newest first, as the access
-- token carries them (`aal1` for a session without a level).
create function auth.session_aal_amr(p_session uuid, out o_aal text, out o_amr json)
language plpgsql stable as $$
begin
  select coalesce((select s.aal::text from auth.sessions s where s.id = p_session), 'aal1'),
    coalesce((select json_agg(json_build_object('method', c.authentication_method,
                'timestamp', coalesce(extract(epoch from c.updated_at)::bigint, 0)) order by c.updated_at desc)
              from auth.mfa_amr_claims c where c.session_id = p_session and c.authentication_method is not null),
             '[]')
    into o_aal, o_amr;
end $$;

-- Start a session signed in by `p_method`, with its first refresh token.
create function auth.start_session(p_user uuid, p_session uuid, p_method text, p_token text,
  p_user_agent text, p_ip text) returns void
language plpgsql as $$
begin
  insert into auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at, user_agent, ip)
  values (p_session, p_user, now(), now(), 'aal1', now() at time zone 'utc', p_user_agent, p_ip::inet);
  insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id)
  values (p_session, now(), now(), p_method, gen_random_uuid());
  insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
  values ('00000000-0000-0000-0000-000000000000', p_token, p_user::text, false, now(), now(), null, p_session);
end $$;

-- A sign-in whose credentials were checked: the session, the user's sign-in time, the `login`
-- audit row. Gives what the access token needs and the sign-in time written on the user.
create function auth.grant_session(p_user uuid, p_session uuid, p_method text, p_token text,
  p_user_agent text, p_session_ip text, p_audit_ip text, p_traits jsonb,
  out o_aal text, out o_amr json, out o_signed_in_at timestamptz)
language plpgsql as $$
declare
  v_email text;
begin
  perform auth.start_session(p_user, p_session, p_method, p_token, p_user_agent, p_session_ip);
  update auth.users set last_sign_in_at = now(), updated_at = now() where id = p_user returning email into v_email;
  select c.o_aal, c.o_amr into o_aal, o_amr from auth.session_aal_amr(p_session) c;
  perform auth.write_audit(p_user, v_email, 'login', p_traits, p_audit_ip);
  o_signed_in_at := now();
end $$;

-- A refresh-token grant, rate limit included (`p_limit` 0: none). `o_outcome` says what
-- happened: `rate_limited`, `not_found` (no such token, or its session or user is gone),
-- `banned`, `already_used` (a revoked token outside the reuse interval: every token of the
-- session is now revoked), `reused` (inside it: the session's current token) or `refreshed`
-- (the token is revoked and `p_new_token` is its child).
create function auth.grant_refresh(p_token text, p_new_token text, p_reuse_interval float8, p_ip text,
  p_limit_key text, p_limit integer, p_window_secs float8,
  out o_outcome text, out o_user uuid, out o_session uuid, out o_token text, out o_aal text, out o_amr json)
language plpgsql as $$
declare
  t record;
  u record;
begin
  if p_limit > 0 then
    if auth.count_hit(p_limit_key, p_window_secs) > p_limit then
      o_outcome := 'rate_limited';
      return;
    end if;
  end if;
  select rt.id, rt.user_id, rt.revoked, rt.session_id,
         extract(epoch from (now() - rt.updated_at))::float8 as age
    into t from auth.refresh_tokens rt where rt.token = p_token for update;
  if not found or t.session_id is null then
    o_outcome := 'not_found';
    return;
  end if;
  perform 1 from auth.sessions s where s.id = t.session_id and (s.not_after is null or s.not_after > now());
  if not found then
    o_outcome := 'not_found';
    return;
  end if;
  select uu.id, uu.email, uu.banned_until into u from auth.users uu
   where uu.id = case when t.user_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                      then t.user_id::uuid end;
  if not found then
    o_outcome := 'not_found';
    return;
  end if;
  if u.banned_until is not null and u.banned_until > now() then
    o_outcome := 'banned';
    return;
  end if;
  o_user := u.id;
  o_session := t.session_id;
  if coalesce(t.revoked, false) then
    if coalesce(t.age, 0) <= p_reuse_interval then
      -- A retry shortly after rotation: the session's current token again.
      select rt.token into o_token from auth.refresh_tokens rt
       where rt.session_id = t.session_id and not rt.revoked order by rt.id desc limit 1;
    end if;
    if o_token is null then
      update auth.refresh_tokens rt set revoked = true, updated_at = now()
       where rt.session_id = t.session_id and not rt.revoked;
      perform auth.write_audit(null, '', 'token_revoked', '{"reason": "refresh_token_already_used"}', p_ip);
      o_outcome := 'already_used';
      return;
    end if;
    o_outcome := 'reused';
  else
    update auth.refresh_tokens rt set revoked = true, updated_at = now() where rt.id = t.id;
    insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
    values ('00000000-0000-0000-0000-000000000000', p_new_token, u.id::text, false, now(), now(), p_token, t.session_id);
    update auth.sessions s set refreshed_at = now() at time zone 'utc', updated_at = now() where s.id = t.session_id;
    o_token := p_new_token;
    o_outcome := 'refreshed';
  end if;
  select c.o_aal, c.o_amr into o_aal, o_amr from auth.session_aal_amr(t.session_id) c;
  perform auth.write_audit(u.id, u.email, 'token_refreshed', '{}', p_ip);
end $$;

revoke execute on function auth.count_hit(text, float8), auth.write_audit(uuid, text, text, jsonb, text),
  auth.session_aal_amr(uuid), auth.start_session(uuid, uuid, text, text, text, text),
  auth.grant_session(uuid, uuid, text, text, text, text, text, jsonb),
  auth.grant_refresh(text, text, float8, text, text, integer, float8) from public;
