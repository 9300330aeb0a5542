//! CSV in and out of a table. Export streams every row of the filtered, sorted view (not only
//! the loaded page) as CSV in chunks while Postgres sends them, each value as Postgres's own
//! text (as `copy ... csv` writes it: NULL is an empty field, an empty string is `""`). Import
//! takes rows the screen parsed and mapped to columns, and inserts them in one transaction, in
//! batches converted by `json_populate_recordset`; a failing batch is retried row by row inside
//! a savepoint, so the error names the row; json/jsonb values are checked as JSON first. The
//! import is audited with its column list and row count (not its values).

use actix_web::{web, HttpResponse};
use bytes::Bytes;
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::audit;
use super::body::read_limited;
use super::catalog::relation;
use super::error::StudioError;
use super::query::{self, Relation, Select};
use super::session::OperatorSession;
use crate::state::AppState;

/// The most rows one import takes.
pub const MAX_IMPORT_ROWS: usize = 100_000;
/// The largest import body.
const MAX_IMPORT_BYTES: usize = 64 * 1024 * 1024;
/// Rows per insert statement.
const BATCH: usize = 500;
/// Bytes of CSV gathered before a chunk is sent.
const CHUNK: usize = 64 * 1024;

/// One CSV field: `None` (NULL) is empty; a value is quoted when it is empty or holds a
/// comma, a quote, a line break or leading/trailing space.
pub fn push_field(out: &mut String, value: Option<&str>) {
    let Some(v) = value else { return };
    let quote = v.is_empty()
        || v.contains([',', '"', '\n', '\r'])
        || v.starts_with(char::is_whitespace)
        || v.ends_with(char::is_whitespace);
    if quote {
        out.push('"');
        out.push_str(&v.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(v);
    }
}

/// One CSV line (with its `\r\n`).
pub fn push_record<'a>(out: &mut String, fields: impl IntoIterator<Item = Option<&'a str>>) {
    for (i, f) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_field(out, f);
    }
    out.push_str("\r\n");
}

#[derive(Deserialize)]
pub struct ExportQuery {
    /// The view's [`Select`] as JSON (filters and sort; paging is ignored).
    q: Option<String>,
}

/// `GET /studio/api/tables/{schema}/{table}/export?q={...}`: `text/csv`, a header line and
/// every row of the view, streamed.
pub async fn export(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    page: web::Query<ExportQuery>,
) -> Result<HttpResponse, StudioError> {
    let (schema, name) = path.into_inner();
    let spec: Select = match page.q.as_deref() {
        Some(text) => serde_json::from_str(text).map_err(|e| StudioError::BadRequest(format!("q: {e}")))?,
        None => Select::default(),
    };
    let client = state.pools.admin.get().await?;
    let rel = relation(&client, &schema, &name).await?;
    let built = query::export(&rel, &spec)?;
    let mut header = String::new();
    push_record(&mut header, rel.columns.iter().map(|c| Some(c.name.as_str())));
    // Planning and argument errors come back here, before the answer starts.
    let rows = client.query_raw(built.sql.as_str(), built.params.iter()).await?;
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(4);
    actix_web::rt::spawn(async move {
        let _client = client; // the connection lives as long as its rows
        let mut rows = std::pin::pin!(rows);
        let mut buf = header;
        loop {
            match rows.next().await {
                Some(Ok(row)) => {
                    let fields: Vec<Option<String>> = row.get(0);
                    push_record(&mut buf, fields.iter().map(Option::as_deref));
                    if buf.len() >= CHUNK && tx.send(Ok(Bytes::from(std::mem::take(&mut buf)))).await.is_err() {
                        return; // the browser went away
                    }
                }
                Some(Err(err)) => {
                    tracing::warn!(error = %err, "studio: CSV export stopped");
                    let _ = tx.send(Err(std::io::Error::other("the export stopped"))).await;
                    return;
                }
                None => break,
            }
        }
        if !buf.is_empty() {
            let _ = tx.send(Ok(Bytes::from(buf))).await;
        }
    });
    let body = futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|item| (item, rx)) });
    let file = format!("{}.csv", name.replace(|c: char| !c.is_alphanumeric() && c != '_' && c != '-', "_"));
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header(("Content-Disposition", format!("attachment; filename=\"{file}\"")))
        .insert_header(("Cache-Control", "no-store"))
        .streaming(body))
}

#[derive(Deserialize)]
pub struct ImportBody {
    /// The table's columns, in the order of each row's fields.
    columns: Vec<String>,
    /// The rows, each a list of texts (`null` for NULL), in the columns' order.
    rows: Vec<Vec<Option<String>>>,
}

/// A row as the JSON object `json_populate_recordset` reads: text for every column but json
/// and jsonb, whose text must itself be JSON. `n` is the row's number (from 1) for errors.
pub fn row_object(
    rel: &Relation,
    columns: &[String],
    fields: &[Option<String>],
    n: usize,
) -> Result<Value, StudioError> {
    if fields.len() != columns.len() {
        return Err(StudioError::BadRequest(format!("Row {n}: {} fields for {} columns", fields.len(), columns.len())));
    }
    let mut object = Map::new();
    for (name, field) in columns.iter().zip(fields) {
        let is_json = rel.columns.iter().any(|c| &c.name == name && (c.udt == "json" || c.udt == "jsonb"));
        let value = match field {
            None => Value::Null,
            Some(text) if is_json => serde_json::from_str(text)
                .map_err(|e| StudioError::BadRequest(format!("Row {n}, column {name}: invalid JSON ({e})")))?,
            Some(text) => Value::String(text.clone()),
        };
        object.insert(name.clone(), value);
    }
    Ok(Value::Object(object))
}

/// The database's refusal of one row, named by its number.
fn row_error(err: tokio_postgres::Error, n: usize) -> StudioError {
    match StudioError::from(err) {
        StudioError::Database { code, message, detail, hint, .. } => {
            StudioError::Database { code, message: format!("Row {n}: {message}"), detail, hint, position: None }
        }
        other => other,
    }
}

/// `POST /studio/api/tables/{schema}/{table}/import` `{columns, rows}`: `{inserted}`, all the
/// rows or none.
pub async fn import(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    path: web::Path<(String, String)>,
    mut payload: web::Payload,
) -> Result<HttpResponse, StudioError> {
    let (schema, name) = path.into_inner();
    let raw = read_limited(&mut payload, MAX_IMPORT_BYTES, || {
        StudioError::BadRequest(format!("An import is at most {} MB", MAX_IMPORT_BYTES >> 20))
    })
    .await?;
    let body: ImportBody = serde_json::from_slice(&raw).map_err(|e| StudioError::BadRequest(format!("body: {e}")))?;
    if body.rows.is_empty() {
        return Err(StudioError::BadRequest("The file has no rows".into()));
    }
    if body.rows.len() > MAX_IMPORT_ROWS {
        return Err(StudioError::BadRequest(format!("An import is at most {MAX_IMPORT_ROWS} rows")));
    }
    let mut client = state.pools.admin.get().await?;
    let rel = relation(&client, &schema, &name).await?;
    if !matches!(rel.kind.as_str(), "r" | "p") {
        return Err(StudioError::BadRequest("Rows are imported into tables only".into()));
    }
    let objects = body
        .rows
        .iter()
        .enumerate()
        .map(|(i, fields)| row_object(&rel, &body.columns, fields, i + 1))
        .collect::<Result<Vec<_>, _>>()?;
    query::insert_many(&rel, &body.columns, String::new())?; // columns checked before the transaction
    let mut tx = client.transaction().await?;
    for (b, batch) in objects.chunks(BATCH).enumerate() {
        let built = query::insert_many(&rel, &body.columns, Value::Array(batch.to_vec()).to_string())?;
        let sp = tx.savepoint(format!("batch_{b}")).await?;
        let failed = sp.execute(built.sql.as_str(), &built.param_refs()).await.is_err();
        if !failed {
            sp.commit().await?;
            continue;
        }
        sp.rollback().await?;
        for (i, object) in batch.iter().enumerate() {
            let one = query::insert_many(&rel, &body.columns, Value::Array(vec![object.clone()]).to_string())?;
            tx.execute(one.sql.as_str(), &one.param_refs()).await.map_err(|e| row_error(e, b * BATCH + i + 1))?;
        }
    }
    let detail = json!({ "columns": body.columns, "rows": objects.len() });
    audit::record(&tx, &op, "rows.import", Some(&format!("{schema}.{name}")), detail).await?;
    tx.commit().await?;
    Ok(HttpResponse::Ok().json(json!({ "inserted": objects.len() })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed_and_null_is_empty() {
        let mut out = String::new();
        push_record(
            &mut out,
            [Some("plain"), None, Some(""), Some("a,b"), Some("say \"hi\""), Some("two\nlines"), Some(" pad")],
        );
        assert_eq!(out, "plain,,\"\",\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\" pad\"\r\n");
    }
}
