//! `/rest/v1/{table}`: reads (GET, HEAD) and writes (POST insert/upsert, PATCH, PUT, DELETE)
//! on a table or view, each as one statement in the caller's transaction.

use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use serde_json::Value;

use crate::db::context::Access;
use crate::rest::error::RestError;
use crate::rest::execute;
use crate::rest::parse::{
    self, CompareOp, CountPref, Handling, Missing, Operation, QueryParams, Resolution, ReturnPref,
};
use crate::rest::payload::{self, BodyType, Payload};
use crate::rest::plan::{plan_read, PlanOptions, Source};
use crate::rest::request::{header, options_schema, parse_error, MediaType, RestRequest};
use crate::rest::response::{self, content_range, read_status};
use crate::rest::schema::{SchemaCache, Table, TableKind};
use crate::rest::sql::mutate::{self, Conflict};
use crate::rest::sql::read::{count_query, read_statement, read_statement_with_total, BodyShape};
use crate::rest::sql::{ident, Sql, RESPONSE_SETTINGS};
use crate::rest::RestState;

/// Dispatch by method.
pub async fn table(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<RestState>,
) -> Result<HttpResponse, RestError> {
    let cache = state.cache.get();
    let name = path.into_inner();
    if req.method() == Method::OPTIONS {
        // Answered without a caller (the gate lets OPTIONS through, as CORS preflights carry
        // no credentials): only the schema cache is read.
        let table = find_table(&cache, &options_schema(&req, &state)?, &name)?;
        return Ok(HttpResponse::Ok().insert_header(("Allow", allowed_methods(table))).finish());
    }
    let rr = RestRequest::from_http(&req, &state)?;
    let table = find_table(&cache, &rr.schema, &name)?;
    match *req.method() {
        Method::GET | Method::HEAD => read(&rr, &state, &cache, table).await,
        Method::POST | Method::PATCH | Method::PUT => {
            let body = read_body(payload, state.config.max_body_bytes).await?;
            write(&req, &rr, &state, &cache, table, Some(body)).await
        }
        Method::DELETE => write(&req, &rr, &state, &cache, table, None).await,
        ref other => Err(RestError::unsupported_method(other.as_str())),
    }
}

/// PostgREST's `Allow` for a table or view: what can be done to it, whatever the caller's grants.
fn allowed_methods(table: &Table) -> String {
    let mut allow = vec!["OPTIONS", "GET", "HEAD"];
    if table.insertable {
        allow.push("POST");
    }
    if table.insertable && table.updatable && !table.primary_key.is_empty() {
        allow.push("PUT");
    }
    if table.updatable {
        allow.push("PATCH");
    }
    if table.deletable {
        allow.push("DELETE");
    }
    allow.join(",")
}

/// The table or view, or PGRST205 with a suggestion.
pub fn find_table<'c>(cache: &'c SchemaCache, schema: &str, name: &str) -> Result<&'c Table, RestError> {
    cache.table(schema, name).ok_or_else(|| {
        let names: Vec<&str> = cache.table_names(schema).collect();
        RestError::table_not_found(schema, name, &names)
    })
}

/// Read the request body, refusing more than `limit` bytes with 413.
pub async fn read_body(mut payload: web::Payload, limit: usize) -> Result<web::Bytes, RestError> {
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| RestError::invalid_body(format!("Could not read the request body: {e}")))?;
        if body.len() + chunk.len() > limit {
            return Err(RestError::PayloadTooLarge(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

fn plan_options(state: &RestState) -> PlanOptions {
    PlanOptions { aggregates_enabled: state.tunables().aggregates_enabled }
}

/// Applied preferences, minus `tx` when overriding is not allowed.
pub fn applied(rr: &RestRequest, state: &RestState) -> Vec<String> {
    let (_, tx_honoured) = execute::commits(rr, state);
    rr.prefer.applied.iter().filter(|p| tx_honoured || !p.starts_with("tx=")).cloned().collect()
}

async fn read(
    rr: &RestRequest,
    state: &RestState,
    cache: &SchemaCache,
    table: &Table,
) -> Result<HttpResponse, RestError> {
    let query = parse::parse_query(&rr.pairs).map_err(parse_error)?;
    crate::rest::limits::check_query(&query, &state.limits())?;
    rr.timing.mark("parse");
    let mut plan = plan_read(cache, Some(table), Source::Relation(table.name.clone()), &query, plan_options(state))?;
    apply_range(&mut plan.limit, &mut plan.offset, rr.range, state.tunables().max_rows);
    let head = rr.method == Method::HEAD;
    let shape = match (head, rr.media) {
        (true, _) => BodyShape::None,
        (_, MediaType::SingleObject) => BodyShape::First,
        (_, MediaType::GeoJson) => BodyShape::GeoJson,
        _ => BodyShape::Array,
    };
    let count = rr.prefer.count;
    let mut sql = Sql::default();
    let text = read_statement(&plan, &mut sql, count == Some(CountPref::Exact), shape, None);
    rr.timing.mark("plan");

    let simple = rr.media != MediaType::Plan && !matches!(count, Some(CountPref::Planned | CountPref::Estimated));
    let result = if simple {
        // The common case: one round trip to the database.
        execute::read_in_one_trip(rr, state, &text, &sql).await?
    } else {
        let mut client = execute::connection_for(state, rr, Access::ReadOnly).await?;
        let tx = execute::begin(&mut client, rr, state, Access::ReadOnly).await?;
        if rr.media == MediaType::Plan {
            let mut isql = Sql::inlined();
            let itext = read_statement(&plan, &mut isql, count == Some(CountPref::Exact), shape, None);
            let plan_body = execute::explain_with(&tx, &itext, &isql, rr, &rr.plan.explain_options()).await?;
            // EXPLAIN ANALYZE ran the statement: whatever it did is not kept.
            drop(tx);
            return Ok(HttpResponse::Ok().content_type(rr.plan.content_type()).body(plan_body));
        }
        let mut result = execute::read(&tx, &text, &sql, rr).await?;
        let mut csql = Sql::inlined();
        let ctext = count_query(&plan, &mut csql);
        let planned = execute::planned_count(&tx, &ctext, &csql, rr).await?;
        result.total = Some(match (count, state.tunables().max_rows) {
            (Some(CountPref::Estimated), Some(max)) if planned <= max as i64 => {
                let mut esql = Sql::default();
                let etext = read_statement(&plan, &mut esql, true, BodyShape::None, None);
                execute::read(&tx, &etext, &esql, rr).await?.total.unwrap_or(planned)
            }
            _ => planned,
        });
        execute::finish(tx, rr, state).await?;
        result
    };

    rr.timing.mark("transaction");
    if rr.media == MediaType::SingleObject && result.page != 1 {
        return Err(RestError::singular(result.page.max(0) as u64));
    }
    let offset = plan.offset.unwrap_or(0);
    let status = read_status(offset, result.page, result.total)?;
    let mut res = response::builder(status, rr, &applied(rr, state));
    res.insert_header(("Content-Range", content_range(offset, result.page, result.total)));
    res.insert_header(("Content-Location", content_location(&table.name.name, &rr.pairs)));
    let res = if head {
        res.content_type(response::content_type(rr.media, rr.strip_nulls)).finish()
    } else {
        response::body(&mut res, rr.media, result.body, rr.strip_nulls)?
    };
    response::complete(res, rr, &result.settings)
}

/// `/table?query` with the query's parameters sorted by name, as PostgREST's canonical form.
fn content_location(table: &str, pairs: &[(String, String)]) -> String {
    if pairs.is_empty() {
        return format!("/{table}");
    }
    let mut sorted: Vec<&(String, String)> = pairs.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in sorted {
        query.append_pair(k, v);
    }
    format!("/{table}?{}", query.finish().replace('+', "%20"))
}

/// Merge the `Range` header and `max_rows` into a level's limit and offset.
pub fn apply_range(
    limit: &mut Option<u64>,
    offset: &mut Option<u64>,
    range: Option<(u64, Option<u64>)>,
    max_rows: Option<u64>,
) {
    if let Some((from, range_limit)) = range {
        if offset.is_none() {
            *offset = Some(from);
        }
        if let Some(l) = range_limit {
            *limit = Some(limit.map_or(l, |cur| cur.min(l)));
        }
    }
    if let Some(max) = max_rows {
        *limit = Some(limit.map_or(max, |cur| cur.min(max)));
    }
}

async fn write(
    req: &HttpRequest,
    rr: &RestRequest,
    state: &RestState,
    cache: &SchemaCache,
    table: &Table,
    body: Option<web::Bytes>,
) -> Result<HttpResponse, RestError> {
    let query = parse::parse_query(&rr.pairs).map_err(parse_error)?;
    crate::rest::limits::check_query(&query, &state.limits())?;
    rr.timing.mark("parse");
    let body_type = if body.is_some() { BodyType::of(header(req, "content-type"))? } else { BodyType::Json };
    let decoded = |body: Option<web::Bytes>| payload::decode(body_type, &body.unwrap_or_default(), None);
    let method = rr.method.clone();
    let return_pref = rr.prefer.return_.unwrap_or(ReturnPref::Minimal);
    let representation = return_pref == ReturnPref::Representation;
    let mut sql = Sql::default();
    let mutation = match method {
        Method::POST | Method::PUT => {
            let put = method == Method::PUT;
            let Payload { rows, columns } = payload::rows(table, decoded(body)?, query.columns.as_ref())?;
            let conflict = if put {
                check_put(table, &query, &rows)?;
                Conflict::Merge(table.primary_key.clone())
            } else {
                let keys = query.on_conflict.clone().unwrap_or_else(|| table.primary_key.clone());
                match rr.prefer.resolution {
                    // Without a primary key or `on_conflict` there is nothing to merge on: a plain
                    // insert, as PostgREST makes it.
                    Some(Resolution::MergeDuplicates) if keys.is_empty() => Conflict::None,
                    Some(Resolution::MergeDuplicates) => Conflict::Merge(keys),
                    Some(Resolution::IgnoreDuplicates) => Conflict::Ignore(keys),
                    None => Conflict::None,
                }
            };
            let missing_default = rr.prefer.missing == Some(Missing::Default);
            let json = Value::Array(rows.into_iter().map(Value::Object).collect()).to_string();
            mutate::insert(table, &columns, json, missing_default, &conflict, &mut sql)
        }
        Method::PATCH => {
            // An array body updates the rows with its first object (PostgREST's takes one row of
            // it, in practice the first).
            let Payload { rows, columns } = payload::rows(table, decoded(body)?, query.columns.as_ref())?;
            require_where(&query, "UPDATE", rr)?;
            let json = rows.into_iter().next().map(Value::Object).unwrap_or(Value::Null).to_string();
            if columns.is_empty() {
                // Nothing to change: answer like an update of no rows.
                let status = if representation { StatusCode::OK } else { StatusCode::NO_CONTENT };
                let done = Written { affected: 0, inserted: None, body: "[]".into(), settings: Default::default() };
                return finish_write(rr, state, table, status, representation, done);
            }
            mutate::update(table, &columns, json, &root_filters(&query), &root_logic(&query), &mut sql)
        }
        _ => {
            require_where(&query, "DELETE", rr)?;
            mutate::delete(table, &root_filters(&query), &root_logic(&query), &mut sql)
        }
    };

    // An upsert tells the rows it inserted from those it updated (`xmax` is 0 only on a row this
    // statement inserted): one that only updated answers 200, as PostgREST's does.
    let upsert =
        method == Method::PUT || (method == Method::POST && rr.prefer.resolution == Some(Resolution::MergeDuplicates));
    let count_inserted = upsert && table.kind == TableKind::Table;
    let target = if matches!(method, Method::POST | Method::PUT) { table.name.sql() } else { ident(mutate::TARGET) };
    let inserted_flag = format!("({target}.xmax = 0) AS pgrst_inserted");
    let text = if representation {
        let select_only =
            QueryParams { select: query.select.clone(), order: query.order.clone(), ..Default::default() };
        let plan = plan_read(cache, Some(table), Source::Raw("pgrst_mut".into()), &select_only, plan_options(state))?;
        let shape = if rr.media == MediaType::SingleObject { BodyShape::First } else { BodyShape::Array };
        if count_inserted {
            let columns: Vec<String> = table.columns.iter().map(|c| ident(&c.name)).collect();
            let ctes = format!(
                "pgrst_ins AS ({mutation} RETURNING {target}.*, {inserted_flag}), pgrst_mut AS (SELECT {} FROM pgrst_ins)",
                columns.join(", ")
            );
            let inserted = "(SELECT count(*) FROM pgrst_ins WHERE pgrst_inserted)";
            read_statement_with_total(&plan, &mut sql, inserted, shape, Some(ctes))
        } else {
            read_statement(
                &plan,
                &mut sql,
                false,
                shape,
                Some(format!("pgrst_mut AS ({mutation} RETURNING {target}.*)")),
            )
        }
    } else {
        // `return=headers-only` returns the primary key of an inserted row for `Location`.
        let headers_only = method == Method::POST && return_pref == ReturnPref::HeadersOnly;
        let mut returning: Vec<String> = Vec::new();
        if headers_only {
            returning.extend(table.primary_key.iter().map(|k| format!("{target}.{}", ident(k))));
        }
        if count_inserted {
            returning.push(inserted_flag);
        }
        if returning.is_empty() {
            returning.push("1".into());
        }
        let total = if count_inserted { "count(*) FILTER (WHERE pgrst_inserted)" } else { "NULL" };
        let body = if headers_only { "coalesce(json_agg(_pgrst_t), '[]')::text" } else { "''" };
        format!(
            "WITH pgrst_mut AS ({mutation} RETURNING {}) SELECT {total}::bigint, count(*)::bigint, {body}, {} \
             FROM pgrst_mut AS _pgrst_t",
            returning.join(", "),
            RESPONSE_SETTINGS
        )
    };
    rr.timing.mark("plan");
    let mut done = execute::retrying(|| write_once(rr, state, &text, &sql)).await?;
    rr.timing.mark("transaction");
    if !count_inserted {
        done.inserted = None;
    }
    let status = match method {
        Method::POST if done.inserted == Some(0) => StatusCode::OK,
        Method::POST => StatusCode::CREATED,
        _ if !representation => StatusCode::NO_CONTENT,
        Method::PUT if done.inserted.is_some_and(|n| n > 0) => StatusCode::CREATED,
        _ => StatusCode::OK,
    };
    finish_write(rr, state, table, status, representation, done)
}

/// What a write did: rows affected and inserted (upserts into a table), its body, and the
/// response settings SQL made.
struct Written {
    affected: u64,
    inserted: Option<i64>,
    body: String,
    settings: execute::ResponseSettings,
}

/// One attempt at a write: the statement in the caller's transaction, the `Prefer` checks that
/// may still roll it back, then commit or rollback as configured.
async fn write_once(rr: &RestRequest, state: &RestState, text: &str, sql: &Sql) -> Result<Written, RestError> {
    let strict_max = rr.prefer.max_affected.filter(|_| rr.prefer.handling == Some(Handling::Strict));
    let singular = rr.prefer.return_ == Some(ReturnPref::Representation) && rr.media == MediaType::SingleObject;
    let check = move |result: &execute::ReadResult| {
        let affected = result.page.max(0) as u64;
        if strict_max.is_some_and(|max| affected > max) {
            return Some(RestError::max_affected_exceeded(affected));
        }
        (singular && affected != 1).then(|| RestError::singular(affected))
    };
    let check: Option<execute::Check<'_>> = if strict_max.is_some() || singular { Some(&check) } else { None };
    let result = execute::run_statement(rr, state, Access::ReadWrite, text, sql, check).await?;
    let affected = result.page.max(0) as u64;
    Ok(Written { affected, inserted: result.total, body: result.body, settings: result.settings })
}

/// Status, PostgREST's `Content-Range` for each write (an insert or a delete gives no range,
/// only the count when asked; an update the range of the rows it changed; PUT none),
/// `Location` for `return=headers-only`, the body, then what SQL set in the response settings.
fn finish_write(
    rr: &RestRequest,
    state: &RestState,
    table: &Table,
    status: StatusCode,
    representation: bool,
    done: Written,
) -> Result<HttpResponse, RestError> {
    let mut res = response::builder(status, rr, &applied(rr, state));
    let total = if rr.prefer.count == Some(CountPref::Exact) { Some(done.affected as i64) } else { None };
    let unranged = format!("*/{}", total.map(|t| t.to_string()).unwrap_or_else(|| "*".into()));
    match rr.method {
        Method::PATCH => {
            res.insert_header(("Content-Range", content_range(0, done.affected as i64, total)));
        }
        Method::PUT => {}
        _ => {
            res.insert_header(("Content-Range", unranged));
        }
    }
    if rr.method == Method::POST && rr.prefer.return_ == Some(ReturnPref::HeadersOnly) {
        if let Some(location) = location(table, &done.body) {
            res.insert_header(("Location", location));
        }
    }
    let res =
        if representation { response::body(&mut res, rr.media, done.body, rr.strip_nulls)? } else { res.finish() };
    response::complete(res, rr, &done.settings)
}

/// `/table?pk=eq.value&...` for the one row an insert returned, as PostgREST builds `Location`.
fn location(table: &Table, body: &str) -> Option<String> {
    let rows: Vec<serde_json::Map<String, Value>> = serde_json::from_str(body).ok()?;
    let [row] = rows.as_slice() else { return None };
    if table.primary_key.is_empty() {
        return None;
    }
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for key in &table.primary_key {
        let value = match row.get(key) {
            None | Some(Value::Null) => "is.null".to_string(),
            Some(Value::String(s)) => format!("eq.{s}"),
            Some(other) => format!("eq.{other}"),
        };
        query.append_pair(key, &value);
    }
    Some(format!("/{}?{}", table.name.name, query.finish()))
}

fn root_filters(query: &QueryParams) -> Vec<parse::Filter> {
    query.filters.iter().filter(|(p, _)| p.is_empty()).map(|(_, f)| f.clone()).collect()
}

fn root_logic(query: &QueryParams) -> Vec<parse::LogicTree> {
    query.logic.iter().filter(|(p, _)| p.is_empty()).map(|(_, l)| l.clone()).collect()
}

/// Supabase runs pg-safeupdate: UPDATE and DELETE without a WHERE clause are refused.
fn require_where(query: &QueryParams, verb: &str, rr: &RestRequest) -> Result<(), RestError> {
    if root_filters(query).is_empty() && root_logic(query).is_empty() {
        return Err(RestError::db("21000", format!("{verb} requires a WHERE clause"), None, None, rr.anonymous));
    }
    Ok(())
}

/// PUT: filters must be `eq` on exactly the primary key, and the payload must agree with them.
fn check_put(table: &Table, query: &QueryParams, rows: &[serde_json::Map<String, Value>]) -> Result<(), RestError> {
    // A top-level `limit` or `offset` is refused first, as PostgREST refuses it while it reads
    // the request (PGRST114), before it looks at the filters.
    if query.limits.iter().any(|(path, l, o)| path.is_empty() && (l.is_some() || o.is_some())) {
        return Err(RestError::PutLimitNotAllowed);
    }
    let filters = root_filters(query);
    let mut pk_values = Vec::new();
    for filter in &filters {
        match &filter.op {
            Operation::Compare { op: CompareOp::Eq, value } if !filter.negated && filter.field.json_path.is_empty() => {
                pk_values.push((filter.field.column.clone(), value.clone()))
            }
            _ => return Err(RestError::invalid_put_filters()),
        }
    }
    let mut names: Vec<&str> = pk_values.iter().map(|(c, _)| c.as_str()).collect();
    names.sort_unstable();
    let mut pk: Vec<&str> = table.primary_key.iter().map(String::as_str).collect();
    pk.sort_unstable();
    if pk.is_empty()
        || names != pk
        || !query.logic.is_empty()
        || query.limits.iter().any(|(_, l, o)| l.is_some() || o.is_some())
    {
        return Err(RestError::invalid_put_filters());
    }
    // One row, whose primary key is the URL's: an array body of one object too, as PostgREST.
    let [row] = rows else { return Err(RestError::PutPrimaryKeyMismatch) };
    for (column, value) in &pk_values {
        let matches = match row.get(column) {
            Some(Value::String(s)) => s == value,
            Some(Value::Null) | None => false,
            Some(other) => &other.to_string() == value,
        };
        if !matches {
            return Err(RestError::PutPrimaryKeyMismatch);
        }
    }
    Ok(())
}
