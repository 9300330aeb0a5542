//! `/rest/v1/rpc/{function}`: calls by GET (arguments in the query string, read-only) and POST
//! (arguments in a JSON object), overloads chosen by argument names, results shaped by what
//! the function returns (scalar, set of scalars, row, set of rows, void), with filters, order
//! and limits applying to set results.

use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::{Map, Value};

use crate::db::context::Access;
use crate::rest::error::{FunctionSignature, RestError, RpcPayload};
use crate::rest::execute;
use crate::rest::handlers::{applied, apply_range, read_body};
use crate::rest::parse::{self, CountPref, Handling};
use crate::rest::payload::{self, BodyType};
use crate::rest::plan::{plan_read, PlanOptions, Source};
use crate::rest::request::{header, parse_error, MediaType, RestRequest};
use crate::rest::response::{self, content_range, read_status};
use crate::rest::schema::{Function, ReturnShape, SchemaCache, Volatility};
use crate::rest::sql::read::{read_statement, BodyShape};
use crate::rest::sql::{rpc, Sql, RESPONSE_SETTINGS};
use crate::rest::RestState;

pub async fn call(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<RestState>,
) -> Result<HttpResponse, RestError> {
    let cache = state.cache.get();
    let name = path.into_inner();
    let method = req.method().clone();
    if method == Method::OPTIONS {
        let schema = crate::rest::request::options_schema(&req, &state)?;
        let overloads = cache.functions.get(&crate::rest::schema::QualifiedName::new(&schema, &name));
        // PostgREST: volatile functions are called with POST only, the others with GET too.
        let Some(function) = overloads.and_then(|v| v.first()) else {
            return Err(not_found(&cache, &schema, &name, &[], RpcPayload::Json, false, &[]));
        };
        let allow = if function.volatility == Volatility::Volatile { "OPTIONS,POST" } else { "OPTIONS,GET,HEAD,POST" };
        return Ok(HttpResponse::Ok().insert_header(("Allow", allow)).finish());
    }
    // A function returning a media-type domain offers that media type besides JSON.
    let offered = {
        let schema = crate::rest::request::options_schema(&req, &state)?;
        cache.functions.get(&crate::rest::schema::QualifiedName::new(&schema, &name)).and_then(|overloads| {
            overloads.iter().filter(callable).find_map(|f| f.media.as_ref().map(|m| m.media_type.clone()))
        })
    };
    let rr = RestRequest::offering(&req, &state, offered.as_deref())?;
    if !matches!(method, Method::GET | Method::HEAD | Method::POST) {
        return Err(RestError::rpc_method_not_allowed(method.as_str()));
    }
    let overloads: Vec<&Function> = cache
        .functions
        .get(&crate::rest::schema::QualifiedName::new(&rr.schema, &name))
        .map(|v| v.iter().filter(callable).collect())
        .unwrap_or_default();

    let post = method == Method::POST;

    // Arguments: from the query string (GET) or the body (POST: a JSON object, CSV or a form;
    // an array of objects calls the function once per object, as PostgREST does).
    // `unnamed`: the body goes whole to a single unnamed parameter of that type (`json` for
    // `json` or `jsonb`).
    let (query, args, body_json, unnamed, bulk) = if post {
        let body = read_body(payload, state.config.max_body_bytes).await?;
        let query = parse::parse_query(&rr.pairs).map_err(parse_error)?;
        crate::rest::limits::check_query(&query, &state.limits())?;
        // A text, binary or XML body goes whole to a function whose one unnamed parameter is
        // `text`, `bytea` or `xml`.
        let raw_type =
            raw_parameter_type(header(&req, "content-type")).filter(|ty| overloads.iter().any(|f| unnamed_of(f, ty)));
        if let Some(ty) = raw_type {
            let text = if ty == "bytea" {
                format!("\\x{}", hex::encode(&body))
            } else {
                String::from_utf8(body.to_vec()).map_err(|_| RestError::invalid_body("The body is not UTF-8 text"))?
            };
            (query, Vec::new(), text, Some(ty), false)
        } else {
            let body_type = match BodyType::of(header(&req, "content-type")) {
                Ok(kind @ (BodyType::Csv | BodyType::Form)) => kind,
                _ => BodyType::Json,
            };
            let value = payload::decode(body_type, &body, Some(Value::Object(Map::new())))?;
            let single = overloads.iter().any(|f| unnamed_of(f, "json")) || rr.prefer.single_object;
            match value {
                Value::Object(map) if !single => {
                    let names: Vec<String> = map.keys().cloned().collect();
                    (query, names, Value::Object(map).to_string(), None, false)
                }
                Value::Array(items) if !single => {
                    let rows = payload::objects(Value::Array(items))?;
                    let names = payload::uniform_keys(&rows)?;
                    let json = Value::Array(rows.into_iter().map(Value::Object).collect()).to_string();
                    (query, names, json, None, true)
                }
                other if single => (query, Vec::new(), other.to_string(), Some("json"), false),
                _ => return Err(RestError::invalid_json_body()),
            }
        }
    } else {
        let query = parse::parse_rpc_query(&rr.pairs).map_err(parse_error)?;
        crate::rest::limits::check_query(&query, &state.limits())?;
        // A VARIADIC parameter takes every value of its repeated key, as an array.
        let variadic = |key: &str| overloads.iter().any(|f| f.args.iter().any(|a| a.name == key && a.variadic));
        let mut map = Map::new();
        for (k, v) in &query.rpc_args {
            let value = Value::String(v.clone());
            if variadic(k) {
                match map.entry(k.clone()).or_insert_with(|| Value::Array(Vec::new())) {
                    Value::Array(items) => items.push(value),
                    other => *other = value,
                }
            } else {
                map.insert(k.clone(), value);
            }
        }
        let names: Vec<String> = map.keys().cloned().collect();
        (query.clone(), names, Value::Object(map).to_string(), None, false)
    };

    let function = choose(&overloads, &args, unnamed).map_err(|candidates| {
        if candidates.is_empty() {
            // PostgREST names the arguments sorted, whatever order they came in.
            let mut arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
            arg_refs.sort_unstable();
            let payload_kind = match header(&req, "content-type") {
                Some(ct) if !ct.starts_with("application/json") => RpcPayload::Other,
                _ => RpcPayload::Json,
            };
            not_found(&cache, &rr.schema, &name, &arg_refs, payload_kind, post, &overloads)
        } else {
            let mut signatures: Vec<FunctionSignature> = candidates
                .iter()
                .map(|f| FunctionSignature {
                    schema: f.name.schema.clone(),
                    name: f.name.name.clone(),
                    params: f.args.iter().map(|a| (a.name.clone(), a.data_type.clone())).collect(),
                })
                .collect();
            // PostgREST lists the fewest parameters first, then by parameter types.
            signatures.sort_by_key(|f| (f.params.len(), f.render()));
            RestError::ambiguous_function(signatures)
        }
    })?;

    rr.timing.mark("parse");
    let mut sql = Sql::default();
    let (call_sql, cte) = rpc::call(function, &args, body_json, unnamed.is_some(), bulk, &mut sql);
    let access =
        if !post || function.volatility != Volatility::Volatile { Access::ReadOnly } else { Access::ReadWrite };
    let head = method == Method::HEAD;
    let with = cte.as_ref().map(|c| format!("WITH {c} ")).unwrap_or_default();

    // The call runs in a subquery kept apart (`OFFSET 0`), so the response settings it made are
    // read after it.
    let settings = RESPONSE_SETTINGS;
    // A bulk call runs once per row of `pgrst_args`; a single value answers the first result.
    let per_row = if bulk { " FROM pgrst_args" } else { "" };
    if rr.media == MediaType::Custom {
        let (Some(domain), Some(mime)) = (function.media.as_ref(), rr.custom_media.as_deref()) else {
            return Err(RestError::media_type_unavailable(&[rr.custom_media.clone().unwrap_or_default()]));
        };
        // The value is the body: binary values travel as base64 to be decoded here.
        let value = if domain.binary {
            format!("encode(({call_sql})::bytea, 'base64')")
        } else {
            format!("({call_sql})::text")
        };
        let value = if bulk { format!("(array_agg({value}))[1]") } else { value };
        let text = format!(
            "{with}SELECT NULL::bigint, 1::bigint, coalesce(pgrst_v.b, ''), {settings} FROM (SELECT {value} AS b{per_row} OFFSET 0) AS pgrst_v"
        );
        rr.timing.mark("plan");
        let result = run_call(&rr, &state, access, &text, &sql, None).await?;
        rr.timing.mark("transaction");
        let body = if domain.binary {
            use base64::Engine;
            let packed: String = result.body.split_whitespace().collect();
            base64::engine::general_purpose::STANDARD
                .decode(packed)
                .map_err(|e| RestError::internal(format!("media handler output: {e}")))?
        } else {
            result.body.clone().into_bytes()
        };
        let mut res = response::builder(StatusCode::OK, &rr, &applied(&rr, &state));
        let res = if head { res.content_type(mime).finish() } else { res.content_type(mime).body(body) };
        return response::complete(res, &rr, &result.settings);
    }
    let (text, offset, set_like) = match &function.returns {
        ReturnShape::Void => (format!("{with}SELECT NULL::bigint, 1::bigint, 'null'::text, {settings} FROM (SELECT count(*) FROM (SELECT {call_sql}{per_row} OFFSET 0) AS pgrst_calls) AS pgrst_void"), 0, false),
        ReturnShape::Scalar(_) if !function.returns_set => {
            let value = if bulk { format!("(json_agg(to_json({call_sql}))->0)") } else { format!("to_json({call_sql})") };
            (format!("{with}SELECT NULL::bigint, 1::bigint, pgrst_v.b, {settings} FROM (SELECT coalesce({value}::text, 'null') AS b{per_row} OFFSET 0) AS pgrst_v"), 0, false)
        }
        ReturnShape::Scalar(_) => {
            let from = if bulk { format!("pgrst_args CROSS JOIN LATERAL {call_sql}") } else { call_sql.clone() };
            (
                format!("{with}SELECT NULL::bigint, count(*)::bigint, coalesce(json_agg(pgrst_r.v), '[]')::text, {settings} FROM {from} AS pgrst_r(v)"),
                0,
                true,
            )
        }
        ReturnShape::Composite { relation, .. } => {
            let table = relation.as_ref().and_then(|r| cache.tables.get(r));
            let source = if bulk {
                format!("(SELECT pgrst_call.* FROM pgrst_args CROSS JOIN LATERAL {call_sql} AS pgrst_call)")
            } else {
                call_sql.clone()
            };
            let mut plan = plan_read(&cache, table, Source::Raw(source), &query, PlanOptions { aggregates_enabled: state.tunables().aggregates_enabled })?;
            apply_range(&mut plan.limit, &mut plan.offset, rr.range, state.tunables().max_rows);
            let shape = if head {
                BodyShape::None
            } else if !function.returns_set || rr.media == MediaType::SingleObject {
                BodyShape::First
            } else {
                BodyShape::Array
            };
            let text = read_statement(&plan, &mut sql, rr.prefer.count == Some(CountPref::Exact), shape, cte.clone());
            (text, plan.offset.unwrap_or(0), function.returns_set)
        }
    };

    rr.timing.mark("plan");
    let strict_max = match (rr.prefer.handling, rr.prefer.max_affected) {
        (Some(Handling::Strict), Some(max)) if function.returns_set => Some(max),
        _ => None,
    };
    let result = run_call(&rr, &state, access, &text, &sql, strict_max).await?;
    rr.timing.mark("transaction");

    if function.returns == ReturnShape::Void {
        let res = response::builder(StatusCode::NO_CONTENT, &rr, &applied(&rr, &state)).finish();
        return response::complete(res, &rr, &result.settings);
    }
    if rr.media == MediaType::SingleObject && set_like && result.page != 1 {
        return Err(RestError::singular(result.page.max(0) as u64));
    }
    let status = if set_like { read_status(offset, result.page, result.total)? } else { StatusCode::OK };
    let mut res = response::builder(status, &rr, &applied(&rr, &state));
    if set_like {
        res.insert_header(("Content-Range", content_range(offset, result.page, result.total)));
    } else {
        // One value is one row, counted when asked.
        let total = (rr.prefer.count == Some(CountPref::Exact)).then_some(1);
        res.insert_header(("Content-Range", content_range(0, 1, total)));
    }
    if head {
        return response::complete(res.content_type(rr.media.content_type()).finish(), &rr, &result.settings);
    }
    let media = if rr.media == MediaType::Csv && set_like {
        MediaType::Csv
    } else if rr.media == MediaType::SingleObject {
        MediaType::SingleObject
    } else {
        MediaType::Json
    };
    let res = response::body(&mut res, media, result.body, rr.strip_nulls)?;
    response::complete(res, &rr, &result.settings)
}

/// The call's statement in the caller's transaction, run again if it loses a deadlock. With
/// `strict_max`, a call that returned more rows than that is refused and nothing it did is kept
/// (the rows a set-returning function gives are the rows it affected).
async fn run_call(
    rr: &RestRequest,
    state: &RestState,
    access: Access,
    text: &str,
    sql: &Sql,
    strict_max: Option<u64>,
) -> Result<execute::ReadResult, RestError> {
    let check = move |result: &execute::ReadResult| {
        let rows = result.page.max(0) as u64;
        strict_max.filter(|&max| rows > max).map(|_| RestError::max_affected_exceeded(rows))
    };
    let check: Option<execute::Check<'_>> = if strict_max.is_some() { Some(&check) } else { None };
    execute::retrying(|| execute::run_statement(rr, state, access, text, sql, check)).await
}

/// PGRST202 for `schema.name` called with `args`, its hint drawn from the callable functions of
/// the schema and the parameters of `overloads`.
fn not_found(
    cache: &SchemaCache,
    schema: &str,
    name: &str,
    args: &[&str],
    payload: RpcPayload,
    post: bool,
    overloads: &[&Function],
) -> RestError {
    let schema_functions: Vec<&str> = cache
        .functions
        .iter()
        .filter(|(q, fs)| q.schema == schema && fs.iter().any(|f| callable(&f)))
        .map(|(q, _)| q.name.as_str())
        .collect();
    let overload_args: Vec<Vec<&str>> =
        overloads.iter().map(|f| f.args.iter().map(|a| a.name.as_str()).collect()).collect();
    RestError::function_not_found(schema, name, args, payload, post, &schema_functions, &overload_args)
}

/// Whether `/rpc` can call this function: PostgREST leaves out functions with unnamed
/// parameters, except one whose single parameter is an unnamed `json`, `jsonb`, `text`, `xml` or
/// `bytea` (called with the body, or with the value of the key `""`).
fn callable(f: &&Function) -> bool {
    f.args.iter().all(|a| !a.name.is_empty())
        || (f.args.len() == 1 && matches!(f.args[0].data_type.as_str(), "json" | "jsonb" | "text" | "xml" | "bytea"))
}

/// Whether `f` takes one unnamed parameter of type `ty` (`json`: `json` or `jsonb`).
fn unnamed_of(f: &Function, ty: &str) -> bool {
    match f.args.as_slice() {
        [only] if only.name.is_empty() => match ty {
            "json" => matches!(only.data_type.as_str(), "json" | "jsonb"),
            other => only.data_type == other,
        },
        _ => false,
    }
}

/// The parameter type a raw body of this `Content-Type` goes to, as in PostgREST.
fn raw_parameter_type(content_type: Option<&str>) -> Option<&'static str> {
    match payload::mime(content_type).as_str() {
        "text/plain" => Some("text"),
        "application/octet-stream" => Some("bytea"),
        "text/xml" => Some("xml"),
        _ => None,
    }
}

/// The overload whose parameters fit the given argument names; Err(candidates) otherwise
/// (empty: none fits; several: ambiguous).
fn choose<'f>(
    overloads: &[&'f Function],
    args: &[String],
    unnamed: Option<&str>,
) -> Result<&'f Function, Vec<&'f Function>> {
    let fits: Vec<&Function> = overloads
        .iter()
        .copied()
        .filter(|f| {
            if let Some(ty) = unnamed {
                return unnamed_of(f, ty);
            }
            args.iter().all(|a| f.args.iter().any(|p| &p.name == a))
                && f.args.iter().all(|p| p.has_default || args.iter().any(|a| a == &p.name))
        })
        .collect();
    // Several fitting overloads are ambiguous, as for PostgREST (Postgres too would refuse the
    // call as "not unique" when defaults make more than one of them fit).
    match fits.as_slice() {
        [one] => Ok(one),
        many => Err(many.to_vec()),
    }
}
