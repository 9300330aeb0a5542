use super::write::{eszip, ezbr};
use super::*;

fn module(specifier: &str, source: &str) -> Entry {
    Entry::Module { specifier: specifier.into(), kind: ModuleKind::JavaScript, source: source.as_bytes().to_vec() }
}

fn sample() -> Vec<Entry> {
    vec![
        module("file:///app/functions/hello/index.ts", "import './dep.ts';"),
        module("file:///app/functions/hello/dep.ts", "export const x = 1;"),
        Entry::Redirect { specifier: "https://x.test/a".into(), target: "https://x.test/a.js".into() },
        Entry::Module { specifier: "file:///app/empty.json".into(), kind: ModuleKind::Json, source: vec![] },
        Entry::Npm { specifier: "left-pad@1".into() },
    ]
}

#[test]
fn every_v2_version_reads_back_what_was_written() {
    for (version, sha) in [(Version::V2_1, true), (Version::V2_2, false), (Version::V2_2, true), (Version::V2_3, false)]
    {
        let archive = parse(&eszip(version, sha, &sample())).unwrap_or_else(|e| panic!("{version:?}: {e}"));
        assert_eq!(archive.version, version);
        assert_eq!(archive.entries, sample(), "{version:?} sha256={sha}");
        assert!(!archive.unverified);
    }
    let v2: Vec<Entry> = sample().into_iter().filter(|e| !matches!(e, Entry::Npm { .. })).collect();
    assert_eq!(parse(&eszip(Version::V2, true, &v2)).map(|a| a.entries), Ok(v2));
}

#[test]
fn an_npm_entry_is_refused_before_v2_1() {
    let bytes = eszip(Version::V2, true, &[Entry::Npm { specifier: "a@1".into() }]);
    // v2 has no npm section: the npm bytes the writer left out make the entry kind unknown.
    assert!(matches!(parse(&bytes), Err(FormatError::Malformed(m)) if m.contains("entry kind 2")));
}

#[test]
fn an_ezbr_body_is_decompressed_within_its_limit() {
    let raw = eszip(Version::V2_3, false, &sample());
    let packed = ezbr(&raw);
    assert!(looks_like_eszip(&packed) && looks_like_eszip(&raw) && !looks_like_eszip(b"{\"slug\":1}"));
    assert_eq!(decompress(&packed, 1 << 20).map(|c| c.into_owned()), Ok(raw.clone()));
    assert_eq!(decompress(&packed, 10).map(|c| c.len()), Err(FormatError::TooLarge(10)));
    assert_eq!(decompress(&raw, 10).map(|c| c.len()), Err(FormatError::TooLarge(10)));
    assert_eq!(
        decompress(b"EZBR\xff\xff\xff\xff not brotli", 1 << 20).map(|c| c.len()),
        Err(FormatError::BadCompression)
    );
}

#[test]
fn a_wrong_magic_or_a_v1_json_bundle_is_refused() {
    assert_eq!(parse(b"ESZIP_V9........"), Err(FormatError::BadMagic));
    assert_eq!(parse(b"ESZ"), Err(FormatError::BadMagic));
    assert_eq!(parse(b"{\"version\":1,\"modules\":{}}"), Err(FormatError::Version1));
}

#[test]
fn every_truncation_is_an_error_never_a_panic() {
    for (version, sha) in [(Version::V2_1, true), (Version::V2_2, true), (Version::V2_3, false)] {
        let bytes = eszip(version, sha, &sample());
        for len in 0..bytes.len() {
            assert!(parse(&bytes[..len]).is_err(), "{version:?} cut at {len} of {}", bytes.len());
        }
    }
}

#[test]
fn a_flipped_byte_under_sha256_fails_its_checksum() {
    let bytes = eszip(Version::V2_2, true, &sample());
    let at = bytes.windows(6).position(|w| w == b"export").unwrap_or(0);
    let mut bad = bytes.clone();
    bad[at] ^= 1;
    assert!(matches!(parse(&bad), Err(FormatError::BadChecksum(what)) if what.contains("dep.ts")));
    let at = bytes.windows(5).position(|w| w == b"x.tes").unwrap_or(0);
    let mut bad = bytes;
    bad[at] ^= 1;
    assert_eq!(parse(&bad), Err(FormatError::BadChecksum("header".into())));
}

#[test]
fn any_byte_flipped_anywhere_never_panics() {
    let bytes = eszip(Version::V2_3, false, &sample());
    for at in 0..bytes.len() {
        for bit in [0x01, 0x80] {
            let mut bad = bytes.clone();
            bad[at] ^= bit;
            let _ = parse(&bad);
        }
    }
}

#[test]
fn a_source_offset_past_its_section_is_truncated() {
    let mut bytes = eszip(Version::V2_3, false, &[module("file:///a.ts", "x")]);
    // magic, options (len, 2 pairs), header len, then the entry: len, "file:///a.ts", kind, offset.
    let at = 8 + 4 + 4 + 4 + 4 + 12 + 1;
    bytes[at + 3] = 9;
    assert_eq!(parse(&bytes), Err(FormatError::Truncated("sources")));
}

#[test]
fn unknown_options_are_ignored_and_xxhash3_is_read_unverified() {
    // options: checksum 2 (xxHash3), an unknown option 7; 8-byte hashes that are not checked.
    let mut bytes = b"ESZIP2.2".to_vec();
    bytes.extend_from_slice(&[0, 0, 0, 4, 0, 2, 7, 7]);
    bytes.extend_from_slice(&[0; 8]);
    bytes.extend_from_slice(&[0, 0, 0, 0]);
    bytes.extend_from_slice(&[0; 8]);
    bytes.extend_from_slice(&[0, 0, 0, 0]);
    bytes.extend_from_slice(&[0; 8]);
    bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
    let archive = parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert!(archive.unverified && archive.entries.is_empty());
    bytes[12 + 1] = 9;
    assert!(matches!(parse(&bytes), Err(FormatError::Malformed(m)) if m.contains("unknown checksum 9")));
}
