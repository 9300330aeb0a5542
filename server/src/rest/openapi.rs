//! `GET /rest/v1/`: an OpenAPI 2.0 description of the exposed schema, shaped like PostgREST's
//! (one path per table, view and function; one definition per table and view).

use actix_web::{web, HttpRequest, HttpResponse};
use serde_json::{json, Map, Value};

use crate::rest::error::RestError;
use crate::rest::request::RestRequest;
use crate::rest::schema::{ReturnShape, Table};
use crate::rest::RestState;

pub async fn root(req: HttpRequest, state: web::Data<RestState>) -> Result<HttpResponse, RestError> {
    let rr = RestRequest::for_root(&req, &state)?;
    let cache = state.cache.get();
    let mut tables: Vec<&Table> = cache.tables.values().filter(|t| t.name.schema == rr.schema).collect();
    tables.sort_by(|a, b| a.name.name.cmp(&b.name.name));

    let mut paths = Map::new();
    paths.insert("/".into(), json!({"get": {"tags": ["Introspection"], "summary": "OpenAPI description (this document)", "produces": ["application/openapi+json", "application/json"], "responses": {"200": {"description": "OK"}}}}));
    let mut definitions = Map::new();
    for table in &tables {
        let name = &table.name.name;
        let mut ops = Map::new();
        let rowfilters: Vec<Value> = table
            .columns
            .iter()
            .map(|c| json!({"name": c.name, "in": "query", "required": false, "type": "string", "format": c.data_type}))
            .collect();
        let mut get_params = vec![
            json!({"$ref": "#/parameters/select"}),
            json!({"$ref": "#/parameters/order"}),
            json!({"$ref": "#/parameters/range"}),
            json!({"$ref": "#/parameters/offset"}),
            json!({"$ref": "#/parameters/limit"}),
            json!({"$ref": "#/parameters/preferCount"}),
        ];
        get_params.extend(rowfilters.iter().cloned());
        ops.insert("get".into(), json!({"tags": [name], "summary": table.comment, "parameters": get_params, "responses": {"200": {"description": "OK", "schema": {"type": "array", "items": {"$ref": format!("#/definitions/{name}")}}}, "206": {"description": "Partial Content"}}}));
        if table.insertable {
            ops.insert("post".into(), json!({"tags": [name], "parameters": [{"$ref": format!("#/parameters/body.{name}")}, {"$ref": "#/parameters/select"}, {"$ref": "#/parameters/preferPost"}], "responses": {"201": {"description": "Created"}}}));
        }
        if table.updatable {
            let mut params = vec![
                json!({"$ref": format!("#/parameters/body.{name}")}),
                json!({"$ref": "#/parameters/preferReturn"}),
            ];
            params.extend(rowfilters.iter().cloned());
            ops.insert(
                "patch".into(),
                json!({"tags": [name], "parameters": params, "responses": {"204": {"description": "No Content"}}}),
            );
        }
        if table.deletable {
            let mut params = vec![json!({"$ref": "#/parameters/preferReturn"})];
            params.extend(rowfilters.iter().cloned());
            ops.insert(
                "delete".into(),
                json!({"tags": [name], "parameters": params, "responses": {"204": {"description": "No Content"}}}),
            );
        }
        paths.insert(format!("/{name}"), Value::Object(ops));

        let mut properties = Map::new();
        for column in &table.columns {
            let mut prop = json!({"type": json_type(&column.data_type), "format": column.data_type});
            let mut description = column.comment.clone().unwrap_or_default();
            if table.primary_key.contains(&column.name) {
                description.push_str("\n\nNote:\nThis is a Primary Key.<pk/>");
            }
            if !description.is_empty() {
                prop["description"] = json!(description.trim_start());
            }
            if let Some(default) = &column.default {
                prop["default"] = json!(default);
            }
            if !column.enum_values.is_empty() {
                prop["enum"] = json!(column.enum_values);
            }
            properties.insert(column.name.clone(), prop);
        }
        let required: Vec<&str> =
            table.columns.iter().filter(|c| !c.nullable && c.default.is_none()).map(|c| c.name.as_str()).collect();
        definitions.insert(
            name.clone(),
            json!({"type": "object", "required": required, "properties": properties, "description": table.comment}),
        );
    }
    let mut functions: Vec<_> = cache.functions.iter().filter(|(q, _)| q.schema == rr.schema).collect();
    functions.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    for (qname, overloads) in functions {
        let Some(f) = overloads.first() else { continue };
        let properties: Map<String, Value> = f
            .args
            .iter()
            .map(|a| (a.name.clone(), json!({"type": json_type(&a.data_type), "format": a.data_type})))
            .collect();
        let required: Vec<&str> = f.args.iter().filter(|a| !a.has_default).map(|a| a.name.as_str()).collect();
        let body = json!({"in": "body", "name": "args", "required": true, "schema": {"type": "object", "required": required, "properties": properties}});
        let returns = match &f.returns {
            ReturnShape::Void => "void".to_string(),
            ReturnShape::Scalar(t) => t.clone(),
            ReturnShape::Composite { .. } => "record".to_string(),
        };
        paths.insert(
            format!("/rpc/{}", qname.name),
            json!({"post": {"tags": ["(rpc) ".to_string() + &qname.name], "summary": f.comment, "description": format!("returns {returns}"), "parameters": [body], "responses": {"200": {"description": "OK"}}}}),
        );
    }
    let host = req.connection_info().host().to_string();
    let doc = json!({
        "swagger": "2.0",
        "info": {"title": "standard public schema", "description": "", "version": env!("CARGO_PKG_VERSION")},
        "host": host,
        "basePath": "/rest/v1",
        "schemes": ["http"],
        "consumes": ["application/json", "application/vnd.pgrst.object+json", "text/csv"],
        "produces": ["application/json", "application/vnd.pgrst.object+json", "text/csv"],
        "paths": paths,
        "definitions": definitions,
        "parameters": {
            "select": {"name": "select", "description": "Filtering Columns", "required": false, "in": "query", "type": "string"},
            "order": {"name": "order", "description": "Ordering", "required": false, "in": "query", "type": "string"},
            "range": {"name": "Range", "description": "Limiting and Pagination", "required": false, "in": "header", "type": "string"},
            "offset": {"name": "offset", "description": "Limiting and Pagination", "required": false, "in": "query", "type": "string"},
            "limit": {"name": "limit", "description": "Limiting and Pagination", "required": false, "in": "query", "type": "string"},
            "preferCount": {"name": "Prefer", "description": "Preference", "required": false, "in": "header", "type": "string", "enum": ["count=none"]},
            "preferReturn": {"name": "Prefer", "description": "Preference", "required": false, "in": "header", "type": "string", "enum": ["return=representation", "return=minimal", "return=none"]},
            "preferPost": {"name": "Prefer", "description": "Preference", "required": false, "in": "header", "type": "string", "enum": ["return=representation", "return=minimal", "return=none", "resolution=ignore-duplicates", "resolution=merge-duplicates"]}
        }
    });
    Ok(HttpResponse::Ok().content_type("application/openapi+json; charset=utf-8").json(doc))
}

fn json_type(data_type: &str) -> &'static str {
    if data_type.ends_with("[]") {
        return "array";
    }
    match data_type {
        "integer" | "bigint" | "smallint" => "integer",
        "numeric" | "real" | "double precision" => "number",
        "boolean" => "boolean",
        "json" | "jsonb" => "object",
        _ if data_type.starts_with("numeric") => "number",
        _ => "string",
    }
}
