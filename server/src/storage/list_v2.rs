//! `POST /object/list-v2/{bucket}` (storage-js `listV2`): a bucket's objects under `prefix`, a
//! page at a time, in the caller's transaction so row-level security decides what exists.
//!
//! Without `with_delimiter` the objects are listed by name (byte order), `created_at` or
//! `updated_at`, ascending or descending. With it, names are grouped by their next `/` after the
//! prefix into folders (`{key: "a/b", name: "a/b/"}`): in name order they are walked by
//! `storage.list_v2_delimited` (V58); by a date, folders are dated by their oldest object and
//! sorted with the objects, as storage-api does (an aggregate over the prefix, not an index walk). The cursor is storage-api's: base64 of `l:<last name>`,
//! `o:<order>`, `c:<sort column>`, `a:<sort value>` lines, so a page cursor from storage-api
//! means the same here.

use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use serde::Deserialize;
use serde_json::{json, Value};

use super::db::{self, Ctx};
use super::error::StorageError;
use super::objects::{json_body, like_escape};
use super::StorageState;
use crate::db::cached::CachedQueries;
use crate::db::context::Access;

/// The most entries a page holds (storage-api's cap).
const MAX_PAGE: i64 = 1000;

#[derive(Debug, Default, Deserialize)]
struct SortBy {
    column: Option<String>,
    order: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Body {
    prefix: Option<String>,
    limit: Option<f64>,
    cursor: Option<String>,
    #[serde(rename = "with_delimiter")]
    with_delimiter: Option<bool>,
    sort_by: Option<SortBy>,
}

/// Where the previous page ended, and how it was sorted.
#[derive(Debug, Default, Clone, PartialEq)]
struct Cursor {
    after: String,
    order: Option<String>,
    column: Option<String>,
    column_after: Option<String>,
}

impl Cursor {
    fn encode(&self) -> String {
        let mut lines = vec![format!("l:{}", self.after)];
        if let Some(order) = &self.order {
            lines.push(format!("o:{order}"));
        }
        if let Some(column) = &self.column {
            lines.push(format!("c:{column}"));
        }
        if let Some(value) = &self.column_after {
            lines.push(format!("a:{value}"));
        }
        base64::engine::general_purpose::STANDARD.encode(lines.join("\n"))
    }

    fn decode(text: &str) -> Result<Cursor, StorageError> {
        let invalid = || StorageError::InvalidRequest("Invalid Parameter continuation token".into());
        let bytes = base64::engine::general_purpose::STANDARD.decode(text.trim()).map_err(|_| invalid())?;
        let text = String::from_utf8(bytes).map_err(|_| invalid())?;
        let mut cursor = Cursor::default();
        for line in text.split('\n') {
            let (key, value) = line.split_once(':').ok_or_else(invalid)?;
            match key {
                "l" => cursor.after = value.to_string(),
                "o" => cursor.order = Some(value.to_string()),
                "c" => cursor.column = Some(value.to_string()),
                "a" => cursor.column_after = Some(value.to_string()),
                _ => return Err(invalid()),
            }
        }
        Ok(cursor)
    }
}

/// One listed object, as storage-api lists it.
const OBJECT_JSON: &str = "json_build_object('key', name, 'name', name, 'id', id, \
     'updated_at', storage.js_time(updated_at), 'created_at', storage.js_time(created_at), \
     'last_accessed_at', storage.js_time(last_accessed_at), 'metadata', metadata)";

pub async fn list_v2(
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Bytes,
    state: web::Data<StorageState>,
) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let bucket = path.into_inner();
    let body: Body = json_body(&body)?;
    let limit = match body.limit {
        Some(l) if !l.is_finite() || l < 1.0 || l.fract() != 0.0 => {
            return Err(StorageError::InvalidRequest("body/limit must be >= 1".into()))
        }
        Some(l) => (l as i64).min(MAX_PAGE),
        None => MAX_PAGE,
    };
    db::find_bucket(&state.admin, &bucket).await?;
    let cursor = body.cursor.as_deref().filter(|c| !c.is_empty()).map(Cursor::decode).transpose()?;
    let sort = body.sort_by.unwrap_or_default();
    let order = cursor.as_ref().and_then(|c| c.order.clone()).or(sort.order).unwrap_or_else(|| "asc".into());
    let desc = order.eq_ignore_ascii_case("desc");
    let column = cursor.as_ref().and_then(|c| c.column.clone()).or(sort.column);
    let column = match column.as_deref() {
        None | Some("name") => None,
        Some(c @ ("created_at" | "updated_at")) => Some(c.to_string()),
        Some(_) => {
            return Err(StorageError::InvalidRequest(
                "body/sortBy/column must be equal to one of the allowed values".into(),
            ))
        }
    };
    let prefix = body.prefix.unwrap_or_default();
    let delimited = body.with_delimiter.unwrap_or(false);

    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, &ctx, Access::ReadOnly).await?;
    let fetch = (limit + 1) as i32;
    let rows: Value = if delimited && column.is_none() {
        let after = cursor.as_ref().map(|c| c.after.clone()).unwrap_or_default();
        let sql = format!(
            "select coalesce(json_agg(case when id is null then json_build_object('key', rtrim(name, '/'), 'name', name) \
             else {OBJECT_JSON} end), '[]') from storage.list_v2_delimited($1, $2, $3, $4, $5)"
        );
        tx.cached_query_one(&sql, &[&bucket, &prefix, &fetch, &after, &desc])
            .await
            .map_err(|e| StorageError::from_db(&e, "list objects"))?
            .get(0)
    } else {
        let dir = if desc { "desc" } else { "asc" };
        let op = if desc { "<" } else { ">" };
        let after = cursor.as_ref().map(|c| c.after.clone());
        let after_value = cursor.as_ref().and_then(|c| c.column_after.clone());
        let (order_by, page) = match &column {
            Some(col) => (
                format!("date_trunc('milliseconds', {col}) {dir}, name collate \"C\" {dir}"),
                format!(
                    "($4::text is null or (date_trunc('milliseconds', {col}), name collate \"C\") {op} \
                     (date_trunc('milliseconds', coalesce(nullif($5, '')::timestamptz, 'epoch'::timestamptz)), $4::text))"
                ),
            ),
            None => (format!("name collate \"C\" {dir}"), format!("($4::text is null or name collate \"C\" {op} $4::text)")),
        };
        // the entries: every object, or (with a delimiter, sorted by a date) the leaf objects and
        // one entry per folder dated by its oldest object, as storage-api's search_by_timestamp
        let entries = if delimited {
            "with raw as ( \
               select name, id, updated_at, created_at, last_accessed_at, metadata, \
                 case when strpos(substr(name, char_length($6) + 1), '/') > 0 \
                   then left(name, char_length($6) + strpos(substr(name, char_length($6) + 1), '/')) end as folder \
               from storage.objects where bucket_id = $1 and name collate \"C\" like $2), \
             entries as ( \
               select folder as name, null::uuid as id, min(created_at) as updated_at, min(created_at) as created_at, \
                 null::timestamptz as last_accessed_at, null::jsonb as metadata from raw where folder is not null group by folder \
               union all \
               select name, id, updated_at, created_at, last_accessed_at, metadata from raw where folder is null) \
             select * from entries where true"
        } else {
            "select name, id, updated_at, created_at, last_accessed_at, metadata from storage.objects \
             where bucket_id = $1 and name collate \"C\" like $2"
        };
        let sql = format!(
            "select coalesce(json_agg(case when id is null then json_build_object('key', rtrim(name, '/'), 'name', name, \
               'created_at', storage.js_time(created_at), 'updated_at', storage.js_time(updated_at)) else {OBJECT_JSON} end order by rn), '[]') from ( \
               select *, row_number() over () as rn from ( \
                 select * from ({entries}) e where {page} \
                 order by {order_by} limit $3::int) s) o"
        );
        let pattern = format!("{}%", like_escape(&prefix));
        let after_value = after_value.unwrap_or_default();
        let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![&bucket, &pattern, &fetch, &after];
        if column.is_some() || delimited {
            params.push(&after_value);
        }
        if delimited {
            params.push(&prefix);
        }
        tx.cached_query_one(&sql, &params).await.map_err(|e| StorageError::from_db(&e, "list objects"))?.get(0)
    };
    db::commit(tx).await?;

    let mut entries = rows.as_array().cloned().unwrap_or_default();
    let has_next = entries.len() as i64 > limit;
    entries.truncate(limit as usize);
    let mut answer = json!({ "hasNext": has_next });
    if has_next {
        let last = entries.last().cloned().unwrap_or_default();
        let name = last["name"].as_str().unwrap_or_default().to_string();
        let next = Cursor {
            after: name.clone(),
            order: Some(order.to_ascii_lowercase()),
            column: column.clone(),
            column_after: column.as_ref().and_then(|c| last[c.as_str()].as_str().map(str::to_string)),
        };
        answer["nextCursor"] = json!(next.encode());
        answer["nextCursorKey"] = json!(name);
    }
    let (folders, objects): (Vec<Value>, Vec<Value>) =
        entries.into_iter().partition(|e| e.get("id").is_none_or(Value::is_null));
    answer["folders"] = json!(folders);
    answer["objects"] = json!(objects);
    Ok(HttpResponse::Ok().json(answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_read_storage_api_s_own() {
        let c = Cursor {
            after: "a/b.txt".into(),
            order: Some("desc".into()),
            column: Some("created_at".into()),
            column_after: Some("2026-11-26T10:00:00.000Z".into()),
        };
        assert_eq!(Cursor::decode(&c.encode()).unwrap(), c);
        // storage-api's encoding of {startAfter: "x", sortOrder: "asc"}
        let theirs = base64::engine::general_purpose::STANDARD.encode("l:x\no:asc");
        assert_eq!(Cursor::decode(&theirs).unwrap().after, "x");
        for bad in ["!!!", "bm9wZQ==" /* "nope" */, ""] {
            assert!(Cursor::decode(bad).is_err(), "{bad}");
        }
    }
}
