//! `GET /rest/v1/`: an OpenAPI 2.0 description of the exposed schema, shaped like PostgREST's:
//! one definition per table and view (types and formats, defaults, primary- and foreign-key
//! notes, enums, lengths), one path per table, view and function (GET parameters of stable
//! functions, the argument body of every function), shared `rowFilter.*`, `body.*` and `prefer*`
//! parameters. As with PostgREST's default `openapi-mode = follow-privileges`, a caller sees only
//! the tables and functions its role has privileges on (`ignore-privileges`: all of them;
//! `disabled`: PGRST126).

use crate::db::cached::CachedQueries;
use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::{json, Map, Value};

use crate::db::context::Access;
use crate::rest::error::RestError;
use crate::rest::execute;
use crate::rest::request::RestRequest;
use crate::rest::schema::{Cardinality, Function, SchemaCache, Table, TableKind, Volatility};
use crate::rest::RestState;

/// What the caller's role can reach in its schema, and the schema's comment.
struct Visible {
    tables: Vec<String>,
    functions: Vec<String>,
    description: Option<String>,
}

const ACCESSIBLE: &str = "select coalesce((select array_agg(c.relname::text order by c.relname) from pg_class c \
     where c.relnamespace = $1::text::regnamespace and c.relkind in ('v','r','m','f','p') and not c.relispartition \
     and (pg_has_role(c.relowner, 'USAGE') \
          or has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER') \
          or has_any_column_privilege(c.oid, 'SELECT, INSERT, UPDATE, REFERENCES'))), '{}'), \
     coalesce((select array_agg(distinct p.proname::text) from pg_proc p \
     where p.pronamespace = $1::text::regnamespace and has_function_privilege(p.oid, 'EXECUTE')), '{}'), \
     obj_description($1::text::regnamespace, 'pg_namespace')";

async fn visible(rr: &RestRequest, state: &RestState) -> Result<Visible, RestError> {
    let mut client = execute::connection_for(state, rr, Access::ReadOnly).await?;
    let tx = execute::begin(&mut client, rr, state, Access::ReadOnly).await?;
    let row = tx.cached_query_one(ACCESSIBLE, &[&rr.schema]).await.map_err(|e| execute::pg(&e, rr))?;
    let visible = Visible { tables: row.get(0), functions: row.get(1), description: row.get(2) };
    execute::finish(tx, rr, state).await?;
    Ok(visible)
}

pub async fn root(req: HttpRequest, state: web::Data<RestState>) -> Result<HttpResponse, RestError> {
    let mode = state.config.openapi_mode.as_str();
    if mode == "disabled" {
        return Err(RestError::OpenApiDisabled);
    }
    let rr = RestRequest::for_root(&req, &state)?;
    let cache = state.cache.get();
    let seen = visible(&rr, &state).await?;
    if req.method() == actix_web::http::Method::HEAD {
        // No body and, as PostgREST answers it, no Content-Length either: nothing to build.
        let res = HttpResponse::Ok()
            .content_type("application/openapi+json; charset=utf-8")
            .body(actix_web::body::None::new());
        return crate::rest::response::complete(res, &rr, &Default::default());
    }
    let follow = mode != "ignore-privileges";

    let mut tables: Vec<&Table> = cache
        .tables
        .values()
        .filter(|t| t.name.schema == rr.schema && (!follow || seen.tables.contains(&t.name.name)))
        .collect();
    tables.sort_by(|a, b| a.name.name.cmp(&b.name.name));
    let mut functions: Vec<&Function> = cache
        .functions
        .iter()
        .filter(|(q, _)| q.schema == rr.schema && (!follow || seen.functions.contains(&q.name)))
        .flat_map(|(_, overloads)| overloads.first())
        .collect();
    functions.sort_by(|a, b| a.name.name.cmp(&b.name.name));

    let mut paths = Map::new();
    paths.insert(
        "/".into(),
        json!({"get": {"tags": ["Introspection"], "summary": "OpenAPI description (this document)",
                       "produces": ["application/openapi+json", "application/json"],
                       "responses": {"200": {"description": "OK"}}}}),
    );
    let mut definitions = Map::new();
    let mut parameters = shared_parameters();
    for table in &tables {
        let name = &table.name.name;
        paths.insert(format!("/{name}"), table_path(table));
        definitions.insert(name.clone(), table_definition(&cache, table));
        parameters.insert(
            format!("body.{name}"),
            json!({"name": name, "description": name, "required": false, "in": "body",
                   "schema": {"$ref": format!("#/definitions/{name}")}}),
        );
        for column in &table.columns {
            let mut param = json!({"name": column.name, "required": false, "in": "query", "type": "string"});
            if let Some(comment) = &column.comment {
                param["description"] = json!(comment);
            }
            parameters.insert(format!("rowFilter.{name}.{}", column.name), param);
        }
    }
    for function in &functions {
        paths.insert(format!("/rpc/{}", function.name.name), function_path(function));
    }

    let (title, description) = match seen.description.as_deref() {
        Some(text) => split_description(text),
        None => (None, None),
    };
    let info = connection_info(&req);
    let mut doc = json!({
        "swagger": "2.0",
        "info": {
            "title": title.unwrap_or_else(|| "PostgREST API".into()),
            "description": description.unwrap_or_else(|| "This is a dynamic API generated by PostgREST".into()),
            "version": env!("CARGO_PKG_VERSION"),
        },
        "externalDocs": {"description": "PostgREST Documentation", "url": "https://postgrest.org/en/v12/references/api.html"},
        "host": info.1,
        "basePath": "/rest/v1",
        "schemes": [info.0],
        "consumes": MEDIA,
        "produces": MEDIA,
        "paths": paths,
        "definitions": definitions,
        "parameters": parameters,
    });
    if state.config.openapi_security_active {
        doc["securityDefinitions"] = json!({"JWT": {"type": "apiKey", "in": "header", "name": "Authorization",
            "description": "Add the token prepending \"Bearer \" (without quotes) to it"}});
        doc["security"] = json!([{"JWT": []}]);
    }
    let res = HttpResponse::Ok().content_type("application/openapi+json; charset=utf-8").body(doc.to_string());
    crate::rest::response::complete(res, &rr, &Default::default())
}

const MEDIA: [&str; 4] = [
    "application/json",
    "application/vnd.pgrst.object+json;nulls=stripped",
    "application/vnd.pgrst.object+json",
    "text/csv",
];

/// (scheme, host) as the client reached us.
fn connection_info(req: &HttpRequest) -> (String, String) {
    let info = req.connection_info();
    (info.scheme().to_string(), info.host().to_string())
}

/// A comment's first line as summary (title), the rest as description.
fn split_description(text: &str) -> (Option<String>, Option<String>) {
    match text.split_once('\n') {
        Some((first, rest)) => {
            let rest = rest.trim_start_matches('\n');
            (Some(first.to_string()), (!rest.is_empty()).then(|| rest.to_string()))
        }
        None => (Some(text.to_string()), None),
    }
}

fn shared_parameters() -> Map<String, Value> {
    let query = |name: &str, description: &str| json!({"name": name, "description": description, "required": false, "in": "query", "type": "string"});
    let prefer = |values: &[&str]| {
        let mut p =
            json!({"name": "Prefer", "description": "Preference", "required": false, "in": "header", "type": "string"});
        if !values.is_empty() {
            p["enum"] = json!(values);
        }
        p
    };
    let mut params = Map::new();
    params.insert("preferParams".into(), prefer(&[]));
    params.insert("preferReturn".into(), prefer(&["return=representation", "return=minimal", "return=none"]));
    params.insert("preferCount".into(), prefer(&["count=none"]));
    params.insert(
        "preferPost".into(),
        prefer(&[
            "return=representation",
            "return=minimal",
            "return=none",
            "resolution=ignore-duplicates",
            "resolution=merge-duplicates",
        ]),
    );
    params.insert("select".into(), query("select", "Filtering Columns"));
    params.insert("on_conflict".into(), query("on_conflict", "On Conflict"));
    params.insert("order".into(), query("order", "Ordering"));
    params.insert(
        "range".into(),
        json!({"name": "Range", "description": "Limiting and Pagination", "required": false, "in": "header", "type": "string"}),
    );
    params.insert(
        "rangeUnit".into(),
        json!({"name": "Range-Unit", "description": "Limiting and Pagination", "required": false, "in": "header", "type": "string", "default": "items"}),
    );
    params.insert("offset".into(), query("offset", "Limiting and Pagination"));
    params.insert("limit".into(), query("limit", "Limiting and Pagination"));
    params
}

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/parameters/{name}")})
}

fn table_path(table: &Table) -> Value {
    let name = &table.name.name;
    let (summary, description) = table.comment.as_deref().map(split_description).unwrap_or((None, None));
    let op = |params: Vec<Value>, responses: Value| {
        let mut op = json!({"tags": [name], "parameters": params, "responses": responses});
        if let Some(s) = &summary {
            op["summary"] = json!(s);
        }
        if let Some(d) = &description {
            op["description"] = json!(d);
        }
        op
    };
    let row_filters: Vec<Value> =
        table.columns.iter().map(|c| reference(&format!("rowFilter.{name}.{}", c.name))).collect();
    let mut get_params = row_filters.clone();
    get_params.extend(["select", "order", "range", "rangeUnit", "offset", "limit", "preferCount"].map(reference));
    let mut item = Map::new();
    item.insert(
        "get".into(),
        op(
            get_params,
            json!({"200": {"description": "OK", "schema": {"type": "array", "items": {"$ref": format!("#/definitions/{name}")}}},
                   "206": {"description": "Partial Content"}}),
        ),
    );
    // PostgREST lists the three writes together, for a relation any of them applies to.
    if table.insertable || table.updatable || table.deletable {
        let body = reference(&format!("body.{name}"));
        item.insert(
            "post".into(),
            op(
                vec![body.clone(), reference("select"), reference("preferPost")],
                json!({"201": {"description": "Created"}}),
            ),
        );
        let mut patch = row_filters.clone();
        patch.extend([body, reference("preferReturn")]);
        item.insert("patch".into(), op(patch, json!({"204": {"description": "No Content"}})));
        let mut delete = row_filters;
        delete.push(reference("preferReturn"));
        item.insert("delete".into(), op(delete, json!({"204": {"description": "No Content"}})));
    }
    Value::Object(item)
}

fn table_definition(cache: &SchemaCache, table: &Table) -> Value {
    let mut properties = Map::new();
    for column in &table.columns {
        let base = base_type(&column.data_type);
        let mut prop = Map::new();
        if let Some(default) = column.default.as_deref().and_then(|d| default_value(base, d)) {
            prop.insert("default".into(), default);
        }
        let mut notes = vec!["Note:".to_string()];
        if table.primary_key.contains(&column.name) {
            notes.push("This is a Primary Key.<pk/>".into());
        }
        if let Some((target, target_column)) = foreign_key(cache, table, &column.name) {
            notes.push(format!(
                "This is a Foreign Key to `{target}.{target_column}`.<fk table='{target}' column='{target_column}'/>"
            ));
        }
        let description = if notes.len() > 1 {
            let lead = column.comment.as_deref().map(|c| format!("{c}\n\n")).unwrap_or_default();
            Some(format!("{lead}{}", notes.join("\n")))
        } else {
            column.comment.clone()
        };
        if let Some(d) = description {
            prop.insert("description".into(), json!(d));
        }
        if !column.enum_values.is_empty() {
            prop.insert("enum".into(), json!(column.enum_values));
        }
        prop.insert("format".into(), json!(swagger_format(base)));
        if let Some(length) = max_length(&column.data_type) {
            prop.insert("maxLength".into(), json!(length));
        }
        if let Some(kind) = swagger_type(base) {
            prop.insert("type".into(), json!(kind));
        }
        if let Some(item) = base.strip_suffix("[]").and_then(swagger_type) {
            prop.insert("items".into(), json!({"type": item}));
        }
        properties.insert(column.name.clone(), Value::Object(prop));
    }
    let required: Vec<&str> = table.columns.iter().filter(|c| !c.nullable).map(|c| c.name.as_str()).collect();
    let mut def = json!({"type": "object", "required": required, "properties": properties});
    if let Some(comment) = &table.comment {
        def["description"] = json!(comment);
    }
    def
}

/// The table and column a single-column foreign key of `column` points to (tables before views).
fn foreign_key(cache: &SchemaCache, table: &Table, column: &str) -> Option<(String, String)> {
    let mut candidates: Vec<(bool, String, String)> = cache
        .relationships_from(&table.name)
        .iter()
        .filter_map(|r| match &r.cardinality {
            Cardinality::ManyToOne { columns } | Cardinality::OneToOne { columns, source_has_fk: true } => {
                match columns.as_slice() {
                    [(source, target)] if source == column => {
                        let is_view = cache.tables.get(&r.target).is_some_and(|t| t.kind == TableKind::View);
                        Some((is_view, r.target.name.clone(), target.clone()))
                    }
                    _ => None,
                }
            }
            _ => None,
        })
        .collect();
    candidates.sort_by_key(|(is_view, _, _)| *is_view);
    candidates.into_iter().next().map(|(_, t, c)| (t, c))
}

fn function_path(function: &Function) -> Value {
    let name = &function.name.name;
    let (summary, description) = function.comment.as_deref().map(split_description).unwrap_or((None, None));
    let mut op = json!({
        "tags": [format!("(rpc) {name}")],
        "produces": ["application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json"],
        "responses": {"200": {"description": "OK"}},
    });
    if let Some(s) = summary {
        op["summary"] = json!(s);
    }
    if let Some(d) = description {
        op["description"] = json!(d);
    }
    let properties: Map<String, Value> = function
        .args
        .iter()
        .map(|a| {
            let base = base_type(&a.data_type);
            let mut p = json!({"format": swagger_format(base)});
            if let Some(kind) = swagger_type(base) {
                p["type"] = json!(kind);
            }
            if let Some(item) = base.strip_suffix("[]").and_then(swagger_type) {
                p["items"] = json!({"type": item});
            }
            (a.name.clone(), p)
        })
        .collect();
    let required: Vec<&str> = function.args.iter().filter(|a| !a.has_default).map(|a| a.name.as_str()).collect();
    let mut schema = json!({"type": "object", "required": required, "properties": properties});
    if let Some(comment) = &function.comment {
        schema["description"] = json!(comment);
    }
    let mut post = op.clone();
    post["parameters"] =
        json!([{"name": "args", "required": true, "in": "body", "schema": schema}, reference("preferParams")]);
    let mut item = Map::new();
    if function.volatility != Volatility::Volatile {
        let params: Vec<Value> = function
            .args
            .iter()
            .map(|a| {
                let base = base_type(&a.data_type);
                let mut p = json!({"name": a.name, "required": !a.has_default, "in": "query"});
                if a.variadic {
                    p["type"] = json!(swagger_type(base).unwrap_or("string"));
                    p["collectionFormat"] = json!("multi");
                    let element = base.strip_suffix("[]").unwrap_or(base);
                    p["items"] =
                        json!({"type": swagger_type(element).unwrap_or("string"), "format": swagger_format(element)});
                } else {
                    p["format"] = json!(swagger_format(base));
                    // Arrays are written `{a,b}` in a query string; every parameter needs a type.
                    let kind = match swagger_type(base) {
                        Some("array") | None => "string",
                        Some(kind) => kind,
                    };
                    p["type"] = json!(kind);
                }
                p
            })
            .collect();
        let mut get = op;
        get["parameters"] = json!(params);
        item.insert("get".into(), get);
    }
    item.insert("post".into(), post);
    Value::Object(item)
}

/// The type without its modifier: `character varying(20)` is `character varying`, and
/// `numeric(10,2)[]` is `numeric[]`.
fn base_type(data_type: &str) -> &str {
    match (data_type.find('('), data_type.find(')')) {
        (Some(open), Some(close)) if close > open && data_type[close + 1..].is_empty() => data_type[..open].trim_end(),
        _ => data_type,
    }
}

/// `character varying(20)` → 20.
fn max_length(data_type: &str) -> Option<u64> {
    let rest = data_type.strip_prefix("character varying(").or_else(|| data_type.strip_prefix("character("))?;
    rest.strip_suffix(')')?.parse().ok()
}

/// PostgREST's Swagger type of a Postgres type; `json`/`jsonb` have none.
fn swagger_type(base: &str) -> Option<&'static str> {
    Some(match base {
        "character varying" | "character" | "text" => "string",
        "boolean" => "boolean",
        "smallint" | "integer" | "bigint" => "integer",
        "numeric" | "real" | "double precision" => "number",
        "json" | "jsonb" => return None,
        other if other.ends_with("[]") => "array",
        _ => "string",
    })
}

fn swagger_format(base: &str) -> &str {
    match base {
        "smallint" | "integer" => "int32",
        "bigint" => "int64",
        other => other,
    }
}

/// A column default as JSON, as PostgREST shows it: a string type's literal without its cast
/// and quotes, a number or boolean as itself; an expression such as `nextval(...)` has none.
fn default_value(base: &str, default: &str) -> Option<Value> {
    if swagger_type(base) == Some("string") {
        let literal = default.strip_suffix(&format!("::{base}")).map(|d| d.trim_matches('\'')).unwrap_or(default);
        return Some(json!(literal));
    }
    serde_json::from_str(default).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_formats_and_lengths_follow_postgrest() {
        assert_eq!(base_type("character varying(20)"), "character varying");
        assert_eq!(max_length("character varying(20)"), Some(20));
        assert_eq!(swagger_type("jsonb"), None);
        assert_eq!(swagger_type("text[]"), Some("array"));
        assert_eq!(swagger_format("bigint"), "int64");
        assert_eq!(swagger_format("timestamp with time zone"), "timestamp with time zone");
    }

    #[test]
    fn defaults_are_shown_as_postgrest_shows_them() {
        assert_eq!(default_value("text", "'draft'::text"), Some(json!("draft")));
        assert_eq!(default_value("timestamp with time zone", "now()"), Some(json!("now()")));
        assert_eq!(default_value("integer", "0"), Some(json!(0)));
        assert_eq!(default_value("boolean", "false"), Some(json!(false)));
        assert_eq!(default_value("bigint", "nextval('t_id_seq'::regclass)"), None);
    }

    #[test]
    fn a_comments_first_line_is_the_summary() {
        assert_eq!(split_description("Fleet\n\nAll vehicles"), (Some("Fleet".into()), Some("All vehicles".into())));
        assert_eq!(split_description("Fleet"), (Some("Fleet".into()), None));
    }
}
