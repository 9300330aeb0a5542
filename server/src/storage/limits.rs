//! Upload limits: the allowed MIME types of a bucket (with `image/*` wildcards) and sizes
//! written as numbers or as `20MB` / `30KB` / `3B`, as Supabase accepts them.
//!
//! Pure functions only; the upload path applies them.

use super::error::StorageError;

/// Whether `mime` (parameters such as `;charset=utf-8` ignored) is allowed by `allowed`.
/// An empty or absent list allows everything.
pub fn mime_allowed(allowed: Option<&[String]>, mime: &str) -> bool {
    let Some(allowed) = allowed.filter(|a| !a.is_empty()) else {
        return true;
    };
    let essence = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    allowed.iter().any(|pattern| {
        let pattern = pattern.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        if pattern == "*/*" || pattern == "*" {
            return true;
        }
        match pattern.strip_suffix("/*") {
            Some(kind) => essence.split_once('/').is_some_and(|(k, _)| k == kind),
            None => pattern == essence,
        }
    })
}

/// Check a MIME type against a bucket's list.
pub fn check_mime(allowed: Option<&[String]>, mime: &str) -> Result<(), StorageError> {
    if mime_allowed(allowed, mime) {
        Ok(())
    } else {
        Err(StorageError::InvalidMimeType(mime.to_string()))
    }
}

/// Parse a size: a JSON number of bytes, or text such as `"20MB"`, `"30KB"`, `"1GB"`, `"3B"`, `"100"`,
/// in decimal units with three significant digits, as storage-api reads them (`20mb` is
/// 20,000,000 bytes, `1.2345KB` is 1,230).
pub fn parse_size(value: &serde_json::Value) -> Result<Option<i64>, StorageError> {
    let invalid = || StorageError::InvalidRequest("Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B".into());
    match value {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::Number(n) => n.as_i64().filter(|n| *n >= 0).map(Some).ok_or_else(invalid),
        serde_json::Value::String(s) => {
            let s = s.trim().to_ascii_uppercase();
            let digits_end = s.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(s.len());
            let (number, unit) = s.split_at(digits_end);
            let number: f64 = number.parse().map_err(|_| invalid())?;
            let factor: f64 = match unit.trim() {
                "" | "B" => 1.0,
                "KB" => 1e3,
                "MB" => 1e6,
                "GB" => 1e9,
                _ => return Err(invalid()),
            };
            Ok(Some((three_significant_digits(number) * factor).round() as i64))
        }
        _ => Err(invalid()),
    }
}

/// `x` rounded to three significant digits (JavaScript's `toPrecision(3)`).
fn three_significant_digits(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(2 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn no_list_allows_everything() {
        assert!(mime_allowed(None, "application/x-anything"));
        assert!(mime_allowed(Some(&[]), "text/html"));
    }

    #[test]
    fn exact_types_match_without_parameters_and_case() {
        let allowed = list(&["image/png", "text/plain"]);
        assert!(mime_allowed(Some(&allowed), "image/png"));
        assert!(mime_allowed(Some(&allowed), "text/plain;charset=UTF-8"));
        assert!(mime_allowed(Some(&allowed), "IMAGE/PNG"));
        assert!(!mime_allowed(Some(&allowed), "image/jpeg"));
    }

    #[test]
    fn wildcards_match_the_whole_type() {
        let allowed = list(&["image/*"]);
        assert!(mime_allowed(Some(&allowed), "image/jpeg"));
        assert!(mime_allowed(Some(&allowed), "image/svg+xml"));
        assert!(!mime_allowed(Some(&allowed), "imagex/png"));
        assert!(!mime_allowed(Some(&allowed), "text/plain"));
        assert!(mime_allowed(Some(&list(&["*/*"])), "text/plain"));
        assert!(
            matches!(check_mime(Some(&allowed), "text/html"), Err(StorageError::InvalidMimeType(m)) if m == "text/html")
        );
    }

    #[test]
    fn sizes_accept_numbers_and_units() {
        assert_eq!(parse_size(&json!(1024)).unwrap(), Some(1024));
        assert_eq!(parse_size(&json!("20MB")).unwrap(), Some(20_000_000));
        assert_eq!(parse_size(&json!("20mb")).unwrap(), Some(20_000_000));
        assert_eq!(parse_size(&json!("30kb")).unwrap(), Some(30_000));
        assert_eq!(parse_size(&json!("1.2345KB")).unwrap(), Some(1_230));
        assert_eq!(parse_size(&json!("2GB")).unwrap(), Some(2_000_000_000));
        assert_eq!(parse_size(&json!("3B")).unwrap(), Some(3));
        assert_eq!(parse_size(&json!("100")).unwrap(), Some(100));
        assert_eq!(parse_size(&json!(null)).unwrap(), None);
        assert!(parse_size(&json!("ten")).is_err());
        assert!(parse_size(&json!(-1)).is_err());
    }
}
