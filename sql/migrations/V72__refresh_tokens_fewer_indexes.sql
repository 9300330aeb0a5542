-- Issue #14: a refresh of algorithm 1 revokes the presented token and inserts its child. With
-- GoTrue's six indexes on `auth.refresh_tokens`, that was twelve index insertions per refresh:
-- the revoke could not be a HOT update, since `revoked` and `updated_at` are both indexed. The
-- server looks tokens up only by `token` (unique) and by `session_id` (the session's current
-- token, its revocation, the cascade from `auth.sessions`); nothing reads by `parent`, by
-- `(instance_id, user_id)` or by `updated_at`. So the table keeps its primary key, the unique
-- `token` and an index on `session_id` alone: an insert maintains three indexes, and the revoke
-- touches no indexed column and is a HOT update when the page has room, which a fill factor of
-- 90 leaves for it.
--
-- `audit_log_entries` loses `audit_logs_instance_id_idx`: every row carries the same instance id,
-- so the index selects nothing, and each sign-in and refresh paid an insertion into it.
create index if not exists refresh_tokens_session_id_idx on auth.refresh_tokens (session_id);
drop index if exists auth.refresh_tokens_session_id_revoked_idx;
drop index if exists auth.refresh_tokens_instance_id_user_id_idx;
drop index if exists auth.refresh_tokens_parent_idx;
drop index if exists auth.refresh_tokens_updated_at_idx;
alter table auth.refresh_tokens set (fillfactor = 90);

drop index if exists auth.audit_logs_instance_id_idx;
