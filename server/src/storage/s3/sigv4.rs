//! AWS Signature Version 4 of S3 requests (the `Authorization` header form, and presigned URLs,
//! whose parts `s3::signed_by_query` reads from the query string): the canonical request, the
//! string to sign and the signing key, as AWS defines them, so that the AWS SDKs,
//! rclone and any S3 client sign requests this server accepts. Only verification lives here.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// What the `Authorization` header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    pub access_key_id: String,
    /// `YYYYMMDD` of the credential scope.
    pub date: String,
    pub region: String,
    pub service: String,
    pub signed_headers: Vec<String>,
    pub signature: String,
}

/// Parse `AWS4-HMAC-SHA256 Credential=…/date/region/s3/aws4_request, SignedHeaders=…, Signature=…`.
pub fn parse_authorization(value: &str) -> Option<Authorization> {
    let rest = value.trim().strip_prefix("AWS4-HMAC-SHA256")?.trim();
    let mut credential = None;
    let mut signed = None;
    let mut signature = None;
    for part in rest.split(',') {
        let (k, v) = part.trim().split_once('=')?;
        match k.trim() {
            "Credential" => credential = Some(v.trim()),
            "SignedHeaders" => signed = Some(v.trim()),
            "Signature" => signature = Some(v.trim()),
            _ => {}
        }
    }
    let mut scope = credential?.split('/');
    let access_key_id = scope.next()?.to_string();
    let date = scope.next()?.to_string();
    let region = scope.next()?.to_string();
    let service = scope.next()?.to_string();
    if scope.next()? != "aws4_request" || scope.next().is_some() {
        return None;
    }
    let signed_headers: Vec<String> = signed?.split(';').map(|h| h.trim().to_ascii_lowercase()).collect();
    let signature = signature?.to_ascii_lowercase();
    if signed_headers.iter().any(String::is_empty) || signature.len() != 64 {
        return None;
    }
    Some(Authorization { access_key_id, date, region, service, signed_headers, signature })
}

/// AWS's URI encoding: unreserved characters kept, every other byte as `%XX` (upper case).
pub fn uri_encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            b'/' if keep_slash => out.push('/'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The canonical query string: every parameter decoded, re-encoded, sorted.
pub fn canonical_query(query: &str) -> String {
    let mut pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (uri_encode(&k, false), uri_encode(&v, false)))
        .collect();
    pairs.sort();
    pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
}

/// The canonical URI: the decoded path, each segment encoded once.
pub fn canonical_uri(raw_path: &str) -> String {
    let decoded = percent_encoding::percent_decode_str(raw_path).decode_utf8_lossy();
    uri_encode(&decoded, true)
}

/// The string to sign of a request.
pub fn string_to_sign(
    method: &str,
    raw_path: &str,
    query: &str,
    headers: &[(String, String)],
    auth: &Authorization,
    amz_date: &str,
    payload_hash: &str,
) -> String {
    let mut canonical_headers = String::new();
    for name in &auth.signed_headers {
        let values: Vec<String> = headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        canonical_headers.push_str(&format!("{name}:{}\n", values.join(",")));
    }
    let canonical_request = format!(
        "{method}\n{}\n{}\n{canonical_headers}\n{}\n{payload_hash}",
        canonical_uri(raw_path),
        canonical_query(query),
        auth.signed_headers.join(";"),
    );
    let scope = format!("{}/{}/{}/aws4_request", auth.date, auth.region, auth.service);
    format!("AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}", hex::encode(Sha256::digest(canonical_request.as_bytes())))
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// The signature of `string_to_sign` with `secret` for the scope of `auth`.
pub fn signature(secret: &str, auth: &Authorization, string_to_sign: &str) -> String {
    let k_date = hmac(format!("AWS4{secret}").as_bytes(), &auth.date);
    let k_region = hmac(&k_date, &auth.region);
    let k_service = hmac(&k_region, &auth.service);
    let k_signing = hmac(&k_service, "aws4_request");
    hex::encode(hmac(&k_signing, string_to_sign))
}

/// Whether two signatures are equal, in constant time.
pub fn same(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AWS's documented example (GET Object with a range, in the S3 SigV4 documentation).
    #[test]
    fn the_aws_documentation_example_signs_as_documented() {
        let auth = parse_authorization(
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,\
             SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,\
             Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
        )
        .unwrap();
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let headers = vec![
            ("host".to_string(), "examplebucket.s3.amazonaws.com".to_string()),
            ("range".to_string(), "bytes=0-9".to_string()),
            ("x-amz-content-sha256".to_string(), empty.to_string()),
            ("x-amz-date".to_string(), "20130524T000000Z".to_string()),
        ];
        let sts = string_to_sign("GET", "/test.txt", "", &headers, &auth, "20130524T000000Z", empty);
        let sig = signature("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", &auth, &sts);
        assert_eq!(sig, auth.signature);
        assert!(same(&sig, &auth.signature));
        assert!(!same(&sig, &"0".repeat(64)));
    }

    #[test]
    fn queries_and_paths_are_canonical() {
        assert_eq!(canonical_query("prefix=a%2Fb&list-type=2&delimiter=%2F"), "delimiter=%2F&list-type=2&prefix=a%2Fb");
        assert_eq!(canonical_query("uploads"), "uploads=");
        assert_eq!(canonical_uri("/s3/b/caf%C3%A9%20x.txt"), "/s3/b/caf%C3%A9%20x.txt");
        assert!(parse_authorization("AWS4-HMAC-SHA256 Credential=a/b/c/s3/other, SignedHeaders=host, Signature=00")
            .is_none());
        assert!(parse_authorization("Bearer x").is_none());
    }
}
