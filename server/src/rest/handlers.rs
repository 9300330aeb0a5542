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
use crate::rest::plan::{plan_read, PlanOptions, Source};
use crate::rest::request::{header, options_schema, parse_error, MediaType, RestRequest};
use crate::rest::response::{self, content_range, read_status};
use crate::rest::schema::{SchemaCache, Table};
use crate::rest::sql::mutate::{self, Conflict};
use crate::rest::sql::read::{count_query, read_statement, read_statement_with_total, BodyShape};
use crate::rest::sql::Sql;
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
    PlanOptions { aggregates_enabled: state.config.aggregates_enabled }
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
    let mut plan = plan_read(cache, Some(table), Source::Relation(table.name.clone()), &query, plan_options(state))?;
    apply_range(&mut plan.limit, &mut plan.offset, rr.range, state.config.max_rows);
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

    let mut client = execute::connection(state).await?;
    let simple = rr.media != MediaType::Plan && !matches!(count, Some(CountPref::Planned | CountPref::Estimated));
    let result = if simple {
        // The common case: one round trip to the database.
        execute::read_pipelined(&client, rr, state, Access::ReadOnly, &text, &sql).await?
    } else {
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
        result.total = Some(match (count, state.config.max_rows) {
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

    if rr.media == MediaType::SingleObject && result.page != 1 {
        return Err(RestError::singular(result.page.max(0) as u64));
    }
    let offset = plan.offset.unwrap_or(0);
    let status = read_status(offset, result.page, result.total)?;
    let mut res = response::builder(status, rr, &applied(rr, state));
    res.insert_header(("Content-Range", content_range(offset, result.page, result.total)));
    if head {
        return Ok(res.content_type(rr.media.content_type()).finish());
    }
    response::body(&mut res, rr.media, result.body, rr.strip_nulls)
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

/// The JSON payload of a write: its objects and the columns to write.
struct Payload {
    rows: Vec<serde_json::Map<String, Value>>,
    columns: Vec<String>,
}

/// Parse and check the JSON payload of a write.
fn payload_rows(
    table: &Table,
    body: &[u8],
    columns_param: Option<&Vec<String>>,
    single_only: bool,
) -> Result<Payload, RestError> {
    let value: Value = if body.iter().all(u8::is_ascii_whitespace) {
        return Err(RestError::invalid_json_body());
    } else {
        serde_json::from_slice(body).map_err(|_| RestError::invalid_json_body())?
    };
    let rows = match value {
        Value::Object(map) => vec![map],
        Value::Array(items) if !single_only => {
            let mut rows = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Value::Object(map) => rows.push(map),
                    _ => return Err(RestError::invalid_json_body()),
                }
            }
            rows
        }
        _ => return Err(RestError::invalid_json_body()),
    };
    let columns: Vec<String> = match columns_param {
        Some(cols) => cols.clone(),
        None => {
            let first: Vec<String> = rows.first().map(|r| r.keys().cloned().collect()).unwrap_or_default();
            for row in rows.iter().skip(1) {
                if row.len() != first.len() || !first.iter().all(|k| row.contains_key(k)) {
                    return Err(RestError::body_keys_mismatch());
                }
            }
            first
        }
    };
    for column in &columns {
        if table.column(column).is_none() {
            return Err(RestError::column_not_found(&table.name.name, column));
        }
    }
    Ok(Payload { rows, columns })
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
    if let Some(ct) = header(req, "content-type") {
        let mime = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        if body.is_some() && !mime.is_empty() && mime != "application/json" {
            return Err(RestError::content_type_not_acceptable(&mime));
        }
    }
    let method = rr.method.clone();
    let return_pref = rr.prefer.return_.unwrap_or(ReturnPref::Minimal);
    let representation = return_pref == ReturnPref::Representation;
    let mut sql = Sql::default();
    let mut location = None;
    let mutation = match method {
        Method::POST | Method::PUT => {
            let body = body.unwrap_or_default();
            let put = method == Method::PUT;
            let Payload { rows, columns } = payload_rows(table, &body, query.columns.as_ref(), put)?;
            let conflict = if put {
                check_put(table, &query, &rows)?;
                Conflict::Merge(table.primary_key.clone())
            } else {
                let keys = query.on_conflict.clone().unwrap_or_else(|| table.primary_key.clone());
                match rr.prefer.resolution {
                    Some(Resolution::MergeDuplicates) => Conflict::Merge(keys),
                    Some(Resolution::IgnoreDuplicates) => Conflict::Ignore(keys),
                    None => Conflict::None,
                }
            };
            if rows.len() == 1 && !table.primary_key.is_empty() {
                let pk: Option<Vec<String>> = table
                    .primary_key
                    .iter()
                    .map(|k| {
                        rows[0].get(k).map(|v| {
                            format!("{k}=eq.{}", v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))
                        })
                    })
                    .collect();
                location = pk.map(|parts| format!("/{}?{}", table.name.name, parts.join("&")));
            }
            let missing_default = rr.prefer.missing == Some(Missing::Default);
            let json = Value::Array(rows.into_iter().map(Value::Object).collect()).to_string();
            mutate::insert(table, &columns, json, missing_default, &conflict, representation, &mut sql)
        }
        Method::PATCH => {
            let body = body.unwrap_or_default();
            let Payload { rows, columns } = payload_rows(table, &body, query.columns.as_ref(), true)?;
            require_where(&query, "UPDATE", rr)?;
            let json = rows.into_iter().next().map(Value::Object).unwrap_or(Value::Null).to_string();
            if columns.is_empty() {
                // Nothing to change: answer like an update of no rows.
                return finish_write(rr, state, StatusCode::OK, representation, 0, "[]".into(), None);
            }
            mutate::update(table, &columns, json, &root_filters(&query), &root_logic(&query), representation, &mut sql)
        }
        _ => {
            require_where(&query, "DELETE", rr)?;
            mutate::delete(table, &root_filters(&query), &root_logic(&query), representation, &mut sql)
        }
    };

    // An upsert that only updated answers 200, as PostgREST's does: the rows it returns tell
    // inserted from updated (`xmax` is 0 only on a row this statement inserted).
    let merge = method == Method::POST && rr.prefer.resolution == Some(Resolution::MergeDuplicates);
    let text = if representation {
        let select_only =
            QueryParams { select: query.select.clone(), order: query.order.clone(), ..Default::default() };
        let plan = plan_read(cache, Some(table), Source::Raw("pgrst_mut".into()), &select_only, plan_options(state))?;
        let shape = if rr.media == MediaType::SingleObject { BodyShape::First } else { BodyShape::Array };
        if merge {
            let columns: Vec<String> = table.columns.iter().map(|c| crate::db::quote_ident(&c.name)).collect();
            let ctes = format!(
                "pgrst_ins AS ({mutation}, ({}.xmax = 0) AS pgrst_inserted), pgrst_mut AS (SELECT {} FROM pgrst_ins)",
                table.name.sql(),
                columns.join(", ")
            );
            let inserted = "(SELECT count(*) FROM pgrst_ins WHERE pgrst_inserted)";
            read_statement_with_total(&plan, &mut sql, inserted, shape, Some(ctes))
        } else {
            read_statement(&plan, &mut sql, false, shape, Some(format!("pgrst_mut AS ({mutation})")))
        }
    } else {
        mutation
    };
    let (affected, body_text, total) = execute::retrying(|| write_once(rr, state, &text, &sql, representation)).await?;
    let only_updated = merge && representation && affected > 0 && total == Some(0);
    let status = match method {
        Method::POST if only_updated => StatusCode::OK,
        Method::POST => StatusCode::CREATED,
        Method::PUT if !representation => StatusCode::NO_CONTENT,
        Method::PUT => StatusCode::OK,
        _ if representation => StatusCode::OK,
        _ => StatusCode::NO_CONTENT,
    };
    let location = if method == Method::POST && return_pref != ReturnPref::Representation { location } else { None };
    finish_write(rr, state, status, representation, affected, body_text, location)
}

/// One attempt at a write: the statement in the caller's transaction, the `Prefer` checks that
/// may still roll it back, then commit or rollback as configured.
async fn write_once(
    rr: &RestRequest,
    state: &RestState,
    text: &str,
    sql: &Sql,
    representation: bool,
) -> Result<(u64, String, Option<i64>), RestError> {
    let mut client = execute::connection(state).await?;
    let tx = execute::begin(&mut client, rr, state, Access::ReadWrite).await?;
    let (affected, body_text, total) = if representation {
        let result = execute::read(&tx, text, sql, rr).await?;
        (result.page.max(0) as u64, result.body, result.total)
    } else {
        (execute::execute(&tx, text, sql, rr).await?, String::new(), None)
    };
    if rr.prefer.handling == Some(Handling::Strict) {
        if let Some(max) = rr.prefer.max_affected {
            if affected > max {
                drop(tx);
                return Err(RestError::max_affected_exceeded(affected));
            }
        }
    }
    if representation && rr.media == MediaType::SingleObject && affected != 1 {
        drop(tx);
        return Err(RestError::singular(affected));
    }
    execute::finish(tx, rr, state).await?;
    Ok((affected, body_text, total))
}

fn finish_write(
    rr: &RestRequest,
    state: &RestState,
    status: StatusCode,
    representation: bool,
    affected: u64,
    body_text: String,
    location: Option<String>,
) -> Result<HttpResponse, RestError> {
    let mut res = response::builder(status, rr, &applied(rr, state));
    let total = if rr.prefer.count == Some(CountPref::Exact) { Some(affected as i64) } else { None };
    let range = if representation {
        content_range(0, affected as i64, total)
    } else {
        format!("*/{}", total.map(|t| t.to_string()).unwrap_or_else(|| "*".into()))
    };
    res.insert_header(("Content-Range", range));
    if let Some(location) = location {
        res.insert_header(("Location", location));
    }
    if representation {
        response::body(&mut res, rr.media, body_text, rr.strip_nulls)
    } else {
        Ok(res.finish())
    }
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
    let Some(row) = rows.first() else { return Err(RestError::invalid_json_body()) };
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
