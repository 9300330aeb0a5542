//! The XML of the S3 protocol: answers, escaping, the keys of a DeleteObjects body, and the one
//! error type of this surface with S3's `<Error><Code>…</Code><Message>…</Message></Error>`.

use actix_web::http::StatusCode;
use actix_web::HttpResponse;

use crate::storage::error::StorageError;

/// S3's XML namespace.
pub const NS: &str = "http://s3.amazonaws.com/doc/2006-03-01/";

/// Escape text for XML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

/// Undo XML escaping: the five named entities and numeric ones (`&#34;`, `&#x22;`, as Go's
/// encoder writes them).
pub fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let Some(end) = tail.find(';').filter(|e| *e <= 10) else {
            out.push('&');
            rest = &tail[1..];
            continue;
        };
        let entity = &tail[1..end];
        let decoded = match entity {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "amp" => Some('&'),
            _ => entity
                .strip_prefix("#x")
                .or_else(|| entity.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &tail[end + 1..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A 200 with an XML body.
pub fn ok(body: String) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/xml")
        .body(format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{body}"))
}

/// The `<Key>` values of a DeleteObjects body.
pub fn keys(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find("<Key>") {
        let after = &rest[start + 5..];
        let Some(end) = after.find("</Key>") else { break };
        out.push(unescape(&after[..end]));
        rest = &after[end + 6..];
    }
    out
}

/// Why an S3 request failed: a status, S3's code and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Error {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl S3Error {
    pub fn new(status: StatusCode, code: &'static str, message: &str) -> S3Error {
        S3Error { status, code, message: message.to_string() }
    }

    pub fn access_denied(message: &str) -> S3Error {
        S3Error::new(StatusCode::FORBIDDEN, "AccessDenied", message)
    }

    pub fn not_implemented(message: &str) -> S3Error {
        S3Error::new(StatusCode::NOT_IMPLEMENTED, "NotImplemented", message)
    }

    pub fn invalid(message: &str) -> S3Error {
        S3Error::new(StatusCode::BAD_REQUEST, "InvalidArgument", message)
    }

    pub fn internal(what: &str) -> S3Error {
        tracing::error!(what, "s3: internal failure");
        S3Error::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            "We encountered an internal error. Please try again.",
        )
    }

    /// The response, naming the resource asked for.
    pub fn response(&self, resource: &str) -> HttpResponse {
        HttpResponse::build(self.status).content_type("application/xml").body(format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{}</Code><Message>{}</Message><Resource>{}</Resource></Error>",
            self.code,
            escape(&self.message),
            escape(resource)
        ))
    }
}

impl From<StorageError> for S3Error {
    fn from(err: StorageError) -> S3Error {
        let message = err.to_string();
        let (status, code) = match &err {
            StorageError::NoSuchKey => (StatusCode::NOT_FOUND, "NoSuchKey"),
            StorageError::NoSuchBucket => (StatusCode::NOT_FOUND, "NoSuchBucket"),
            StorageError::BucketAlreadyExists | StorageError::Duplicate => {
                (StatusCode::CONFLICT, "BucketAlreadyExists")
            }
            StorageError::BucketNotEmpty => (StatusCode::CONFLICT, "BucketNotEmpty"),
            StorageError::EntityTooLarge => (StatusCode::BAD_REQUEST, "EntityTooLarge"),
            StorageError::InvalidMimeType(_) => (StatusCode::BAD_REQUEST, "InvalidArgument"),
            StorageError::InvalidKey(_) => (StatusCode::BAD_REQUEST, "InvalidArgument"),
            StorageError::AccessDenied => (StatusCode::FORBIDDEN, "AccessDenied"),
            StorageError::InvalidRange => (StatusCode::RANGE_NOT_SATISFIABLE, "InvalidRange"),
            StorageError::DatabaseUnavailable | StorageError::DatabaseTimeout => {
                (StatusCode::SERVICE_UNAVAILABLE, "ServiceUnavailable")
            }
            StorageError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "InternalError"),
            _ => (StatusCode::BAD_REQUEST, "InvalidRequest"),
        };
        S3Error { status, code, message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_bodies_give_their_keys_unescaped() {
        let body = "<Delete><Object><Key>a/b.txt</Key></Object><Object><Key>x &amp; y&lt;1&gt;</Key></Object><Quiet>false</Quiet></Delete>";
        assert_eq!(keys(body), vec!["a/b.txt".to_string(), "x & y<1>".to_string()]);
        assert!(keys("<Delete><Object><Key>broken").is_empty());
        assert_eq!(escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
        assert_eq!(unescape("&#34;abc&#34; &#x22;d&#x22; &amp;lt; & x"), "\"abc\" \"d\" &lt; & x");
    }
}
