//! The files of an outbox mail (V90's `outbox.messages.attachments`), made just before each
//! attempt: a description naming an Edge Function is turned into that function's answer,
//! fetched over loopback through this server's own `/functions/v1` with the service role key
//! (the same [`Target`] as the webhooks: no import of the functions surface); a description
//! holding base64 bytes is decoded.
//!
//! Any failure to make a file fails the attempt (retried with the outbox's backoff, the cause
//! on the row); only a description that can never work (malformed, bad base64) fails it for
//! good. The server knows no function by name: which mail carries which file is the
//! application's SQL. Answers' bodies are never logged.

use std::time::Duration;

use base64::Engine;
use futures_util::StreamExt;
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::Value;

use super::http::Target;
use super::Failure;
use crate::auth::mail::Attachment;

/// How long a function may take to make its file (a first call may wait for Deno's start and its
/// npm imports).
const FUNCTION_TIMEOUT: Duration = Duration::from_secs(120);
/// The most bytes the files of one mail may hold together (what common mail servers accept).
pub(super) const MAX_TOTAL_BYTES: usize = 25 * 1024 * 1024;
const OCTET_STREAM: &str = "application/octet-stream";

/// One element of `outbox.messages.attachments`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(super) enum Described {
    /// The answer of the function `function` to a POST of `body` (JSON, `{}` when absent).
    Function {
        function: String,
        #[serde(default)]
        body: Option<Value>,
        #[serde(default)]
        filename: Option<String>,
    },
    /// Bytes kept in the row.
    Stored {
        filename: String,
        #[serde(default)]
        content_type: Option<String>,
        content_base64: String,
    },
}

/// The descriptions of a row (`[]` for none).
pub(super) fn parse(value: &Value) -> Result<Vec<Described>, Failure> {
    serde_json::from_value(value.clone()).map_err(|e| Failure {
        permanent: true,
        why: format!("attachments: not a list of attachment descriptions: {e}"),
    })
}

/// Make every file of `described`, in order.
pub(super) async fn make(target: &Target, described: &[Described]) -> Result<Vec<Attachment>, Failure> {
    let mut files = Vec::with_capacity(described.len());
    let mut total = 0usize;
    for (index, item) in described.iter().enumerate() {
        let n = index + 1;
        let file = match item {
            Described::Function { function, body, filename } => {
                from_function(target, function, body.as_ref(), filename.as_deref(), n, MAX_TOTAL_BYTES - total).await?
            }
            Described::Stored { filename, content_type, content_base64 } => {
                stored(filename, content_type.as_deref(), content_base64, n)?
            }
        };
        total += file.content.len();
        if total > MAX_TOTAL_BYTES {
            return Err(Failure {
                permanent: matches!(item, Described::Stored { .. }),
                why: format!("attachments: more than {MAX_TOTAL_BYTES} bytes together"),
            });
        }
        files.push(file);
    }
    Ok(files)
}

fn stored(filename: &str, content_type: Option<&str>, base64: &str, n: usize) -> Result<Attachment, Failure> {
    let content = base64::engine::general_purpose::STANDARD
        .decode(base64.trim())
        .map_err(|e| Failure { permanent: true, why: format!("attachment {n}: content_base64: {e}") })?;
    Ok(Attachment {
        filename: clean_filename(filename).unwrap_or_else(|| format!("attachment-{n}")),
        content_type: usable_content_type(content_type),
        content,
    })
}

async fn from_function(
    target: &Target,
    name: &str,
    body: Option<&Value>,
    filename: Option<&str>,
    n: usize,
    room: usize,
) -> Result<Attachment, Failure> {
    let failed = |why: String| Failure { permanent: false, why: format!("attachment {n} (function {name}): {why}") };
    if !valid_function_name(name) {
        return Err(Failure { permanent: true, why: format!("attachment {n}: {name:?} is not a function name") });
    }
    let url = target.resolve(&format!("/functions/v1/{name}")).map_err(failed)?;
    let key = target.service_key.expose_secret();
    let response = target
        .client
        .post(url)
        .bearer_auth(key)
        .header("apikey", key)
        .json(body.unwrap_or(&Value::Object(Default::default())))
        .timeout(FUNCTION_TIMEOUT)
        .send()
        .await
        .map_err(|e| failed(if e.is_timeout() { "timed out".into() } else { e.without_url().to_string() }))?;
    let status = response.status();
    if !status.is_success() {
        return Err(failed(format!("answered {status}")));
    }
    let header =
        |h: reqwest::header::HeaderName| response.headers().get(h).and_then(|v| v.to_str().ok()).map(str::to_string);
    let content_type = usable_content_type(header(reqwest::header::CONTENT_TYPE).as_deref());
    let disposed = header(reqwest::header::CONTENT_DISPOSITION).as_deref().and_then(disposition_filename);
    let mut content = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| failed(format!("answer cut: {}", e.without_url())))?;
        if content.len() + chunk.len() > room {
            return Err(failed(format!("answer over {MAX_TOTAL_BYTES} bytes")));
        }
        content.extend_from_slice(&chunk);
    }
    let filename = filename.and_then(clean_filename).or(disposed).unwrap_or_else(|| format!("attachment-{n}"));
    Ok(Attachment { filename, content_type, content })
}

/// A name `/functions/v1/<name>` can serve (letters, digits, `-`, `_`; not `_shared`).
fn valid_function_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with(['_', '-'])
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The content type as given when it is one, else `application/octet-stream`.
fn usable_content_type(given: Option<&str>) -> String {
    given
        .map(str::trim)
        .filter(|t| lettre::message::header::ContentType::parse(t).is_ok())
        .map_or_else(|| OCTET_STREAM.to_string(), str::to_string)
}

/// The file name of a `Content-Disposition` header (`filename*=UTF-8''…` first, then `filename=`).
fn disposition_filename(header: &str) -> Option<String> {
    let params = header.split(';').skip(1).map(str::trim);
    let mut plain = None;
    for param in params {
        let Some((key, value)) = param.split_once('=') else { continue };
        match key.trim().to_ascii_lowercase().as_str() {
            "filename*" => {
                let value = value.trim();
                let encoded = value.strip_prefix("UTF-8''").or_else(|| value.strip_prefix("utf-8''"))?;
                let decoded = percent_encoding::percent_decode_str(encoded).decode_utf8().ok()?;
                return clean_filename(&decoded);
            }
            "filename" => plain = clean_filename(value.trim().trim_matches('"')),
            _ => {}
        }
    }
    plain
}

/// `name` without folders, quotes or control characters; `None` when nothing is left.
fn clean_filename(name: &str) -> Option<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = base.chars().filter(|c| !c.is_control() && *c != '"').collect();
    let cleaned = cleaned.trim();
    (!cleaned.is_empty() && cleaned != "." && cleaned != "..").then(|| cleaned.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn descriptions_of_both_shapes_are_read() {
        let parsed = parse(&json!([
            {"function": "booking-receipt", "body": {"id": "x", "kind": "vehicle"}},
            {"filename": "a.txt", "content_type": "text/plain", "content_base64": "aGk="}
        ]))
        .expect("parsed");
        assert_eq!(
            parsed,
            vec![
                Described::Function {
                    function: "booking-receipt".into(),
                    body: Some(json!({"id": "x", "kind": "vehicle"})),
                    filename: None
                },
                Described::Stored {
                    filename: "a.txt".into(),
                    content_type: Some("text/plain".into()),
                    content_base64: "aGk=".into()
                },
            ]
        );
        assert!(parse(&json!([])).expect("empty").is_empty());
    }

    #[test]
    fn a_malformed_description_fails_for_good() {
        for bad in [json!({"function": "x"}), json!([{"nothing": 1}]), json!([{"filename": "a"}])] {
            let failure = parse(&bad).expect_err("refused");
            assert!(failure.permanent, "{bad}");
        }
    }

    #[test]
    fn stored_bytes_are_decoded_and_bad_base64_fails_for_good() {
        let file = stored("notes/../a.txt", None, "aGVsbG8=", 1).expect("decoded");
        assert_eq!(
            file,
            Attachment { filename: "a.txt".into(), content_type: OCTET_STREAM.into(), content: b"hello".to_vec() }
        );
        let failure = stored("a.txt", Some("text/plain"), "not base64!", 1).expect_err("refused");
        assert!(failure.permanent);
    }

    #[test]
    fn the_file_name_comes_from_content_disposition() {
        assert_eq!(
            disposition_filename("attachment; filename=\"recu-3F2A9C1B.pdf\""),
            Some("recu-3F2A9C1B.pdf".into())
        );
        assert_eq!(disposition_filename("attachment; filename=plain.pdf"), Some("plain.pdf".into()));
        assert_eq!(
            disposition_filename("attachment; filename=\"x.pdf\"; filename*=UTF-8''re%C3%A7u.pdf"),
            Some("reçu.pdf".into())
        );
        assert_eq!(disposition_filename("attachment; filename=\"../../etc/passwd\""), Some("passwd".into()));
        assert_eq!(disposition_filename("inline"), None);
        assert_eq!(disposition_filename("attachment; filename=\"\""), None);
    }

    #[test]
    fn a_content_type_that_is_not_one_becomes_octet_stream() {
        assert_eq!(usable_content_type(Some("application/pdf")), "application/pdf");
        assert_eq!(usable_content_type(Some("text/plain; charset=utf-8")), "text/plain; charset=utf-8");
        assert_eq!(usable_content_type(Some("nonsense")), OCTET_STREAM);
        assert_eq!(usable_content_type(None), OCTET_STREAM);
    }

    #[test]
    fn function_names_are_those_the_functions_path_serves() {
        assert!(valid_function_name("booking-receipt"));
        assert!(valid_function_name("a_b2"));
        for bad in ["", "_shared", "../x", "a/b", "a b", "-x"] {
            assert!(!valid_function_name(bad), "{bad}");
        }
    }
}
