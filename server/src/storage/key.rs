//! Object keys and bucket names: decoding them from the URL and deciding whether they are valid.
//!
//! Unlike Supabase Storage, keys may hold any UTF-8 text; they may not hold `..` or `.` segments,
//! empty segments (`a//b`, a leading or trailing `/`) or control characters. This module only
//! parses and validates: it never touches the database or the object store.

use percent_encoding::percent_decode_str;

use super::error::StorageError;

/// Longest key accepted, in bytes (S3's limit).
const MAX_KEY_BYTES: usize = 1024;

/// Check an object key.
pub fn validate_key(key: &str) -> Result<(), StorageError> {
    let invalid = || StorageError::InvalidKey(key.to_string());
    if key.is_empty() || key.len() > MAX_KEY_BYTES {
        return Err(invalid());
    }
    if key.chars().any(char::is_control) {
        return Err(invalid());
    }
    if key.split('/').any(|segment| segment.is_empty() || segment == ".." || segment == ".") {
        return Err(invalid());
    }
    Ok(())
}

/// Check a bucket id or name (Supabase's allowed characters, no `/`).
pub fn validate_bucket_name(name: &str) -> Result<(), StorageError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "_!-.*'() &$@=;:+,?".contains(c);
    if name.is_empty() || name.len() > 100 || !name.chars().all(allowed) || name == "." || name == ".." {
        return Err(StorageError::InvalidBucketName);
    }
    Ok(())
}

/// Percent-decode a raw URL path tail as UTF-8.
pub fn decode(raw: &str) -> Result<String, StorageError> {
    percent_decode_str(raw).decode_utf8().map(|s| s.into_owned()).map_err(|_| StorageError::InvalidKey(raw.to_string()))
}

/// Split `bucket/key...` (already decoded) into a validated bucket and key.
pub fn split_bucket_key(tail: &str) -> Result<(String, String), StorageError> {
    let (bucket, key) = tail.split_once('/').ok_or_else(|| StorageError::InvalidKey(tail.to_string()))?;
    if bucket.is_empty() {
        return Err(StorageError::NoSuchBucket);
    }
    validate_key(key)?;
    Ok((bucket.to_string(), key.to_string()))
}

/// Where the storage routes are mounted: the API itself, and the dashboard's copy of its gated
/// routes (`studio::storage`, for operators acting as the service role).
pub const MOUNTS: [&str; 2] = ["/storage/v1", "/studio/api/storage"];

/// The mount `path` is under (`/storage/v1` when none).
pub fn mount_of(path: &str) -> &'static str {
    MOUNTS.iter().find(|m| path.starts_with(**m) && path[m.len()..].starts_with('/')).copied().unwrap_or(MOUNTS[0])
}

/// The decoded part of the request path after `<mount>{prefix}`.
pub fn tail_after(path: &str, prefix: &str) -> Result<String, StorageError> {
    let full = format!("{}{prefix}", mount_of(path));
    let raw = path.strip_prefix(&full).ok_or_else(|| StorageError::InvalidKey(path.to_string()))?;
    decode(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_and_utf8_keys_are_accepted() {
        for key in ["a.png", "folder/sub/file.txt", "été/photo 1.jpg", "数据/文件", "a b/c+d(1).png"] {
            assert!(validate_key(key).is_ok(), "{key}");
        }
    }

    #[test]
    fn dot_segments_empty_segments_and_control_characters_are_refused() {
        for key in ["", "../x", "a/../b", "a/./b", "a//b", "/a", "a/", "a\u{0}b", "a\nb", "a\u{7f}"] {
            assert!(matches!(validate_key(key), Err(StorageError::InvalidKey(_))), "{key:?}");
        }
        assert!(validate_key(&"x".repeat(1025)).is_err());
        assert!(validate_key("a..b/c..").is_ok(), "dots inside a segment are fine");
    }

    #[test]
    fn bucket_names_follow_supabase() {
        assert!(validate_bucket_name("avatars").is_ok());
        assert!(validate_bucket_name("my-bucket_1.x").is_ok());
        for name in ["", "a/b", "é", "..", &"b".repeat(101)] {
            assert!(validate_bucket_name(name).is_err(), "{name}");
        }
    }

    #[test]
    fn paths_are_percent_decoded_then_split() {
        let tail = tail_after("/storage/v1/object/public/b/%C3%A9t%C3%A9/a%20b.png", "/object/public/").unwrap();
        assert_eq!(tail_after("/studio/api/storage/object/sign/b/a%20b.png", "/object/sign/").unwrap(), "b/a b.png");
        assert!(tail_after("/elsewhere/object/sign/b/a.png", "/object/sign/").is_err());
        assert_eq!(split_bucket_key(&tail).unwrap(), ("b".into(), "été/a b.png".into()));
        assert!(decode("%FF").is_err());
        assert!(split_bucket_key("bucketonly").is_err());
        assert!(split_bucket_key("b/a%2F..%2Fx").is_ok(), "not decoded twice");
        assert!(split_bucket_key(&decode("b/a%2F..%2Fx").unwrap()).is_err());
    }
}
