//! The S3 protocol at `/storage/v1/s3` (path-style: `/s3/{bucket}/{key}`), for the AWS SDKs,
//! rclone and other S3 clients, over the same buckets, rows and bytes as the Supabase protocol.
//!
//! Requests are signed with AWS Signature Version 4 (the `Authorization` header). Two kinds of
//! credentials, as Supabase has them: access keys issued by `server keys s3-new` (the request
//! runs as `service_role`), or a session token (`x-amz-security-token`: a user's JWT; the access
//! key id is then any text and the secret the project's anon key), whose role and claims the
//! request runs with, so row-level security decides as for `/object` calls. Payloads are either
//! hashed (`x-amz-content-sha256` with the body's SHA-256, checked while the bytes are stored),
//! `UNSIGNED-PAYLOAD`, or `aws-chunked` with a checksum trailer (`STREAMING-UNSIGNED-PAYLOAD-TRAILER`,
//! what the AWS SDKs send for streams; decoded in `chunked`).
//!
//! Served: ListBuckets, CreateBucket, HeadBucket, DeleteBucket, ListObjectsV2 (and V1),
//! GetObject (ranges, `If-None-Match`), HeadObject, PutObject, CopyObject, DeleteObject,
//! DeleteObjects, and multipart uploads (`multipart`). Presigned URLs (query signatures) and
//! signed `aws-chunked` payloads (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`) answer `NotImplemented`.

mod chunked;
pub mod multipart;
pub mod sigv4;
mod xml;

use std::sync::{Arc, Mutex};

use actix_web::http::{Method, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use futures_util::StreamExt;
use secrecy::ExposeSecret;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::backend::{self, key_of};
use super::db::{self, Ctx, NewRow};
use super::error::StorageError;
use super::key::validate_key;
use super::limits::check_mime;
use super::StorageState;
use crate::db::cached::CachedQueries;
use crate::db::context::{Access, Caller};
use xml::{escape, S3Error};

/// How far a request's `x-amz-date` may be from now.
const MAX_SKEW_SECS: i64 = 15 * 60;
const UNSIGNED: &str = "UNSIGNED-PAYLOAD";
/// The `aws-chunked` body the AWS SDKs send for streams, with a checksum trailer.
const CHUNKED: &str = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";

/// A request body as bytes: `aws-chunked` decoded; with the SHA-256 the client announced, if any.
type Body = std::pin::Pin<Box<dyn futures_util::Stream<Item = Result<bytes::Bytes, String>>>>;

fn body_of(req: &HttpRequest, payload: web::Payload) -> (Body, Option<String>) {
    let announced = header(req, "x-amz-content-sha256").unwrap_or(UNSIGNED);
    if announced == CHUNKED {
        return (Box::pin(chunked::decode(payload)), None);
    }
    let expected = (announced != UNSIGNED).then(|| announced.to_ascii_lowercase());
    (Box::pin(payload.map(|c| c.map_err(|e| e.to_string()))), expected)
}

fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Longest validity of a presigned URL (`X-Amz-Expires`), as S3's: seven days.
const MAX_PRESIGNED_SECS: i64 = 604_800;

/// How a request is signed: the `Authorization` header, or a presigned URL's query string.
struct Signed {
    auth: sigv4::Authorization,
    amz_date: String,
    payload: String,
    /// The query string the signature covers (a presigned URL's without `X-Amz-Signature`).
    query: String,
    security_token: Option<String>,
}

/// The signature's parts from the `Authorization` header.
fn signed_by_header(req: &HttpRequest, value: &str) -> Result<Signed, S3Error> {
    let auth = sigv4::parse_authorization(value).ok_or_else(|| {
        S3Error::new(StatusCode::BAD_REQUEST, "AuthorizationHeaderMalformed", "The authorization header is malformed")
    })?;
    let amz_date = header(req, "x-amz-date").ok_or_else(|| S3Error::access_denied("Missing x-amz-date"))?.to_string();
    let when = parse_amz_date(&amz_date)?;
    if (chrono::Utc::now() - when).num_seconds().abs() > MAX_SKEW_SECS {
        return Err(S3Error::new(
            StatusCode::FORBIDDEN,
            "RequestTimeTooSkewed",
            "The difference between the request time and the server's time is too large",
        ));
    }
    Ok(Signed {
        auth,
        amz_date,
        payload: header(req, "x-amz-content-sha256").unwrap_or(UNSIGNED).to_string(),
        query: req.query_string().to_string(),
        security_token: header(req, "x-amz-security-token").map(str::to_string),
    })
}

/// The signature's parts from a presigned URL (`X-Amz-Algorithm`, `-Credential`, `-Date`,
/// `-Expires`, `-SignedHeaders`, `-Signature`, `-Security-Token`), refused once expired.
fn signed_by_query(req: &HttpRequest) -> Result<Signed, S3Error> {
    let q = query(req);
    let get = |name: &str| param(&q, name);
    let malformed =
        || S3Error::new(StatusCode::BAD_REQUEST, "AuthorizationQueryParametersError", "The presigned URL is malformed");
    if get("X-Amz-Algorithm").as_deref() != Some("AWS4-HMAC-SHA256") {
        return Err(malformed());
    }
    let header_form = format!(
        "AWS4-HMAC-SHA256 Credential={}, SignedHeaders={}, Signature={}",
        get("X-Amz-Credential").ok_or_else(malformed)?,
        get("X-Amz-SignedHeaders").ok_or_else(malformed)?,
        get("X-Amz-Signature").ok_or_else(malformed)?
    );
    let auth = sigv4::parse_authorization(&header_form).ok_or_else(malformed)?;
    let amz_date = get("X-Amz-Date").ok_or_else(malformed)?;
    let when = parse_amz_date(&amz_date)?;
    let expires: i64 = get("X-Amz-Expires")
        .and_then(|e| e.parse().ok())
        .filter(|e| (1..=MAX_PRESIGNED_SECS).contains(e))
        .ok_or_else(|| {
            S3Error::new(
                StatusCode::BAD_REQUEST,
                "AuthorizationQueryParametersError",
                "X-Amz-Expires must be a number of seconds from 1 to 604800",
            )
        })?;
    let now = chrono::Utc::now();
    if (when - now).num_seconds() > MAX_SKEW_SECS {
        return Err(S3Error::access_denied("Request is not valid yet"));
    }
    if now > when + chrono::Duration::seconds(expires) {
        return Err(S3Error::access_denied("Request has expired"));
    }
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(q.iter().filter(|(k, _)| k != "X-Amz-Signature"))
        .finish();
    Ok(Signed {
        auth,
        amz_date,
        payload: UNSIGNED.to_string(),
        query,
        security_token: get("X-Amz-Security-Token").or_else(|| header(req, "x-amz-security-token").map(str::to_string)),
    })
}

fn parse_amz_date(text: &str) -> Result<chrono::DateTime<chrono::Utc>, S3Error> {
    Ok(chrono::NaiveDateTime::parse_from_str(text, "%Y%m%dT%H%M%SZ")
        .map_err(|_| S3Error::access_denied("Invalid x-amz-date"))?
        .and_utc())
}

/// Verify the signature (of the `Authorization` header or of a presigned URL); the caller the
/// request runs as.
async fn authenticate(req: &HttpRequest, state: &StorageState) -> Result<Ctx, S3Error> {
    let signed = match header(req, "authorization") {
        Some(value) => signed_by_header(req, value)?,
        None if req.query_string().contains("X-Amz-Signature") => signed_by_query(req)?,
        None => return Err(S3Error::access_denied("Missing Authorization header")),
    };
    let Signed { auth, amz_date, payload, query: signed_query, security_token } = signed;
    let payload = payload.as_str();
    if !auth.signed_headers.iter().any(|h| h == "host") {
        return Err(S3Error::access_denied("The host header must be signed"));
    }
    if payload.starts_with("STREAMING-") && payload != CHUNKED {
        return Err(S3Error::not_implemented(
            "Signed aws-chunked payloads are not supported: send an unsigned or hashed payload",
        ));
    }
    let (secret, caller) = match security_token.as_deref() {
        Some(token) => {
            let gate = req.app_data::<web::Data<crate::gate::Gate>>().ok_or_else(|| S3Error::internal("no gate"))?;
            let caller = gate
                .authenticate(None, Some(token), false)
                .map_err(|_| S3Error::access_denied("Invalid session token"))?;
            (state.anon_key.expose_secret().to_string(), caller)
        }
        None => {
            let client = db::connection(&state.admin).await.map_err(S3Error::from)?;
            let row = client
                .cached_query_opt(
                    "select secret_access_key from storage.s3_credentials where access_key_id = $1",
                    &[&auth.access_key_id],
                )
                .await
                .map_err(|e| S3Error::from(StorageError::from_db(&e, "s3 credentials")))?
                .ok_or_else(|| {
                    S3Error::new(
                        StatusCode::FORBIDDEN,
                        "InvalidAccessKeyId",
                        "The access key id you provided does not exist",
                    )
                })?;
            (row.get::<_, String>(0), Caller::anonymous("service_role"))
        }
    };
    let headers: Vec<(String, String)> = req
        .headers()
        .iter()
        .filter_map(|(k, v)| v.to_str().ok().map(|v| (k.as_str().to_string(), v.to_string())))
        .collect();
    let path = req.uri().path();
    let sts = sigv4::string_to_sign(req.method().as_str(), path, &signed_query, &headers, &auth, &amz_date, payload);
    if !sigv4::same(&sigv4::signature(&secret, &auth, &sts), &auth.signature) {
        return Err(S3Error::new(
            StatusCode::FORBIDDEN,
            "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided",
        ));
    }
    Ok(Ctx::for_caller(req, caller))
}

/// The bucket and key of `/storage/v1/s3/{bucket}/{key}` (decoded).
fn target(req: &HttpRequest) -> Result<(Option<String>, Option<String>), S3Error> {
    let raw = req.uri().path();
    let rest = raw.split_once("/s3").map(|(_, r)| r).unwrap_or_default().trim_start_matches('/');
    let decoded =
        percent_encoding::percent_decode_str(rest).decode_utf8().map_err(|_| S3Error::invalid("Invalid path"))?;
    let mut parts = decoded.splitn(2, '/');
    let bucket = parts.next().filter(|b| !b.is_empty()).map(str::to_string);
    let key = parts.next().filter(|k| !k.is_empty()).map(str::to_string);
    Ok((bucket, key))
}

fn query(req: &HttpRequest) -> Vec<(String, String)> {
    url::form_urlencoded::parse(req.query_string().as_bytes()).into_owned().collect()
}

fn param(q: &[(String, String)], name: &str) -> Option<String> {
    q.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

/// Every `/storage/v1/s3` request.
pub async fn dispatch(req: HttpRequest, payload: web::Payload, state: web::Data<StorageState>) -> HttpResponse {
    match route(&req, payload, &state).await {
        Ok(res) => res,
        Err(err) => err.response(req.path()),
    }
}

async fn route(req: &HttpRequest, payload: web::Payload, state: &StorageState) -> Result<HttpResponse, S3Error> {
    let ctx = authenticate(req, state).await?;
    let q = query(req);
    let has = |name: &str| q.iter().any(|(k, _)| k == name);
    let method = req.method().clone();
    if has("uploads") || has("uploadId") {
        let (Some(bucket), Some(key)) = target(req)? else {
            return Err(S3Error::not_implemented("Listing multipart uploads is not supported"));
        };
        let upload_id = param(&q, "uploadId").unwrap_or_default();
        return match (method, param(&q, "partNumber")) {
            (Method::POST, _) if has("uploads") => multipart::create(req, state, &ctx, &bucket, &key).await,
            (Method::PUT, Some(part)) => {
                multipart::upload_part(req, payload, state, &ctx, (&bucket, &key), &upload_id, &part).await
            }
            (Method::POST, None) => multipart::complete(payload, state, &ctx, &bucket, &key, &upload_id).await,
            (Method::DELETE, None) => multipart::abort(state, &ctx, &bucket, &key, &upload_id).await,
            (Method::GET, None) => multipart::list_parts(state, &ctx, &bucket, &key, &upload_id).await,
            _ => Err(S3Error::not_implemented("This multipart operation is not supported")),
        };
    }
    match target(req)? {
        (None, _) if method == Method::GET => list_buckets(state, &ctx).await,
        (Some(bucket), None) => match method {
            Method::PUT => create_bucket(state, &ctx, &bucket).await,
            Method::DELETE => delete_bucket(state, &ctx, &bucket).await,
            Method::HEAD => head_bucket(state, &ctx, &bucket).await,
            Method::GET => list_objects(state, &ctx, &bucket, &q).await,
            Method::POST if has("delete") => delete_objects(state, &ctx, &bucket, payload).await,
            _ => Err(S3Error::not_implemented("This bucket operation is not supported")),
        },
        (Some(bucket), Some(key)) => match method {
            Method::GET | Method::HEAD => get_object(req, state, &ctx, &bucket, &key).await,
            Method::PUT if header(req, "x-amz-copy-source").is_some() => {
                copy_object(req, state, &ctx, &bucket, &key).await
            }
            Method::PUT => put_object(req, payload, state, &ctx, &bucket, &key).await,
            Method::DELETE => delete_object(state, &ctx, &bucket, &key).await,
            _ => Err(S3Error::not_implemented("This object operation is not supported")),
        },
        _ => Err(S3Error::not_implemented("This operation is not supported")),
    }
}

async fn list_buckets(state: &StorageState, ctx: &Ctx) -> Result<HttpResponse, S3Error> {
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, ctx, Access::ReadOnly).await?;
    let rows = tx
        .cached_query("select id, storage.js_time(created_at) from storage.buckets order by id", &[])
        .await
        .map_err(|e| StorageError::from_db(&e, "list buckets"))?;
    db::commit(tx).await?;
    let buckets: String = rows
        .iter()
        .map(|r| {
            format!(
                "<Bucket><Name>{}</Name><CreationDate>{}</CreationDate></Bucket>",
                escape(r.get(0)),
                r.get::<_, String>(1)
            )
        })
        .collect();
    Ok(xml::ok(format!(
        "<ListAllMyBucketsResult xmlns=\"{}\"><Owner><ID>supabase</ID><DisplayName>supabase</DisplayName></Owner><Buckets>{buckets}</Buckets></ListAllMyBucketsResult>",
        xml::NS
    )))
}

async fn create_bucket(state: &StorageState, ctx: &Ctx, bucket: &str) -> Result<HttpResponse, S3Error> {
    if bucket.is_empty() || bucket.len() > 100 || bucket.contains(['/', '\\']) {
        return Err(S3Error::new(StatusCode::BAD_REQUEST, "InvalidBucketName", "The specified bucket is not valid"));
    }
    let (owner, owner_id) = ctx.owner();
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, ctx, Access::ReadWrite).await?;
    tx.cached_execute(
        "insert into storage.buckets (id, name, owner, owner_id) values ($1, $1, $2, $3)",
        &[&bucket, &owner, &owner_id],
    )
    .await
    .map_err(|e| match StorageError::from_db(&e, "create bucket") {
        StorageError::Duplicate => StorageError::BucketAlreadyExists,
        other => other,
    })?;
    db::commit(tx).await?;
    Ok(HttpResponse::Ok().insert_header(("Location", format!("/{bucket}"))).finish())
}

async fn bucket_exists(state: &StorageState, ctx: &Ctx, bucket: &str) -> Result<bool, S3Error> {
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, ctx, Access::ReadOnly).await?;
    let found = tx
        .cached_query_opt("select 1 from storage.buckets where id = $1", &[&bucket])
        .await
        .map_err(|e| StorageError::from_db(&e, "head bucket"))?
        .is_some();
    db::commit(tx).await?;
    Ok(found)
}

async fn head_bucket(state: &StorageState, ctx: &Ctx, bucket: &str) -> Result<HttpResponse, S3Error> {
    if bucket_exists(state, ctx, bucket).await? {
        Ok(HttpResponse::Ok().finish())
    } else {
        Err(StorageError::NoSuchBucket.into())
    }
}

async fn delete_bucket(state: &StorageState, ctx: &Ctx, bucket: &str) -> Result<HttpResponse, S3Error> {
    db::find_bucket(&state.admin, bucket).await?;
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, ctx, Access::ReadWrite).await?;
    let any = tx
        .cached_query_opt("select 1 from storage.objects where bucket_id = $1 limit 1", &[&bucket])
        .await
        .map_err(|e| StorageError::from_db(&e, "delete bucket"))?;
    if any.is_some() {
        return Err(StorageError::BucketNotEmpty.into());
    }
    let deleted = tx
        .cached_execute("delete from storage.buckets where id = $1", &[&bucket])
        .await
        .map_err(|e| StorageError::from_db(&e, "delete bucket"))?;
    db::commit(tx).await?;
    if deleted == 0 {
        return Err(S3Error::access_denied("Access Denied"));
    }
    Ok(HttpResponse::NoContent().finish())
}

/// ListObjectsV2 (`list-type=2`) and ListObjects (V1, `marker`).
async fn list_objects(
    state: &StorageState,
    ctx: &Ctx,
    bucket: &str,
    q: &[(String, String)],
) -> Result<HttpResponse, S3Error> {
    db::find_bucket(&state.admin, bucket).await?;
    let v2 = param(q, "list-type").as_deref() == Some("2");
    let prefix = param(q, "prefix").unwrap_or_default();
    let delimiter = param(q, "delimiter").unwrap_or_default();
    if !delimiter.is_empty() && delimiter != "/" {
        return Err(S3Error::invalid("Only the delimiter / is supported"));
    }
    let max_keys: i64 = match param(q, "max-keys") {
        Some(m) => m.parse().map_err(|_| S3Error::invalid("Invalid max-keys"))?,
        None => 1000,
    }
    .clamp(0, 1000);
    let token = param(q, "continuation-token");
    let after = if v2 {
        match &token {
            Some(t) => String::from_utf8(
                base64::engine::general_purpose::STANDARD
                    .decode(t)
                    .map_err(|_| S3Error::invalid("Invalid continuation token"))?,
            )
            .map_err(|_| S3Error::invalid("Invalid continuation token"))?,
            None => param(q, "start-after").unwrap_or_default(),
        }
    } else {
        param(q, "marker").unwrap_or_default()
    };
    let fetch = (max_keys + 1) as i32;
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, ctx, Access::ReadOnly).await?;
    let rows = if delimiter == "/" {
        tx.cached_query(
            "select name, id is null, coalesce((metadata->>'size')::int8, 0), coalesce(metadata->>'eTag', ''), \
             coalesce(storage.js_time(updated_at), '') from storage.list_v2_delimited($1, $2, $3, $4, false)",
            &[&bucket, &prefix, &fetch, &after],
        )
        .await
    } else {
        let pattern = format!("{}%", super::objects::like_escape(&prefix));
        tx.cached_query(
            "select name, false, coalesce((metadata->>'size')::int8, 0), coalesce(metadata->>'eTag', ''), \
             coalesce(storage.js_time(updated_at), '') from storage.objects \
             where bucket_id = $1 and name collate \"C\" like $2 and name collate \"C\" > $4 \
             order by name collate \"C\" limit $3::int",
            &[&bucket, &pattern, &fetch, &after],
        )
        .await
    }
    .map_err(|e| StorageError::from_db(&e, "list objects"))?;
    db::commit(tx).await?;
    let truncated = rows.len() as i64 > max_keys;
    let page = &rows[..rows.len().min(max_keys as usize)];
    let mut contents = String::new();
    let mut prefixes = String::new();
    for r in page {
        let name: String = r.get(0);
        if r.get::<_, bool>(1) {
            prefixes.push_str(&format!("<CommonPrefixes><Prefix>{}</Prefix></CommonPrefixes>", escape(&name)));
        } else {
            contents.push_str(&format!(
                "<Contents><Key>{}</Key><LastModified>{}</LastModified><ETag>{}</ETag><Size>{}</Size><StorageClass>STANDARD</StorageClass></Contents>",
                escape(&name),
                r.get::<_, String>(4),
                escape(r.get(3)),
                r.get::<_, i64>(2)
            ));
        }
    }
    let last = page.last().map(|r| r.get::<_, String>(0)).unwrap_or_default();
    let common = format!(
        "<Name>{}</Name><Prefix>{}</Prefix><MaxKeys>{max_keys}</MaxKeys>{}<IsTruncated>{truncated}</IsTruncated>",
        escape(bucket),
        escape(&prefix),
        if delimiter.is_empty() { String::new() } else { format!("<Delimiter>{}</Delimiter>", escape(&delimiter)) },
    );
    let body = if v2 {
        let next = if truncated {
            format!(
                "<NextContinuationToken>{}</NextContinuationToken>",
                base64::engine::general_purpose::STANDARD.encode(&last)
            )
        } else {
            String::new()
        };
        let token = token.map(|t| format!("<ContinuationToken>{}</ContinuationToken>", escape(&t))).unwrap_or_default();
        format!(
            "<ListBucketResult xmlns=\"{}\">{common}<KeyCount>{}</KeyCount>{token}{next}{contents}{prefixes}</ListBucketResult>",
            xml::NS,
            page.len()
        )
    } else {
        let next = if truncated { format!("<NextMarker>{}</NextMarker>", escape(&last)) } else { String::new() };
        format!(
            "<ListBucketResult xmlns=\"{}\">{common}<Marker>{}</Marker>{next}{contents}{prefixes}</ListBucketResult>",
            xml::NS,
            escape(&after)
        )
    };
    Ok(xml::ok(body))
}

async fn find(state: &StorageState, ctx: &Ctx, bucket: &str, key: &str) -> Result<db::ObjectRow, S3Error> {
    db::find_bucket(&state.admin, bucket).await?;
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, ctx, Access::ReadOnly).await?;
    let row = db::find_object(&tx, bucket, key).await?;
    db::commit(tx).await?;
    row.ok_or_else(|| StorageError::NoSuchKey.into())
}

async fn get_object(
    req: &HttpRequest,
    state: &StorageState,
    ctx: &Ctx,
    bucket: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let row = find(state, ctx, bucket, key).await?;
    let metadata = row.user_metadata.clone();
    let mut res = super::download::serve(state, req, row).await?;
    add_user_metadata(&mut res, metadata.as_ref());
    Ok(res)
}

/// The object's user metadata as `x-amz-meta-*` headers (HeadObject, GetObject): strings as they
/// are, other JSON values as their text; a name or value no header can carry is left out.
fn add_user_metadata(res: &mut HttpResponse, metadata: Option<&Value>) {
    let Some(Value::Object(map)) = metadata else { return };
    for (name, value) in map {
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let name = actix_web::http::header::HeaderName::try_from(format!("x-amz-meta-{}", name.to_ascii_lowercase()));
        let value = actix_web::http::header::HeaderValue::from_str(&text);
        if let (Ok(name), Ok(value)) = (name, value) {
            res.headers_mut().insert(name, value);
        }
    }
}

fn size_limit(state: &StorageState, bucket: &db::Bucket) -> u64 {
    match bucket.file_size_limit {
        Some(limit) if limit > 0 => state.config.file_size_limit.min(limit as u64),
        _ => state.config.file_size_limit,
    }
}

/// `x-amz-meta-*` headers as the object's user metadata.
fn user_metadata(req: &HttpRequest) -> Option<Value> {
    let map: serde_json::Map<String, Value> = req
        .headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().strip_prefix("x-amz-meta-")?.to_string(), json!(v.to_str().ok()?))))
        .collect();
    (!map.is_empty()).then_some(Value::Object(map))
}

/// What a new object (PutObject, CreateMultipartUpload) starts from: its key checked, its bucket,
/// and its `Content-Type` (allowed by the bucket) and `Cache-Control`, with storage's defaults.
async fn new_object(
    req: &HttpRequest,
    state: &StorageState,
    bucket_id: &str,
    key: &str,
) -> Result<(db::Bucket, String, String), S3Error> {
    validate_key(key)?;
    let bucket = db::find_bucket(&state.admin, bucket_id).await?;
    let mimetype = header(req, "content-type").unwrap_or("application/octet-stream").to_string();
    check_mime(bucket.allowed_mime_types.as_deref(), &mimetype)?;
    let cache_control = header(req, "cache-control").unwrap_or("no-cache").to_string();
    Ok((bucket, mimetype, cache_control))
}

async fn put_object(
    req: &HttpRequest,
    payload: web::Payload,
    state: &StorageState,
    ctx: &Ctx,
    bucket_id: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    let (bucket, mimetype, cache_control) = new_object(req, state, bucket_id, key).await?;
    let version = Uuid::new_v4().to_string();
    let stored = store_checked(
        req,
        payload,
        state,
        &key_of(&version),
        size_limit(state, &bucket),
        backend::Etag::of(&state.config),
    )
    .await?;
    let row = NewRow {
        bucket: bucket_id,
        name: key,
        metadata: db::object_metadata(stored.size, &stored.etag, &mimetype, &cache_control),
        user_metadata: user_metadata(req),
        version: &version,
    };
    crate::storage::upload::commit_version(state, ctx, true, &row).await?;
    Ok(HttpResponse::Ok().insert_header(("ETag", stored.etag)).finish())
}

/// Store a request body at `key`; a body whose SHA-256 differs from the one announced is removed
/// again and refused.
async fn store_checked(
    req: &HttpRequest,
    payload: web::Payload,
    state: &StorageState,
    key: &object_store::path::Path,
    limit: u64,
    etag: backend::Etag,
) -> Result<backend::Stored, S3Error> {
    let (body, expected) = body_of(req, payload);
    let hasher = Arc::new(Mutex::new(Sha256::new()));
    let fed = hasher.clone();
    let body = body.map(move |chunk| {
        let chunk = chunk?;
        if let Ok(mut h) = fed.lock() {
            h.update(&chunk);
        }
        Ok::<_, String>(chunk)
    });
    let stored =
        backend::put_stream(state.store.as_ref(), state.local.as_deref(), key, Box::pin(body), limit, etag).await?;
    let actual = hex::encode(hasher.lock().map(|h| h.clone().finalize()).map_err(|_| S3Error::internal("hash"))?);
    if expected.as_ref().is_some_and(|e| *e != actual) {
        let _ = state.store.delete(key).await;
        return Err(S3Error::new(
            StatusCode::BAD_REQUEST,
            "XAmzContentSHA256Mismatch",
            "The provided 'x-amz-content-sha256' header does not match what was computed.",
        ));
    }
    Ok(stored)
}

async fn copy_object(
    req: &HttpRequest,
    state: &StorageState,
    ctx: &Ctx,
    bucket_id: &str,
    key: &str,
) -> Result<HttpResponse, S3Error> {
    validate_key(key)?;
    let source = header(req, "x-amz-copy-source").unwrap_or_default();
    let source = percent_encoding::percent_decode_str(source.split('?').next().unwrap_or_default())
        .decode_utf8()
        .map_err(|_| S3Error::invalid("Invalid x-amz-copy-source"))?;
    let (src_bucket, src_key) =
        source.trim_start_matches('/').split_once('/').ok_or_else(|| S3Error::invalid("Invalid x-amz-copy-source"))?;
    let from = find(state, ctx, src_bucket, src_key).await?;
    db::find_bucket(&state.admin, bucket_id).await?;
    let from_version = from.version.clone().ok_or(StorageError::NoSuchKey)?;
    let version = Uuid::new_v4().to_string();
    state.store.copy(&key_of(&from_version), &key_of(&version)).await.map_err(StorageError::from)?;
    // `x-amz-metadata-directive: REPLACE` takes the request's `x-amz-meta-*`; COPY (the default)
    // keeps the source's.
    let replace = header(req, "x-amz-metadata-directive").is_some_and(|d| d.eq_ignore_ascii_case("REPLACE"));
    let row = NewRow {
        bucket: bucket_id,
        name: key,
        metadata: from.metadata.clone(),
        user_metadata: if replace { user_metadata(req) } else { from.user_metadata.clone() },
        version: &version,
    };
    crate::storage::upload::commit_version(state, ctx, true, &row).await?;
    let etag = from.meta_str("eTag").unwrap_or_default().to_string();
    Ok(xml::ok(format!(
        "<CopyObjectResult xmlns=\"{}\"><ETag>{}</ETag><LastModified>{}</LastModified></CopyObjectResult>",
        xml::NS,
        escape(&etag),
        chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    )))
}

async fn delete_object(state: &StorageState, ctx: &Ctx, bucket: &str, key: &str) -> Result<HttpResponse, S3Error> {
    db::find_bucket(&state.admin, bucket).await?;
    super::objects::delete_rows(state, ctx, bucket, &[key.to_string()]).await?;
    Ok(HttpResponse::NoContent().finish())
}

async fn delete_objects(
    state: &StorageState,
    ctx: &Ctx,
    bucket: &str,
    mut payload: web::Payload,
) -> Result<HttpResponse, S3Error> {
    db::find_bucket(&state.admin, bucket).await?;
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| S3Error::invalid("The request body was interrupted"))?;
        if body.len() + chunk.len() > 2 * 1024 * 1024 {
            return Err(S3Error::new(StatusCode::BAD_REQUEST, "MalformedXML", "The XML you provided was too large"));
        }
        body.extend_from_slice(&chunk);
    }
    let text = String::from_utf8(body).map_err(|_| {
        S3Error::new(StatusCode::BAD_REQUEST, "MalformedXML", "The XML you provided was not well-formed")
    })?;
    let keys = xml::keys(&text);
    if keys.is_empty() || keys.len() > 1000 {
        return Err(S3Error::new(StatusCode::BAD_REQUEST, "MalformedXML", "Delete needs between 1 and 1000 keys"));
    }
    let quiet = text.contains("<Quiet>true</Quiet>");
    super::objects::delete_rows(state, ctx, bucket, &keys).await?;
    let deleted: String = if quiet {
        String::new()
    } else {
        keys.iter().map(|k| format!("<Deleted><Key>{}</Key></Deleted>", escape(k))).collect()
    };
    Ok(xml::ok(format!("<DeleteResult xmlns=\"{}\">{deleted}</DeleteResult>", xml::NS)))
}

/// Issue an S3 access key: its id (20 characters) and secret (40), stored for SigV4.
pub async fn new_credentials(
    db: &impl crate::db::cached::Db,
    description: &str,
) -> Result<(String, String), Box<dyn std::error::Error>> {
    use rand::Rng;
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut rng = rand::thread_rng();
    let id: String = (0..20).map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char).collect();
    let mut secret_bytes = [0u8; 30];
    rng.fill(&mut secret_bytes);
    let secret = base64::engine::general_purpose::STANDARD.encode(secret_bytes);
    db.cached_execute(
        "insert into storage.s3_credentials (access_key_id, secret_access_key, description) values ($1, $2, $3)",
        &[&id, &secret, &description],
    )
    .await?;
    Ok((id, secret))
}

/// The S3 access keys: id, description, creation time (UTC).
pub async fn list_credentials(
    db: &impl crate::db::cached::Db,
) -> Result<Vec<(String, String, String)>, Box<dyn std::error::Error>> {
    let rows = db
        .cached_query(
            "select access_key_id, description, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') \
             from storage.s3_credentials order by created_at",
            &[],
        )
        .await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
}

/// Revoke an S3 access key; whether it existed.
pub async fn revoke_credentials(db: &impl crate::db::cached::Db, id: &str) -> Result<bool, Box<dyn std::error::Error>> {
    Ok(db.cached_execute("delete from storage.s3_credentials where access_key_id = $1", &[&id]).await? > 0)
}
