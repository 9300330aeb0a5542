//! Image transformations, as storage-api serves them through imgproxy: `GET
//! /render/image/authenticated|public|sign/{bucket}/{path}` with `width`, `height`, `resize`
//! (`cover`: fill the box and crop the middle, `contain`: fit inside it, `fill`: stretch to it),
//! `quality` (20–100) and `format` (`origin` keeps the source's; `avif` gives AVIF to clients that
//! accept it; otherwise WebP when the client accepts it). Signed URLs made with `transform` point here and carry the transformations in
//! their token. The answer says what was done in `x-transformations`, in imgproxy's words.
//!
//! Decoding, resizing (`image`, Lanczos3) and encoding (JPEG and PNG by `image`, AVIF by `image`'s
//! rav1e-based encoder, lossy WebP by libwebp) run on the blocking pool, never on the async runtime. Sources above 25 MB or 50
//! megapixels are refused; output dimensions are clamped to 1–2500 px. Memory is bounded by
//! `IMAGE_TRANSFORM_MEMORY_MB`: a transformation holds its source and twice its decoded size
//! (width × height × bytes per pixel, read from the image's header before it is decoded, so a
//! small 16-bit PNG of many pixels counts for what it becomes) while it runs, others wait for
//! room, and one that needs more than the whole budget is refused. At most as many sources are
//! fetched and measured at once as the machine has cores. A result is kept in the
//! object store under `render/<version>/<digest of the transformations and format>`, so the
//! same request again reads it instead of decoding the source; `If-None-Match` with the result's
//! `ETag` gets a 304. Kept results of versions no object points at any more are removed by the
//! storage sweep.

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use bytes::Bytes;
use image::{DynamicImage, ImageFormat};
use object_store::path::Path;
use object_store::PutPayload;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::db::{self, Ctx, ObjectRow};
use super::error::StorageError;
use super::key::{split_bucket_key, tail_after};
use super::{token, StorageState};
use crate::db::context::Access;

/// Largest source object transformed.
const MAX_SOURCE_BYTES: u64 = 25 * 1024 * 1024;
/// Largest source resolution decoded.
const MAX_SOURCE_PIXELS: u64 = 50_000_000;
/// Output dimensions, as storage-api clamps them.
const MIN_SIDE: u32 = 1;
const MAX_SIDE: u32 = 2500;
const DEFAULT_QUALITY: u8 = 80;

/// The turns to fetch and measure a source: one per core.
fn fetch_turns() -> &'static tokio::sync::Semaphore {
    static TURNS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    TURNS.get_or_init(|| tokio::sync::Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())))
}

/// The memory budget of transformations, in megabytes (`IMAGE_TRANSFORM_MEMORY_MB`, set once).
fn budget(megabytes: u64) -> &'static tokio::sync::Semaphore {
    static BUDGET: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    BUDGET.get_or_init(|| tokio::sync::Semaphore::new(megabytes.clamp(1, u32::MAX as u64) as usize))
}

/// Megabytes a transformation of `source` needs while it runs: the source, and twice the image
/// decoded (the decoded pixels and the working copies of resizing and converting). Read from
/// the header only; an image with too many pixels, or not an image, is refused here.
fn cost_mb(source: &[u8]) -> Result<u64, StorageError> {
    use image::ImageDecoder;
    let not_image = || StorageError::InvalidRequest("The object is not an image that can be transformed".into());
    let format = image::guess_format(source).map_err(|_| not_image())?;
    let decoder = image::ImageReader::with_format(std::io::Cursor::new(source), format)
        .into_decoder()
        .map_err(|_| not_image())?;
    let (w, h) = decoder.dimensions();
    if w as u64 * h as u64 > MAX_SOURCE_PIXELS {
        return Err(StorageError::InvalidRequest("The image's resolution is too high to transform".into()));
    }
    let decoded = w as u64 * h as u64 * decoder.color_type().bytes_per_pixel() as u64;
    Ok((source.len() as u64 + 2 * decoded).div_ceil(1024 * 1024).max(1))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resize {
    Cover,
    Contain,
    Fill,
}

impl Resize {
    fn parse(text: &str) -> Result<Resize, StorageError> {
        match text {
            "" | "cover" => Ok(Resize::Cover),
            "contain" => Ok(Resize::Contain),
            "fill" => Ok(Resize::Fill),
            other => Err(StorageError::InvalidRequest(format!("Invalid resize: {other}"))),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Resize::Cover => "cover",
            Resize::Contain => "contain",
            Resize::Fill => "fill",
        }
    }

    /// imgproxy's name for it (storage-api's `x-transformations`).
    fn imgproxy(self) -> &'static str {
        match self {
            Resize::Cover => "fill",
            Resize::Contain => "fit",
            Resize::Fill => "force",
        }
    }
}

/// What to do to an image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transform {
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub resize: Resize,
    pub quality: Option<u8>,
    /// `origin`, `webp`, `avif`, or empty (the server picks).
    pub format: String,
}

fn dimension(text: &str, name: &str) -> Result<Option<u32>, StorageError> {
    if text.is_empty() {
        return Ok(None);
    }
    let n: i64 = text.parse().map_err(|_| StorageError::InvalidRequest(format!("Invalid {name}")))?;
    Ok(Some(n.clamp(MIN_SIDE as i64, MAX_SIDE as i64) as u32).filter(|_| n > 0))
}

impl Transform {
    /// From the query of a render URL (or the `transform` of a signing request).
    pub fn parse(get: impl Fn(&str) -> Option<String>) -> Result<Transform, StorageError> {
        let text = |k: &str| get(k).unwrap_or_default();
        let quality = match text("quality") {
            q if q.is_empty() => None,
            q => {
                let n: i64 = q.parse().map_err(|_| StorageError::InvalidRequest("Invalid quality".into()))?;
                Some(n.clamp(20, 100) as u8)
            }
        };
        let format = text("format");
        if !matches!(format.as_str(), "" | "origin" | "webp" | "avif") {
            return Err(StorageError::InvalidRequest(format!("Invalid format: {format}")));
        }
        Ok(Transform {
            width: dimension(&text("width"), "width")?,
            height: dimension(&text("height"), "height")?,
            resize: Resize::parse(&text("resize"))?,
            quality,
            format,
        })
    }

    /// From a JSON `transform` object (`createSignedUrl(path, expiresIn, {transform})`).
    pub fn from_json(value: &Value) -> Result<Transform, StorageError> {
        Transform::parse(|k| match &value[k] {
            Value::Number(n) => Some(n.to_string()),
            Value::String(s) => Some(s.clone()),
            _ => None,
        })
    }

    /// As a signed token keeps it (storage-api's `keepOriginal` form).
    pub fn to_token(&self) -> String {
        self.describe(&format!("resize:{}", self.resize.name()))
    }

    /// Back from a token's `transformations`.
    pub fn from_token(text: &str) -> Result<Transform, StorageError> {
        let pairs: Vec<(String, String)> = text
            .split(',')
            .filter(|p| !p.is_empty())
            .filter_map(|p| p.split_once(':').map(|(k, v)| (k.to_string(), v.to_string())))
            .collect();
        Transform::parse(|k| pairs.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone()))
    }

    /// `x-transformations`, in imgproxy's words as storage-api sends them.
    pub fn header(&self) -> String {
        self.describe(&format!("resizing_type:{}", self.resize.imgproxy()))
    }

    /// `height:…,width:…,<resize>,quality:…,format:…`, with the resize part as given.
    fn describe(&self, resize: &str) -> String {
        let mut parts = Vec::new();
        if let Some(h) = self.height {
            parts.push(format!("height:{h}"));
        }
        if let Some(w) = self.width {
            parts.push(format!("width:{w}"));
        }
        if self.width.is_some() || self.height.is_some() {
            parts.push(resize.to_string());
        }
        if let Some(q) = self.quality {
            parts.push(format!("quality:{q}"));
        }
        if !self.format.is_empty() && self.format != "origin" {
            parts.push(format!("format:{}", self.format));
        }
        parts.join(",")
    }

    /// The output format for a source in `source` format, given the client's `Accept`: AVIF when
    /// asked for and accepted, else WebP when accepted (or asked for), else the source's.
    fn output(&self, source: ImageFormat, accept: &str) -> ImageFormat {
        let webp_ok = accept.contains("image/webp") || accept.contains("image/*") && !accept.is_empty();
        match self.format.as_str() {
            "origin" => source,
            "avif" if accept.contains("image/avif") => ImageFormat::Avif,
            "webp" => ImageFormat::WebP,
            _ if webp_ok => ImageFormat::WebP,
            _ => source,
        }
    }
}

/// Resize `img` as `t` says (no size asked: unchanged).
fn resized(img: DynamicImage, t: &Transform) -> DynamicImage {
    use image::imageops::FilterType::Lanczos3;
    let (w0, h0) = (img.width().max(1), img.height().max(1));
    match (t.width, t.height) {
        (None, None) => img,
        (Some(w), None) => img.resize_exact(w, ((h0 as u64 * w as u64) / w0 as u64).max(1) as u32, Lanczos3),
        (None, Some(h)) => img.resize_exact(((w0 as u64 * h as u64) / h0 as u64).max(1) as u32, h, Lanczos3),
        (Some(w), Some(h)) => match t.resize {
            Resize::Cover => img.resize_to_fill(w, h, Lanczos3),
            Resize::Contain => img.resize(w, h, Lanczos3),
            Resize::Fill => img.resize_exact(w, h, Lanczos3),
        },
    }
}

/// Decode, transform and encode (on a blocking thread). Returns the bytes and their type.
fn render_bytes(source: &[u8], t: &Transform, accept: &str) -> Result<(Vec<u8>, &'static str), StorageError> {
    let not_image = || StorageError::InvalidRequest("The object is not an image that can be transformed".into());
    let format = image::guess_format(source).map_err(|_| not_image())?;
    let reader = image::ImageReader::with_format(std::io::Cursor::new(source), format);
    let (w, h) = reader.into_dimensions().map_err(|_| not_image())?;
    if w as u64 * h as u64 > MAX_SOURCE_PIXELS {
        return Err(StorageError::InvalidRequest("The image's resolution is too high to transform".into()));
    }
    let img = image::load_from_memory_with_format(source, format).map_err(|_| not_image())?;
    let img = resized(img, t);
    let quality = t.quality.unwrap_or(DEFAULT_QUALITY);
    let out_format = t.output(format, accept);
    let mut out = Vec::new();
    let mime = match out_format {
        ImageFormat::WebP => {
            let rgba = img.to_rgba8();
            let encoded = webp::Encoder::from_rgba(rgba.as_raw(), rgba.width(), rgba.height()).encode(quality as f32);
            out.extend_from_slice(&encoded);
            "image/webp"
        }
        ImageFormat::Avif => {
            let rgba = img.to_rgba8();
            // speed 8 of 10: a thumbnail in tens of milliseconds, at most a few percent larger
            use image::ImageEncoder;
            image::codecs::avif::AvifEncoder::new_with_speed_quality(&mut out, 8, quality)
                .write_image(rgba.as_raw(), rgba.width(), rgba.height(), image::ExtendedColorType::Rgba8)
                .map_err(|e| StorageError::internal("encode avif", e))?;
            "image/avif"
        }
        ImageFormat::Jpeg => {
            let rgb = img.to_rgb8();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
                .encode_image(&rgb)
                .map_err(|e| StorageError::internal("encode jpeg", e))?;
            "image/jpeg"
        }
        _ => {
            // PNG for PNG sources and anything else that was decoded (GIF frames, BMP, …)
            img.write_to(&mut std::io::Cursor::new(&mut out), ImageFormat::Png)
                .map_err(|e| StorageError::internal("encode png", e))?;
            "image/png"
        }
    };
    Ok((out, mime))
}

/// Where the result of `t` on `version` for `accept` is kept.
fn cache_key(version: &str, t: &Transform, out: &str) -> Path {
    let digest = hex::encode(Sha256::digest(format!("{}|{out}", t.header()).as_bytes()));
    Path::from(format!("render/{version}/{}", &digest[..32]))
}

/// Answer the transformed `row`.
async fn serve(
    state: &StorageState,
    req: &HttpRequest,
    row: ObjectRow,
    t: Transform,
) -> Result<HttpResponse, StorageError> {
    let version = row.version.clone().ok_or(StorageError::NoSuchKey)?;
    if row.size() > MAX_SOURCE_BYTES {
        return Err(StorageError::InvalidRequest("The image is too large to transform".into()));
    }
    let accept = req.headers().get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let source_mime = row.meta_str("mimetype").unwrap_or("").to_string();
    // the output type depends on the source's format and on Accept: both are in the cache key
    let wants = format!(
        "{}|{}|{}|{}|{}",
        t.format,
        source_mime,
        accept.contains("image/webp"),
        accept.contains("image/*"),
        accept.contains("image/avif")
    );
    let key = cache_key(&version, &t, &wants);
    // a kept result is its type, a newline, then its bytes
    let kept = match state.store.get(&key).await {
        Ok(got) => got.bytes().await.ok().and_then(|all| {
            let at = all.iter().position(|b| *b == b'\n')?;
            let mime = std::str::from_utf8(&all[..at]).ok()?.to_string();
            Some((all.slice(at + 1..), mime))
        }),
        Err(_) => None,
    };
    let (bytes, mime) = match kept {
        Some(kept) => kept,
        None => {
            let turn = fetch_turns().acquire().await.map_err(|e| StorageError::internal("render turn", e))?;
            let source = state.store.get(&super::backend::key_of(&version)).await?.bytes().await?;
            let cost = cost_mb(&source)?;
            let total = state.config.image_transform_memory_mb.max(1);
            if cost > total {
                return Err(StorageError::InvalidRequest(format!(
                    "The image needs {cost} MB to transform, more than IMAGE_TRANSFORM_MEMORY_MB ({total} MB)"
                )));
            }
            let _room = budget(total)
                .acquire_many(cost as u32)
                .await
                .map_err(|e| StorageError::internal("render budget", e))?;
            drop(turn);
            let transform = t.clone();
            let (out, mime) = web::block(move || render_bytes(&source, &transform, &accept))
                .await
                .map_err(|e| StorageError::internal("render", e))??;
            let out = Bytes::from(out);
            let mut blob = Vec::with_capacity(out.len() + 16);
            blob.extend_from_slice(mime.as_bytes());
            blob.push(b'\n');
            blob.extend_from_slice(&out);
            if let Err(err) = state.store.put(&key, PutPayload::from(blob)).await {
                tracing::warn!(error = %err, "storage: could not keep a rendered image");
            }
            (out, mime.to_string())
        }
    };
    let etag = format!("\"{}\"", &hex::encode(Sha256::digest(&bytes))[..32]);
    let if_none_match = req.headers().get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).unwrap_or("");
    if if_none_match.split(',').any(|tag| tag.trim() == etag || tag.trim() == "*") {
        return Ok(HttpResponse::NotModified().insert_header((header::ETAG, etag)).finish());
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, mime))
        .insert_header((header::CACHE_CONTROL, row.meta_str("cacheControl").unwrap_or("no-cache")))
        .insert_header((header::ETAG, etag))
        .insert_header((header::VARY, "Accept"))
        .insert_header(("x-transformations", t.header()))
        .body(bytes))
}

fn query_transform(req: &HttpRequest) -> Result<Transform, StorageError> {
    let pairs: Vec<(String, String)> =
        url::form_urlencoded::parse(req.query_string().as_bytes()).into_owned().collect();
    Transform::parse(|k| pairs.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone()))
}

/// `GET /render/image/authenticated/{bucket}/{path}`: as the caller, through RLS.
pub async fn authenticated(req: HttpRequest, state: web::Data<StorageState>) -> Result<HttpResponse, StorageError> {
    let ctx = Ctx::of(&req)?;
    let t = query_transform(&req)?;
    let (bucket, key) = split_bucket_key(&tail_after(req.path(), "/render/image/authenticated/")?)?;
    let mut client = db::connection(&state.request).await?;
    let tx = db::begin(&mut client, &ctx, Access::ReadOnly).await?;
    let row = db::find_object(&tx, &bucket, &key).await?;
    db::commit(tx).await?;
    drop(client);
    serve(&state, &req, row.ok_or(StorageError::NoSuchKey)?, t).await
}

/// `GET /render/image/public/{bucket}/{path}`: no key, public buckets only.
pub async fn public(req: HttpRequest, state: web::Data<StorageState>) -> Result<HttpResponse, StorageError> {
    let t = query_transform(&req)?;
    let (bucket, key) = split_bucket_key(&tail_after(req.path(), "/render/image/public/")?)?;
    if !db::find_bucket(&state.admin, &bucket).await?.public {
        return Err(StorageError::NoSuchBucket);
    }
    let client = db::connection(&state.admin).await?;
    let row = db::find_object(&client, &bucket, &key).await?;
    drop(client);
    serve(&state, &req, row.ok_or(StorageError::NoSuchKey)?, t).await
}

/// `GET /render/image/sign/{bucket}/{path}?token=`: the token's transformations.
pub async fn signed(req: HttpRequest, state: web::Data<StorageState>) -> Result<HttpResponse, StorageError> {
    let tail = tail_after(req.path(), "/render/image/sign/")?;
    let (bucket, key) = split_bucket_key(&tail)?;
    let claims = token::verify(&state.secret, &token::from_query(req.query_string())?, &tail)?;
    if claims.upsert.is_some() {
        return Err(StorageError::InvalidSignature("Invalid signature".into()));
    }
    let t = Transform::from_token(claims.transformations.as_deref().unwrap_or_default())?;
    let client = db::connection(&state.admin).await?;
    let row = db::find_object(&client, &bucket, &key).await?;
    drop(client);
    serve(&state, &req, row.ok_or(StorageError::NoSuchKey)?, t).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 128]));
        let mut out = Vec::new();
        DynamicImage::ImageRgb8(img).write_to(&mut std::io::Cursor::new(&mut out), ImageFormat::Png).unwrap();
        out
    }

    fn t(query: &[(&str, &str)]) -> Transform {
        Transform::parse(|k| query.iter().find(|(key, _)| *key == k).map(|(_, v)| v.to_string())).unwrap()
    }

    #[test]
    fn transformations_read_clamp_and_speak_imgproxy() {
        let x = t(&[("width", "200"), ("height", "9000"), ("quality", "5")]);
        assert_eq!((x.width, x.height, x.quality), (Some(200), Some(2500), Some(20)));
        assert_eq!(x.header(), "height:2500,width:200,resizing_type:fill,quality:20");
        let signed = t(&[("width", "200"), ("height", "200"), ("quality", "60"), ("resize", "contain")]);
        assert_eq!(Transform::from_token(&signed.to_token()).unwrap(), signed);
        assert!(Transform::parse(|k| (k == "resize").then(|| "stretch".to_string())).is_err());
        assert!(Transform::parse(|k| (k == "format").then(|| "tiff".to_string())).is_err());
    }

    #[test]
    fn cover_contain_and_fill_give_the_boxes_they_promise() {
        let source = png(400, 200);
        let dims = |query: &[(&str, &str)]| {
            let (bytes, mime) = render_bytes(&source, &t(query), "").unwrap();
            assert_eq!(mime, "image/png", "the source's format without Accept: image/webp");
            let img = image::load_from_memory(&bytes).unwrap();
            (img.width(), img.height())
        };
        assert_eq!(dims(&[("width", "100"), ("height", "100")]), (100, 100), "cover crops");
        assert_eq!(dims(&[("width", "100"), ("height", "100"), ("resize", "contain")]), (100, 50), "contain fits");
        assert_eq!(dims(&[("width", "100"), ("height", "100"), ("resize", "fill")]), (100, 100), "fill stretches");
        assert_eq!(dims(&[("width", "100")]), (100, 50), "one side keeps the ratio");
        let (webp, mime) = render_bytes(&source, &t(&[("width", "100")]), "image/avif,image/webp,*/*").unwrap();
        assert_eq!(mime, "image/webp");
        assert_eq!(image::guess_format(&webp).unwrap(), ImageFormat::WebP);
        let (kept, mime) = render_bytes(&source, &t(&[("width", "100"), ("format", "origin")]), "image/webp").unwrap();
        assert_eq!((mime, image::guess_format(&kept).unwrap()), ("image/png", ImageFormat::Png));
        let (avif, mime) =
            render_bytes(&source, &t(&[("width", "64"), ("format", "avif")]), "image/avif,image/webp").unwrap();
        assert_eq!(mime, "image/avif");
        assert_eq!(&avif[4..12], b"ftypavif", "an AVIF file");
        let (_, mime) = render_bytes(&source, &t(&[("width", "64"), ("format", "avif")]), "image/webp").unwrap();
        assert_eq!(mime, "image/webp", "AVIF only for clients that take it");
    }

    #[test]
    fn what_is_not_an_image_is_refused_not_a_failure_of_ours() {
        let err = render_bytes(b"plain text, not an image", &t(&[("width", "10")]), "").unwrap_err();
        assert_eq!(err.status(), 400);
    }
}
