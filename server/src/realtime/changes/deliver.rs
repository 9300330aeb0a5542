//! Delivery of changes: match bindings, decide who may see each change, send the frames.
//!
//! A subscriber needs `select` on the table. Deletes, tables without row-level security and
//! roles that bypass it need nothing more (a delete's old row is then cut to its primary key,
//! as Supabase does). Otherwise the row must be visible to the subscriber's role and claims
//! now: subscribers are grouped by (role, claims), and one pipelined transaction on a request
//! connection sets each group's context and checks all of its changed rows per table at once,
//! so the cost is one round trip per batch of changes and one small statement per group and
//! table — not one round trip per subscriber.

use crate::db::cached::CachedQueries;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use futures_util::future::join_all;
use serde_json::{json, Map, Value};

use super::binding::Event;
use super::decode::Change;
use super::Subscription;
use crate::db::context::{ContextValues, RequestInfo, SET_CONTEXT};
use crate::db::quote_ident;
use crate::realtime::hub::Encoded;
use crate::realtime::protocol;
use crate::realtime::Realtime;

/// A change a subscriber's bindings want: which change, which subscriber, which binding ids.
struct Candidate {
    change: usize,
    sub: usize,
    ids: Vec<u32>,
    /// The role bypasses row-level security (gets whole old rows).
    bypass: bool,
}

/// Deliver `changes` to `subs`.
pub async fn deliver(rt: &Realtime, changes: &[Arc<Change>], subs: Vec<Arc<Subscription>>) {
    if subs.is_empty() {
        return;
    }
    let mut candidates = Vec::new();
    for (ci, change) in changes.iter().enumerate() {
        let rel = &change.relation;
        for (si, sub) in subs.iter().enumerate() {
            let ids: Vec<u32> = sub
                .bindings
                .iter()
                .filter(|b| b.wants(&rel.schema, &rel.table, change.kind, change.row()))
                .map(|b| b.id)
                .collect();
            if !ids.is_empty() {
                candidates.push(Candidate { change: ci, sub: si, ids, bypass: false });
            }
        }
    }
    if candidates.is_empty() {
        return;
    }
    // Who may read the table at all, and who bypasses row-level security.
    let mut visible = Vec::new();
    let mut to_check: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, cand) in candidates.iter_mut().enumerate() {
        let change = &changes[cand.change];
        let caller = &subs[cand.sub].caller;
        if !may_select(rt, &caller.role, change.relation.oid).await {
            continue;
        }
        cand.bypass = bypasses_rls(rt, &caller.role).await;
        if change.kind == Event::Delete || !change.relation.rls || cand.bypass {
            visible.push(i);
        } else {
            to_check.entry((caller.role.clone(), caller.claims.to_string())).or_default().push(i);
        }
    }
    if !to_check.is_empty() {
        match check_rows(rt, changes, &candidates, &subs, &to_check).await {
            Ok(passed) => visible.extend(passed),
            Err(err) => tracing::warn!(error = %err, "realtime: row-level-security check failed; changes withheld"),
        }
    }
    send(changes, &candidates, &subs, visible);
}

async fn may_select(rt: &Realtime, role: &str, table: u32) -> bool {
    let key = (role.to_string(), table);
    if let Some(known) = rt.changes.privileges.get(&key) {
        return known;
    }
    let Ok(client) = rt.pools.admin.get().await else { return false };
    let allowed = client
        .cached_query_one(
            "select exists(select from pg_roles where rolname = $1) and has_table_privilege($1, $2::oid, 'SELECT')",
            &[&role, &table],
        )
        .await
        .map(|r| r.get::<_, bool>(0))
        .unwrap_or(false);
    rt.changes.privileges.insert(key, allowed);
    allowed
}

async fn bypasses_rls(rt: &Realtime, role: &str) -> bool {
    if let Some(known) = rt.changes.bypass.get(role) {
        return known;
    }
    let Ok(client) = rt.pools.admin.get().await else { return false };
    let bypass = client
        .cached_query_opt("select rolbypassrls or rolsuper from pg_roles where rolname = $1", &[&role])
        .await
        .ok()
        .flatten()
        .map(|r| r.get::<_, bool>(0))
        .unwrap_or(false);
    rt.changes.bypass.insert(role.to_string(), bypass);
    bypass
}

/// The statement that returns which of a JSON array of primary keys (1-based positions) the
/// current role and claims can select in `table`.
fn check_sql(schema: &str, table: &str, key: &[String]) -> String {
    let qualified = format!("{}.{}", quote_ident(schema), quote_ident(table));
    let cols: Vec<String> = key.iter().map(|k| format!("t.{}", quote_ident(k))).collect();
    let wanted: Vec<String> = key.iter().map(|k| format!("p.{}", quote_ident(k))).collect();
    format!(
        "select coalesce(array_agg(k.i::int4), '{{}}') from jsonb_array_elements($1::text::jsonb) with ordinality k(v, i) \
         cross join lateral jsonb_populate_record(null::{qualified}, k.v) p \
         where exists (select 1 from {qualified} t where ({}) = ({}))",
        cols.join(", "),
        wanted.join(", ")
    )
}

type Step<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Option<(usize, Vec<i32>)>, tokio_postgres::Error>> + Send + 'a>,
>;

/// Run the row checks of every group in one pipelined, rolled-back transaction; returns the
/// candidates whose row is visible.
async fn check_rows(
    rt: &Realtime,
    changes: &[Arc<Change>],
    candidates: &[Candidate],
    subs: &[Arc<Subscription>],
    groups: &BTreeMap<(String, String), Vec<usize>>,
) -> Result<Vec<usize>, String> {
    let pooled = rt.pools.request.get().await.map_err(|e| e.to_string())?;
    let request = RequestInfo {
        method: "GET".into(),
        path: "/realtime/v1/websocket".into(),
        headers: json!({}),
        settings: Vec::new(),
    };
    // Per group and table: the candidates and the keys (as JSON text) to check.
    struct Check {
        group: usize,
        candidates: Vec<usize>,
        keys: String,
        sql: String,
    }
    let mut checks = Vec::new();
    let mut callers = Vec::new();
    for (g, members) in groups.values().enumerate() {
        callers.push(&subs[candidates[members[0]].sub].caller);
        let mut by_table: HashMap<u32, Vec<usize>> = HashMap::new();
        for &m in members {
            by_table.entry(changes[candidates[m].change].relation.oid).or_default().push(m);
        }
        for members in by_table.into_values() {
            let rel = &changes[candidates[members[0]].change].relation;
            if rel.primary_key.is_empty() {
                tracing::warn!(table = %rel.table, "realtime: a table with row-level security but no primary key cannot be checked; its changes are withheld");
                continue;
            }
            let sql = check_sql(&rel.schema, &rel.table, &rel.primary_key);
            let keys = Value::Array(members.iter().map(|&m| changes[candidates[m].change].key()).collect());
            checks.push(Check { group: g, candidates: members, keys: keys.to_string(), sql });
        }
    }
    let passed_of = |index: usize, positions: &[i32]| -> Vec<usize> {
        let check = &checks[index];
        positions.iter().filter_map(|p| check.candidates.get((*p as usize).wrapping_sub(1)).copied()).collect()
    };
    if crate::db::cached::unnamed() {
        // Behind a transaction-mode pooler: one step after the other inside the transaction.
        pooled.batch_execute("BEGIN READ ONLY").await.map_err(|e| e.to_string())?;
        let steps = async {
            let mut passed = Vec::new();
            for (g, caller) in callers.iter().enumerate() {
                let ctx = ContextValues::of(caller, &request);
                pooled.cached_query_one(SET_CONTEXT, &ctx.params()).await?;
                for (index, check) in checks.iter().enumerate().filter(|(_, c)| c.group == g) {
                    let row = pooled.cached_query_one(&check.sql, &[&check.keys]).await?;
                    passed.extend(passed_of(index, &row.get::<_, Vec<i32>>(0)));
                }
            }
            Ok::<_, tokio_postgres::Error>(passed)
        };
        let outcome = steps.await;
        let ended = pooled.batch_execute("ROLLBACK").await;
        let passed = outcome.map_err(|e| e.to_string())?;
        ended.map_err(|e| e.to_string())?;
        return Ok(passed);
    }
    let context = pooled.prepare_cached(SET_CONTEXT).await.map_err(|e| e.to_string())?;
    let mut statements = Vec::with_capacity(checks.len());
    for check in &checks {
        statements.push(pooled.prepare_cached(&check.sql).await.map_err(|e| e.to_string())?);
    }
    let contexts: Vec<ContextValues> = callers.iter().map(|c| ContextValues::of(c, &request)).collect();
    let context_params: Vec<_> = contexts.iter().map(ContextValues::params).collect();
    // Pipeline: BEGIN, then for each group its context and its checks, then ROLLBACK.
    let client: &tokio_postgres::Client = &pooled;
    let begin = client.batch_execute("BEGIN READ ONLY");
    let mut steps = Vec::new();
    let mut next_check = 0;
    for (g, params) in context_params.iter().enumerate() {
        let context = &context;
        steps.push(Box::pin(async move { client.query(context, params).await.map(|_| None) }) as Step<'_>);
        while next_check < checks.len() && checks[next_check].group == g {
            let (check, statement) = (&checks[next_check], &statements[next_check]);
            steps.push(Box::pin(async move {
                let row = client.query_one(statement, &[&check.keys]).await?;
                Ok(Some((next_check, row.get::<_, Vec<i32>>(0))))
            }));
            next_check += 1;
        }
    }
    let end = client.batch_execute("ROLLBACK");
    let (began, results, ended) = tokio::join!(begin, join_all(steps), end);
    began.map_err(|e| e.to_string())?;
    let mut passed = Vec::new();
    for result in results {
        match result {
            Ok(Some((index, positions))) => passed.extend(passed_of(index, &positions)),
            Ok(None) => {}
            Err(err) => {
                let _ = client.batch_execute("ROLLBACK").await;
                return Err(err.to_string());
            }
        }
    }
    ended.map_err(|e| e.to_string())?;
    Ok(passed)
}

/// The `data` of a change for one subscriber.
fn data(change: &Change, bypass: bool) -> Value {
    let rel = &change.relation;
    let mut data = Map::new();
    data.insert("schema".into(), json!(rel.schema));
    data.insert("table".into(), json!(rel.table));
    data.insert("commit_timestamp".into(), json!(change.commit_timestamp));
    data.insert("columns".into(), rel.columns_json.clone());
    data.insert("errors".into(), Value::Null);
    let kind = match change.kind {
        Event::Insert => "INSERT",
        Event::Update => "UPDATE",
        _ => "DELETE",
    };
    data.insert("type".into(), json!(kind));
    if change.kind != Event::Delete {
        data.insert("record".into(), Value::Object(change.record.clone()));
    }
    if change.kind != Event::Insert {
        let old = if rel.rls && !bypass {
            change
                .old_record
                .iter()
                .filter(|(k, _)| rel.primary_key.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        } else {
            change.old_record.clone()
        };
        data.insert("old_record".into(), Value::Object(old));
    }
    Value::Object(data)
}

/// Builds a frame for one serializer version.
type BuildFrame = Box<dyn Fn(protocol::Vsn) -> protocol::Frame>;

fn send(changes: &[Arc<Change>], candidates: &[Candidate], subs: &[Arc<Subscription>], mut visible: Vec<usize>) {
    // In commit order for each subscriber.
    visible.sort_by_key(|&i| (candidates[i].change, candidates[i].sub));
    visible.dedup();
    let mut frames: HashMap<(usize, &str, &[u32], bool), Encoded<BuildFrame>> = HashMap::new();
    for i in visible {
        let cand = &candidates[i];
        let sub = &subs[cand.sub];
        let change = &changes[cand.change];
        let key = (cand.change, sub.topic.as_str(), cand.ids.as_slice(), cand.bypass);
        let encoded = frames.entry(key).or_insert_with(|| {
            let payload = json!({"ids": cand.ids, "data": data(change, cand.bypass)});
            let topic = sub.topic.clone();
            Encoded::new(Box::new(move |vsn| protocol::encode(vsn, None, None, &topic, "postgres_changes", &payload)))
        });
        sub.outbox.send(encoded.get(sub.outbox.vsn));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_check_quotes_every_identifier_and_binds_the_keys() {
        let sql = check_sql("public", "my\"table", &["id".into(), "part".into()]);
        assert!(sql.contains(r#"from "public"."my""table" t where (t."id", t."part") = (p."id", p."part")"#));
        assert!(sql.contains(r#"null::"public"."my""table""#));
        assert!(sql.contains("$1::text::jsonb"));
    }
}
