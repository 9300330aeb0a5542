//! Refresh grants that arrive together are granted together: one statement, one commit.
//!
//! Every supabase-js client refreshes its session every hour and whenever a tab wakes up, and
//! a refresh is a stored rotation: its price is mostly the statement's start-up, the commit
//! with its WAL flush and the round trip, not the one or two rows it writes. So refreshes
//! queue here, process-wide, and a drain task takes everything queued in one statement per
//! algorithm (`unnest` over the grants' parameters). At most [`MAX_IN_FLIGHT`] such statements
//! run at once; what arrives while they run waits for the next, so batches grow with the load
//! and a lone refresh waits for nothing but one turn of its worker's event loop.
//!
//! A batch grants only the common case, each grant exactly as the single statement would: the
//! current token, a live session, a user not banned, under the rate limit (whose hits are
//! counted per key, in order). Every other grant answers "not granted" with its hit counted,
//! and the caller sorts it out with the grant functions, as before. Two grants of one session
//! or one token in a batch: the update touches the row once, so one is granted and the other
//! is not (it is then a reuse, which the functions handle). A batch that fails as a whole (a
//! deadlock with another batch, a lost connection) answers [`Outcome::Failed`] to each, and
//! each caller runs its grant alone.

use std::sync::{Arc, Mutex, PoisonError};

use deadpool_postgres::Pool;
use tokio::sync::oneshot;
use tokio_postgres::types::ToSql;
use tokio_postgres::Row;
use uuid::Uuid;

use super::users;
use crate::db::cached::Db;

/// Batch statements running at once (each on its own pooled connection). One: most of a batch
/// statement's cost is its start (the executor of a dozen CTEs and sub-plans) and its commit,
/// whatever the number of grants, so the fewer statements the cheaper each grant. At 16 chains of
/// refreshes (`make bench-peer`), one statement at a time took 7.5 grants per statement against
/// 4.4 with two, at 0.75–0.85x the CPU per grant and a higher rate; while it runs, what arrives
/// waits for the next, as it did with two once both were busy.
const MAX_IN_FLIGHT: usize = 1;
/// Grants in one statement at most.
const MAX_BATCH: usize = 64;

/// Counts the rate-limit hits of a batch (`limit` > 0: a limit; `window`: its window in
/// seconds), one upsert per key, and gives each grant its hit number in order: `hits(ord, n)`.
/// `input` holds the batch's grants. Without a limit, every hit is 0 and the statement touches
/// no counter: a data-modifying CTE runs (opens and locks its table and indexes) even when its
/// condition is false, so the counting CTEs are left out of the text rather than switched off.
fn hits_ctes(limit: i32, window: f64) -> String {
    if limit <= 0 {
        return "hits as (select i.ord, 0 as n from input i)".to_string();
    }
    let window = format!("{window:?}::float8");
    format!(
        "keyed as (select limit_key, count(*)::int as n from input group by limit_key), \
         counted as ( \
           insert into auth.rate_limits as r (key, window_start, count) \
           select k.limit_key, to_timestamp(floor(extract(epoch from now())::float8 / {window}) * {window}), k.n from keyed k \
           on conflict (key, window_start) do update set count = r.count + excluded.count \
           returning r.key, r.count), \
         swept as ( \
           delete from auth.rate_limits where (select random()) < 0.01 \
              and window_start < now() - interval '2 hours'), \
         hits as ( \
           select i.ord, coalesce(c.count - k.n + (row_number() over (partition by i.limit_key order by i.ord))::int, 0) as n \
             from input i left join keyed k on k.limit_key = i.limit_key left join counted c on c.key = i.limit_key)"
    )
}

/// The audit row GoTrue writes for a refresh, one per granted row of `source` (which has
/// `user_id`, `email` and `ip`).
fn audit_cte(source: &str) -> String {
    format!(
        "audit as ( \
           insert into auth.audit_log_entries (instance_id, id, payload, created_at, ip_address) \
           select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), \
             jsonb_build_object('actor_id', g.user_id::text, 'actor_username', coalesce(g.email, ''), \
               'actor_via_sso', false, 'action', 'token_refreshed', 'log_type', 'token', 'traits', '{{}}'::jsonb)::json, \
             now(), coalesce(g.ip, '') from {source} g)"
    )
}

/// A session's methods, newest first, as the access token carries them.
const AMR: &str = "(select coalesce(json_agg(json_build_object('method', c.authentication_method, \
    'timestamp', coalesce(extract(epoch from c.updated_at)::bigint, 0)) order by c.updated_at desc), '[]') \
    from auth.mfa_amr_claims c where c.session_id = g.session_id and c.authentication_method is not null) as amr";

/// The rows of a batch: `unnest` over its arrays, each a scalar subquery. Postgres plans a
/// prepared statement for its parameters' values five times and then keeps the generic plan only
/// if that costs no more; given the arrays' values, it counts their elements and finds the
/// custom plan cheaper, so it would plan this statement again on every call (1.3 ms against
/// 0.3 for the whole statement, measured with one grant). Behind a subquery the arrays have no
/// length the planner can see, in either plan, and the generic plan is kept. For the same reason
/// the rate limit and its window are written into the text rather than passed as parameters.
fn input(arrays: &[&str], columns: &str) -> String {
    let arrays: Vec<String> = arrays.iter().map(|a| format!("(select {a})")).collect();
    format!("input as (select * from unnest({}) with ordinality as i({columns}, ord))", arrays.join(", "))
}

/// Algorithm 2: sessions, counters, signed bytes, signatures, IPs, limit keys. A row per grant
/// in order: `hits`, `counter` and `key` (null: not granted), `aal`, `amr`, the user. The
/// conditions are those of `sessions::REFRESH_V2_CURRENT`.
fn v2_sql(limit: i32, window: f64) -> String {
    format!(
        "with {input}, {hits}, \
         granted as ( \
           update auth.sessions ss \
              set refresh_token_counter = ss.refresh_token_counter + 1, \
                  refreshed_at = now() at time zone 'utc', updated_at = now() \
             from input i, hits h, auth.users uu \
            where h.ord = i.ord and ss.id = i.session_id and ss.refresh_token_counter = i.counter \
              and ss.refresh_token_hmac_key is not null and (ss.not_after is null or ss.not_after > now()) \
              and uu.id = ss.user_id and (uu.banned_until is null or uu.banned_until <= now()) \
              and ({limit} <= 0 or h.n <= {limit}) \
              and substr(extensions.hmac(i.signed, decode(ss.refresh_token_hmac_key, 'base64'), 'sha256'), 1, 16) = i.signature \
           returning i.ord, ss.id as session_id, ss.user_id, uu.email, ss.aal, i.ip, \
             ss.refresh_token_counter, ss.refresh_token_hmac_key), \
         {audit} \
         select h.n as hits, g.refresh_token_counter as counter, g.refresh_token_hmac_key as key, \
           coalesce(g.aal::text, 'aal1') as aal, {AMR}, {columns} \
         from hits h left join granted g on g.ord = h.ord left join auth.users u on u.id = g.user_id \
         order by h.ord",
        input = input(
            &["$1::uuid[]", "$2::int8[]", "$3::bytea[]", "$4::bytea[]", "$5::text[]", "$6::text[]"],
            "session_id, counter, signed, signature, ip, limit_key"
        ),
        hits = hits_ctes(limit, window),
        audit = audit_cte("granted"),
        columns = users::COLUMNS
    )
}

/// Algorithm 1: presented tokens, new tokens, IPs, limit keys. A row per grant in order: `hits`, `session` and `token` (null: not granted), `aal`, `amr`, the user. The
/// conditions are those of `auth.grant_refresh`'s rotation: the token is not revoked, its
/// session is live, its user exists and is not banned. The presented token is revoked, the new
/// one is its child, the session is touched.
fn v1_sql(limit: i32, window: f64) -> String {
    format!(
        "with {input}, {hits}, \
         rotated as ( \
           update auth.refresh_tokens rt set revoked = true, updated_at = now() \
             from input i, hits h, auth.sessions s, auth.users uu \
            where h.ord = i.ord and rt.token = i.token and not coalesce(rt.revoked, false) \
              and s.id = rt.session_id and (s.not_after is null or s.not_after > now()) \
              and uu.id = case when rt.user_id ~* '^[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}$' \
                               then rt.user_id::uuid end \
              and (uu.banned_until is null or uu.banned_until <= now()) \
              and ({limit} <= 0 or h.n <= {limit}) \
           returning i.ord, i.token, i.new_token, i.ip, rt.session_id, uu.id as user_id, uu.email, s.aal), \
         issued as ( \
           insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id) \
           select '00000000-0000-0000-0000-000000000000', g.new_token, g.user_id::text, false, now(), now(), g.token, g.session_id \
             from rotated g), \
         touched as ( \
           update auth.sessions s set refreshed_at = now() at time zone 'utc', updated_at = now() \
             from rotated g where s.id = g.session_id), \
         {audit} \
         select h.n as hits, g.session_id as session, g.new_token as token, \
           coalesce(g.aal::text, 'aal1') as aal, {AMR}, {columns} \
         from hits h left join rotated g on g.ord = h.ord left join auth.users u on u.id = g.user_id \
         order by h.ord",
        input = input(&["$1::text[]", "$2::text[]", "$3::text[]", "$4::text[]"], "token, new_token, ip, limit_key"),
        hits = hits_ctes(limit, window),
        audit = audit_cte("rotated"),
        columns = users::COLUMNS
    )
}

/// A grant's parameters.
#[derive(Debug)]
pub enum Grant {
    /// Algorithm 1: the presented token and the one to hand out if it is granted.
    V1 { token: String, new_token: String },
    /// Algorithm 2: the parsed token.
    V2 { session: Uuid, counter: i64, signed: Vec<u8>, signature: Vec<u8> },
}

/// What a batch answered for one grant.
#[derive(Debug)]
pub enum Outcome {
    /// The grant's row: granted when its `counter` (algorithm 2) or `token` (algorithm 1) is
    /// not null; otherwise its hit is counted and the grant functions decide.
    Row(Row),
    /// The batch failed as a whole (nothing of it was kept); the caller grants alone.
    Failed,
}

struct Queued {
    grant: Grant,
    ip: String,
    limit_key: String,
    reply: oneshot::Sender<Outcome>,
}

#[derive(Default)]
struct Queue {
    v1: Vec<Queued>,
    v2: Vec<Queued>,
    /// Grants taken into a batch that has not answered yet.
    running: usize,
    /// Drain tasks alive.
    draining: usize,
    /// A drain task has been spawned and has not taken its first batch yet: later arrivals
    /// join it rather than spawning another.
    starting: bool,
}

/// The process's refresh queue (one per `AuthState`).
pub struct RefreshBatch {
    pool: Pool,
    /// The statements of each algorithm, with the rate limit written in.
    v1: String,
    v2: String,
    queue: Mutex<Queue>,
}

impl std::fmt::Debug for RefreshBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RefreshBatch").finish_non_exhaustive()
    }
}

impl RefreshBatch {
    /// Grants on `pool`'s connections, rate-limited at `limit` per `window` seconds (0: none).
    pub fn new(pool: Pool, limit: i32, window: f64) -> Arc<RefreshBatch> {
        Arc::new(RefreshBatch { pool, v1: v1_sql(limit, window), v2: v2_sql(limit, window), queue: Mutex::default() })
    }

    /// Grants queued or in a batch that has not answered yet.
    pub fn pending(&self) -> usize {
        let queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        queue.v1.len() + queue.v2.len() + queue.running
    }

    /// Queue a grant and wait for its batch's answer.
    pub async fn grant(self: &Arc<Self>, grant: Grant, ip: &str, limit_key: &str) -> Outcome {
        let (reply, answer) = oneshot::channel();
        let queued = Queued { grant, ip: ip.to_string(), limit_key: limit_key.to_string(), reply };
        let spawn = {
            let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            match queued.grant {
                Grant::V1 { .. } => queue.v1.push(queued),
                Grant::V2 { .. } => queue.v2.push(queued),
            }
            let spawn = !queue.starting && queue.draining < MAX_IN_FLIGHT;
            if spawn {
                queue.starting = true;
                queue.draining += 1;
            }
            spawn
        };
        if spawn {
            tokio::spawn(self.clone().drain());
        }
        answer.await.unwrap_or(Outcome::Failed)
    }

    /// Take batches until the queue is empty. The first waits one turn of the event loop, so
    /// that the grants whose requests are ready on this worker join it.
    async fn drain(self: Arc<Self>) {
        let mut alive = Alive { batch: &self, armed: true };
        tokio::task::yield_now().await;
        loop {
            let batch = {
                let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
                queue.starting = false;
                let from = if queue.v2.len() >= queue.v1.len() { &mut queue.v2 } else { &mut queue.v1 };
                let n = from.len().min(MAX_BATCH);
                let batch = from.drain(..n).collect::<Vec<_>>();
                queue.running += batch.len();
                if batch.is_empty() {
                    // Counted out under the lock that saw the queue empty: a grant queued after
                    // this spawns a drain of its own.
                    queue.draining -= 1;
                    alive.armed = false;
                    return;
                }
                batch
            };
            let taken = batch.len();
            self.run(batch).await;
            self.queue.lock().unwrap_or_else(PoisonError::into_inner).running -= taken;
        }
    }

    /// Run one batch (all of one algorithm) and answer each grant.
    async fn run(&self, batch: Vec<Queued>) {
        let rows = match self.pool.get().await {
            Ok(client) => self.query(&client, &batch).await,
            Err(e) => Err(e.to_string()),
        };
        match rows {
            Ok(rows) if rows.len() == batch.len() => {
                for (queued, row) in batch.into_iter().zip(rows) {
                    let _ = queued.reply.send(Outcome::Row(row));
                }
            }
            Ok(rows) => {
                tracing::warn!(grants = batch.len(), rows = rows.len(), "refresh batch answered a different count");
                fail(batch);
            }
            Err(e) => {
                tracing::warn!(grants = batch.len(), error = %e, "refresh batch failed; granting one by one");
                fail(batch);
            }
        }
    }

    async fn query(&self, db: &impl Db, batch: &[Queued]) -> Result<Vec<Row>, String> {
        let ips: Vec<&str> = batch.iter().map(|q| q.ip.as_str()).collect();
        let keys: Vec<&str> = batch.iter().map(|q| q.limit_key.as_str()).collect();
        let result = if matches!(batch[0].grant, Grant::V2 { .. }) {
            let (mut sessions, mut counters, mut signed, mut signatures) = (vec![], vec![], vec![], vec![]);
            for q in batch {
                if let Grant::V2 { session, counter, signed: s, signature } = &q.grant {
                    sessions.push(*session);
                    counters.push(*counter);
                    signed.push(s.as_slice());
                    signatures.push(signature.as_slice());
                }
            }
            let params: [&(dyn ToSql + Sync); 6] = [&sessions, &counters, &signed, &signatures, &ips, &keys];
            db.cached_query(&self.v2, &params).await
        } else {
            let (mut tokens, mut new_tokens) = (vec![], vec![]);
            for q in batch {
                if let Grant::V1 { token, new_token } = &q.grant {
                    tokens.push(token.as_str());
                    new_tokens.push(new_token.as_str());
                }
            }
            let params: [&(dyn ToSql + Sync); 4] = [&tokens, &new_tokens, &ips, &keys];
            db.cached_query(&self.v1, &params).await
        };
        result.map_err(|e| e.to_string())
    }
}

fn fail(batch: Vec<Queued>) {
    for queued in batch {
        let _ = queued.reply.send(Outcome::Failed);
    }
}

/// Counts a drain task out if it ends other than by finding the queue empty (its runtime
/// shutting down).
struct Alive<'a> {
    batch: &'a RefreshBatch,
    armed: bool,
}

impl Drop for Alive<'_> {
    fn drop(&mut self) {
        if self.armed {
            let mut queue = self.batch.queue.lock().unwrap_or_else(PoisonError::into_inner);
            queue.draining -= 1;
            queue.starting = false;
        }
    }
}
