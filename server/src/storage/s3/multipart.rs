//! S3 multipart uploads: CreateMultipartUpload (`POST ?uploads`), UploadPart (`PUT ?partNumber&uploadId`),
//! CompleteMultipartUpload (`POST ?uploadId`), AbortMultipartUpload (`DELETE ?uploadId`) and
//! ListParts (`GET ?uploadId`). The upload's state is in `storage.s3_multipart_uploads` and
//! `storage.s3_multipart_parts` (V61), each part's bytes an object under `s3parts/<upload>/<n>`,
//! so any instance takes any request. Row-level security decides at creation (a rolled-back
//! trial write as the caller) and at completion (the write as the caller); only the creator may
//! send parts. Completion streams the listed parts, in order, into the object's version, then
//! writes the row and deletes the parts: an unfinished upload is never a visible object.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::StreamExt;
use object_store::path::Path;
use serde_json::Value;
use uuid::Uuid;

use super::xml::{self, escape, S3Error};
use super::{new_object, size_limit, user_metadata};
use crate::db::cached::CachedQueries;
use crate::db::context::Access;
use crate::storage::backend::{self, key_of};
use crate::storage::db::{self, Ctx, NewRow};
use crate::storage::error::StorageError;
use crate::storage::StorageState;

fn part_key(upload: Uuid, part: i32) -> Path {
    Path::from(format!("s3parts/{upload}/{part:05}"))
}

fn no_such_upload() -> S3Error {
    S3Error::new(
        StatusCode::NOT_FOUND,
        "NoSuchUpload",
        "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
    )
}

/// One upload's state.
struct Upload {
    bucket: String,
    name: String,
    owner_id: Option<String>,
    role: String,
    content_type: String,
    cache_control: String,
    user_metadata: Option<Value>,
}

/// The upload `id` of `bucket/key`, if the caller created it.
async fn own_upload(
    state: &StorageState,
    ctx: &Ctx,
    id: &str,
    bucket: &str,
    key: &str,
) -> Result<(Uuid, Upload), S3Error> {
    let id = Uuid::parse_str(id).map_err(|_| no_such_upload())?;
    let client = db::connection(&state.admin).await?;
    let row = client
        .cached_query_opt(
            "select bucket_id, name, owner_id, role, content_type, cache_control, user_metadata \
             from storage.s3_multipart_uploads where id = $1",
            &[&id],
        )
        .await
        .map_err(|e| StorageError::from_db(&e, "read upload"))?
        .ok_or_else(no_such_upload)?;
    let upload = Upload {
        bucket: row.get(0),
        name: row.get(1),
        owner_id: row.get(2),
        role: row.get(3),
        content_type: row.get(4),
        cache_control: row.get(5),
        user_metadata: row.get(6),
    };
    if upload.bucket != bucket || upload.name != key {
        return Err(no_such_upload());
    }
    if upload.owner_id != ctx.owner().1 || upload.role != ctx.caller.role {
        return Err(S3Error::access_denied("Only the creator of an upload may send its parts"));
    }
    Ok((id, upload))
}

/// `POST /{bucket}/{key}?uploads`.
pub async fn create(
    req: &HttpRequest,
    state: &StorageState,
    ctx: &Ctx,
    bucket_id: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let (_, content_type, cache_control) = new_object(req, state, bucket_id, key).await?;
    let metadata = user_metadata(req);
    let trial = NewRow {
        bucket: bucket_id,
        name: key,
        metadata: db::object_metadata(0, "", &content_type, &cache_control),
        user_metadata: metadata.clone(),
        version: "pending",
    };
    {
        let mut client = db::connection(&state.request).await?;
        let tx = db::begin(&mut client, ctx, Access::ReadWrite).await?;
        db::write_object(&tx, ctx, true, &trial).await?;
        tx.rollback().await.map_err(|e| StorageError::from_db(&e, "rollback"))?;
    }
    let id = Uuid::new_v4();
    let client = db::connection(&state.admin).await?;
    client
        .cached_execute(
            "insert into storage.s3_multipart_uploads (id, bucket_id, name, owner_id, role, content_type, cache_control, user_metadata) \
             values ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[&id, &bucket_id, &key, &ctx.owner().1, &ctx.caller.role, &content_type, &cache_control, &metadata],
        )
        .await
        .map_err(|e| StorageError::from_db(&e, "create upload"))?;
    Ok(xml::ok(format!(
        "<InitiateMultipartUploadResult xmlns=\"{}\"><Bucket>{}</Bucket><Key>{}</Key><UploadId>{id}</UploadId></InitiateMultipartUploadResult>",
        xml::NS,
        escape(bucket_id),
        escape(key)
    )))
}

/// `PUT /{bucket}/{key}?partNumber=N&uploadId=X`.
pub async fn upload_part(
    req: &HttpRequest,
    payload: web::Payload,
    state: &StorageState,
    ctx: &Ctx,
    (bucket_id, key): (&str, &str),
    upload_id: &str,
    part: &str,
) -> Result<HttpResponse, S3Error> {
    let part: i32 = part
        .parse()
        .ok()
        .filter(|n| (1..=10_000).contains(n))
        .ok_or_else(|| S3Error::invalid("Part number must be an integer between 1 and 10000"))?;
    let (id, _) = own_upload(state, ctx, upload_id, bucket_id, key).await?;
    let bucket = db::find_bucket(&state.admin, bucket_id).await?;
    let stored =
        super::store_checked(req, payload, state, &part_key(id, part), size_limit(state, &bucket), backend::Etag::Md5)
            .await?;
    let client = db::connection(&state.admin).await?;
    let total: i64 = client
        .cached_query_one(
            "with p as (insert into storage.s3_multipart_parts (upload_id, part_number, size, etag) values ($1, $2, $3, $4) \
               on conflict (upload_id, part_number) do update set size = excluded.size, etag = excluded.etag, created_at = now() \
               returning size) \
             select coalesce(sum(size), 0)::int8 from storage.s3_multipart_parts where upload_id = $1 and part_number <> $2",
            &[&id, &part, &(stored.size as i64), &stored.etag],
        )
        .await
        .map_err(|e| StorageError::from_db(&e, "record part"))?
        .get(0);
    if (total as u64).saturating_add(stored.size) > size_limit(state, &bucket) {
        return Err(StorageError::EntityTooLarge.into());
    }
    Ok(HttpResponse::Ok().insert_header(("ETag", stored.etag)).finish())
}

/// The `(PartNumber, ETag)` pairs of a CompleteMultipartUpload body, in order.
fn listed_parts(body: &str) -> Vec<(i32, String)> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find("<Part>") {
        let after = &rest[start + 6..];
        let Some(end) = after.find("</Part>") else { break };
        let part = &after[..end];
        let field = |name: &str| {
            let open = format!("<{name}>");
            let close = format!("</{name}>");
            let from = part.find(&open)? + open.len();
            let to = part[from..].find(&close)? + from;
            Some(xml::unescape(part[from..to].trim()))
        };
        if let (Some(n), Some(etag)) = (field("PartNumber").and_then(|n| n.parse().ok()), field("ETag")) {
            out.push((n, etag));
        }
        rest = &after[end + 7..];
    }
    out
}

/// `POST /{bucket}/{key}?uploadId=X`.
pub async fn complete(
    mut payload: web::Payload,
    state: &StorageState,
    ctx: &Ctx,
    bucket_id: &str,
    key: &str,
    upload_id: &str,
) -> Result<HttpResponse, S3Error> {
    let (id, upload) = own_upload(state, ctx, upload_id, bucket_id, key).await?;
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| S3Error::invalid("The request body was interrupted"))?;
        if body.len() + chunk.len() > 2 * 1024 * 1024 {
            return Err(S3Error::new(StatusCode::BAD_REQUEST, "MalformedXML", "The XML you provided was too large"));
        }
        body.extend_from_slice(&chunk);
    }
    let listed = listed_parts(&String::from_utf8_lossy(&body));
    if listed.is_empty() || listed.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err(S3Error::new(
            StatusCode::BAD_REQUEST,
            "InvalidPartOrder",
            "The list of parts was not in ascending order, or empty.",
        ));
    }
    let client = db::connection(&state.admin).await?;
    let rows = client
        .cached_query("select part_number, etag from storage.s3_multipart_parts where upload_id = $1", &[&id])
        .await
        .map_err(|e| StorageError::from_db(&e, "read parts"))?;
    drop(client);
    let recorded: std::collections::HashMap<i32, String> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    for (n, etag) in &listed {
        if recorded.get(n).map(|e| e.trim_matches('"')) != Some(etag.trim_matches('"')) {
            return Err(S3Error::new(
                StatusCode::BAD_REQUEST,
                "InvalidPart",
                "One or more of the specified parts could not be found or its ETag did not match.",
            ));
        }
    }
    let bucket = db::find_bucket(&state.admin, bucket_id).await?;
    let keys: Vec<Path> = listed.iter().map(|(n, _)| part_key(id, *n)).collect();
    let version = Uuid::new_v4().to_string();
    let stored = backend::put_concat(
        &state.store,
        state.local.as_deref(),
        keys,
        &key_of(&version),
        size_limit(state, &bucket),
        backend::Etag::of(&state.config),
    )
    .await?;
    let row = NewRow {
        bucket: bucket_id,
        name: key,
        metadata: db::object_metadata(stored.size, &stored.etag, &upload.content_type, &upload.cache_control),
        user_metadata: upload.user_metadata.clone(),
        version: &version,
    };
    let written = crate::storage::upload::commit_version(state, ctx, true, &row).await;
    forget(state, id).await;
    written?;
    Ok(xml::ok(format!(
        "<CompleteMultipartUploadResult xmlns=\"{}\"><Location>/{}/{}</Location><Bucket>{}</Bucket><Key>{}</Key><ETag>{}</ETag></CompleteMultipartUploadResult>",
        xml::NS,
        escape(bucket_id),
        escape(key),
        escape(bucket_id),
        escape(key),
        escape(&stored.etag)
    )))
}

/// `DELETE /{bucket}/{key}?uploadId=X`.
pub async fn abort(
    state: &StorageState,
    ctx: &Ctx,
    bucket_id: &str,
    key: &str,
    upload_id: &str,
) -> Result<HttpResponse, S3Error> {
    let (id, _) = own_upload(state, ctx, upload_id, bucket_id, key).await?;
    forget(state, id).await;
    Ok(HttpResponse::NoContent().finish())
}

/// `GET /{bucket}/{key}?uploadId=X`: the parts received.
pub async fn list_parts(
    state: &StorageState,
    ctx: &Ctx,
    bucket_id: &str,
    key: &str,
    upload_id: &str,
) -> Result<HttpResponse, S3Error> {
    let (id, _) = own_upload(state, ctx, upload_id, bucket_id, key).await?;
    let client = db::connection(&state.admin).await?;
    let rows = client
        .cached_query(
            "select part_number, etag, size, storage.js_time(created_at) from storage.s3_multipart_parts \
             where upload_id = $1 order by part_number",
            &[&id],
        )
        .await
        .map_err(|e| StorageError::from_db(&e, "list parts"))?;
    let parts: String = rows
        .iter()
        .map(|r| {
            format!(
                "<Part><PartNumber>{}</PartNumber><LastModified>{}</LastModified><ETag>{}</ETag><Size>{}</Size></Part>",
                r.get::<_, i32>(0),
                r.get::<_, String>(3),
                escape(r.get(1)),
                r.get::<_, i64>(2)
            )
        })
        .collect();
    Ok(xml::ok(format!(
        "<ListPartsResult xmlns=\"{}\"><Bucket>{}</Bucket><Key>{}</Key><UploadId>{id}</UploadId><IsTruncated>false</IsTruncated>{parts}</ListPartsResult>",
        xml::NS,
        escape(bucket_id),
        escape(key)
    )))
}

/// Delete an upload's state and parts.
async fn forget(state: &StorageState, id: Uuid) {
    let parts: Vec<i32> = match db::connection(&state.admin).await {
        Ok(client) => match client
            .cached_query("delete from storage.s3_multipart_uploads where id = $1 returning (select array_agg(part_number) from storage.s3_multipart_parts where upload_id = $1)", &[&id])
            .await
        {
            Ok(rows) => rows.first().and_then(|r| r.get::<_, Option<Vec<i32>>>(0)).unwrap_or_default(),
            Err(err) => {
                tracing::warn!(error = %err, "s3: could not delete an upload's state");
                Vec::new()
            }
        },
        Err(_) => Vec::new(),
    };
    for part in parts {
        let _ = state.store.delete(&part_key(id, part)).await;
    }
}

/// Remove uploads older than a day, and their parts (called by the sweep).
pub async fn expire(state: &StorageState) -> Result<usize, String> {
    let client = db::connection(&state.admin).await.map_err(|e| e.to_string())?;
    let rows = client
        .cached_query("select id from storage.s3_multipart_uploads where created_at < now() - interval '1 day'", &[])
        .await
        .map_err(|e| e.to_string())?;
    drop(client);
    let ids: Vec<Uuid> = rows.iter().map(|r| r.get(0)).collect();
    for id in &ids {
        forget(state, *id).await;
    }
    Ok(ids.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_bodies_list_their_parts_in_order() {
        let body = "<CompleteMultipartUpload><Part><ETag>&quot;aa&quot;</ETag><PartNumber>1</PartNumber></Part>\
                    <Part><PartNumber>2</PartNumber><ETag>\"bb\"</ETag></Part></CompleteMultipartUpload>";
        assert_eq!(listed_parts(body), vec![(1, "\"aa\"".to_string()), (2, "\"bb\"".to_string())]);
        assert!(listed_parts("<CompleteMultipartUpload/>").is_empty());
    }
}
