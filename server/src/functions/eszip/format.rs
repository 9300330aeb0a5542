//! The bytes of an eszip: the Supabase CLI's `EZBR` brotli wrapper, then Deno's eszip v2 layout
//! (`ESZIP_V2`, `ESZIP2.1`, `ESZIP2.2`, `ESZIP2.3`, as denoland/eszip `src/v2.rs` writes them)
//! read into a typed [`Archive`]. It checks lengths, offsets and SHA-256 checksums and stops at
//! the first fault with a [`FormatError`]; it never panics on what it is given and does not
//! decide what the entries mean (`layout` does).
//!
//! The layout, all integers big-endian `u32`, each section followed by its checksum (32 bytes of
//! SHA-256 before v2.2; from v2.2 what the options say, by default none):
//!
//! ```text
//! magic (8) | [v2.2+: options len, (option, value) byte pairs, hash]
//!           | header len, header entries, hash | [v2.1+: npm len, npm packages, hash]
//!           | sources len, (source, hash)* | source maps len, (map, hash)*
//! entry:    specifier len, specifier, kind (0 module, 1 redirect, 2 npm [v2.1+]), then
//!           module:   source offset, source len, map offset, map len, module kind (1 byte:
//!                     0 JS, 1 JSON, 2 JSONC, 3 opaque data, 4 Wasm [v2.3])
//!           redirect: target len, target;   npm: package index
//! ```

use std::io::Read;

/// The Supabase CLI's prefix of a brotli-compressed eszip (`pkg/function/bundle.go`).
pub const EZBR_MAGIC: &[u8; 4] = b"EZBR";
const MAGICS: [(&[u8; 8], Version); 4] = [
    (b"ESZIP_V2", Version::V2),
    (b"ESZIP2.1", Version::V2_1),
    (b"ESZIP2.2", Version::V2_2),
    (b"ESZIP2.3", Version::V2_3),
];

/// The eszip versions read (v1, a JSON document of the first Deno deploys, is not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    V2,
    V2_1,
    V2_2,
    V2_3,
}

/// What a module entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleKind {
    JavaScript,
    Json,
    Jsonc,
    OpaqueData,
    Wasm,
}

/// One entry of the header, in the archive's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Module {
        specifier: String,
        kind: ModuleKind,
        source: Vec<u8>,
    },
    Redirect {
        specifier: String,
        target: String,
    },
    /// An `npm:` package requirement resolved by the bundle's npm snapshot.
    Npm {
        specifier: String,
    },
}

/// A parsed eszip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Archive {
    pub version: Version,
    pub entries: Vec<Entry>,
    /// The checksum was of a kind this reader cannot compute (xxHash3): not verified.
    pub unverified: bool,
}

/// Why bytes are not an eszip this server can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("the body is neither an eszip nor an EZBR-compressed eszip")]
    BadMagic,
    #[error("eszip v1 (JSON) bundles are not supported: bundle with a Supabase CLI or Deno of 2022 or later")]
    Version1,
    #[error("the EZBR body is not valid brotli")]
    BadCompression,
    #[error("the bundle is larger than {0} bytes once decompressed")]
    TooLarge(usize),
    #[error("the bundle is truncated (in the {0})")]
    Truncated(&'static str),
    #[error("the checksum of the {0} does not match")]
    BadChecksum(String),
    #[error("the bundle is malformed: {0}")]
    Malformed(String),
}

/// Whether `bytes` start like an eszip, compressed or not.
pub fn looks_like_eszip(bytes: &[u8]) -> bool {
    bytes.starts_with(EZBR_MAGIC) || MAGICS.iter().any(|(magic, _)| bytes.starts_with(&magic[..]))
}

/// The eszip itself: `bytes` without its `EZBR` wrapper, decompressed (at most `limit` bytes).
pub fn decompress(bytes: &[u8], limit: usize) -> Result<std::borrow::Cow<'_, [u8]>, FormatError> {
    let Some(compressed) = bytes.strip_prefix(&EZBR_MAGIC[..]) else {
        if bytes.len() > limit {
            return Err(FormatError::TooLarge(limit));
        }
        return Ok(std::borrow::Cow::Borrowed(bytes));
    };
    let mut out = Vec::new();
    let reader = brotli::Decompressor::new(compressed, 64 * 1024);
    reader.take(limit as u64 + 1).read_to_end(&mut out).map_err(|_| FormatError::BadCompression)?;
    if out.len() > limit {
        return Err(FormatError::TooLarge(limit));
    }
    Ok(std::borrow::Cow::Owned(out))
}

/// The checksum of the sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Checksum {
    None,
    Sha256,
    /// A kind this reader cannot compute (xxHash3, or one from a later eszip): its size only.
    Unknown(usize),
}

impl Checksum {
    fn size(self) -> usize {
        match self {
            Checksum::None => 0,
            Checksum::Sha256 => 32,
            Checksum::Unknown(size) => size,
        }
    }

    fn matches(self, content: &[u8], hash: &[u8]) -> bool {
        match self {
            Checksum::Sha256 => {
                use sha2::Digest;
                sha2::Sha256::digest(content).as_slice() == hash
            }
            Checksum::None | Checksum::Unknown(_) => true,
        }
    }
}

/// A cursor over the bytes that fails instead of reading past the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], FormatError> {
        let end = self.at.checked_add(n).filter(|end| *end <= self.bytes.len()).ok_or(FormatError::Truncated(what))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u32(&mut self, what: &'static str) -> Result<usize, FormatError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    /// A section: its length, its content and the content's checksum.
    fn section(&mut self, checksum: Checksum, what: &'static str) -> Result<&'a [u8], FormatError> {
        let len = self.u32(what)?;
        let content = self.take(len, what)?;
        let hash = self.take(checksum.size(), what)?;
        if !checksum.matches(content, hash) {
            return Err(FormatError::BadChecksum(what.into()));
        }
        Ok(content)
    }

    fn string(&mut self, what: &'static str) -> Result<String, FormatError> {
        let len = self.u32(what)?;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| FormatError::Malformed(format!("a {what} is not UTF-8")))
    }

    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }
}

/// Where a module's source (or source map) lies in its section.
struct Slot {
    offset: usize,
    len: usize,
}

/// Parse an (uncompressed) eszip.
pub fn parse(bytes: &[u8]) -> Result<Archive, FormatError> {
    if bytes.first() == Some(&b'{') {
        return Err(FormatError::Version1);
    }
    let mut reader = Reader { bytes, at: 0 };
    let magic = reader.take(8, "magic").map_err(|_| FormatError::BadMagic)?;
    let version = MAGICS.iter().find(|(m, _)| &m[..] == magic).map(|(_, v)| *v).ok_or(FormatError::BadMagic)?;
    let mut checksum = if version >= Version::V2_2 { Checksum::None } else { Checksum::Sha256 };
    if version >= Version::V2_2 {
        checksum = read_options(&mut reader)?;
    }

    let header = reader.section(checksum, "header")?;
    let (entries, slots) = read_header(header, version)?;
    if version >= Version::V2_1 {
        // The npm resolution snapshot: checked, not used (Deno resolves `npm:` at run time).
        reader.section(checksum, "npm snapshot")?;
    }
    let sources_len = reader.u32("sources")?;
    let sources = reader.take(sources_len, "sources")?;
    let maps_len = reader.u32("source maps")?;
    reader.take(maps_len, "source maps")?;

    let mut out = Vec::with_capacity(entries.len());
    for (entry, slot) in entries.into_iter().zip(slots) {
        out.push(match (entry, slot) {
            (Entry::Module { specifier, kind, .. }, Some(slot)) => {
                let source = source_of(sources, &slot, checksum, &specifier)?;
                Entry::Module { specifier, kind, source }
            }
            (entry, _) => entry,
        });
    }
    Ok(Archive { version, entries: out, unverified: matches!(checksum, Checksum::Unknown(_)) })
}

/// The v2.2 options: the checksum's kind (option 0) and size (option 1); others are ignored,
/// as the eszip crate ignores them.
fn read_options(reader: &mut Reader<'_>) -> Result<Checksum, FormatError> {
    let len = reader.u32("options")?;
    let content = reader.take(len, "options")?;
    if len % 2 != 0 {
        return Err(FormatError::Malformed("the options are not byte pairs".into()));
    }
    let (mut kind, mut size) = (0u8, None);
    for pair in content.chunks_exact(2) {
        match pair[0] {
            0 => kind = pair[1],
            1 => size = Some(pair[1] as usize),
            _ => {}
        }
    }
    let checksum = match (kind, size) {
        (0, None | Some(0)) => Checksum::None,
        (1, None | Some(32)) => Checksum::Sha256,
        (2, None) => Checksum::Unknown(8),
        (0 | 1, Some(_)) => return Err(FormatError::Malformed("the checksum size does not fit its kind".into())),
        (_, Some(size)) => Checksum::Unknown(size),
        (other, None) => return Err(FormatError::Malformed(format!("unknown checksum {other} without a size"))),
    };
    let hash = reader.take(checksum.size(), "options")?;
    if !checksum.matches(content, hash) {
        return Err(FormatError::BadChecksum("options".into()));
    }
    Ok(checksum)
}

#[allow(clippy::type_complexity)]
fn read_header(header: &[u8], version: Version) -> Result<(Vec<Entry>, Vec<Option<Slot>>), FormatError> {
    let mut reader = Reader { bytes: header, at: 0 };
    let (mut entries, mut slots) = (Vec::new(), Vec::new());
    while !reader.done() {
        let specifier = reader.string("header")?;
        match reader.take(1, "header")?[0] {
            0 => {
                let offset = reader.u32("header")?;
                let len = reader.u32("header")?;
                let _map_offset = reader.u32("header")?;
                let _map_len = reader.u32("header")?;
                let kind = match reader.take(1, "header")?[0] {
                    0 => ModuleKind::JavaScript,
                    1 => ModuleKind::Json,
                    2 => ModuleKind::Jsonc,
                    3 => ModuleKind::OpaqueData,
                    4 => ModuleKind::Wasm,
                    n => return Err(FormatError::Malformed(format!("unknown module kind {n} of {specifier}"))),
                };
                let slot = (offset != 0 || len != 0).then_some(Slot { offset, len });
                entries.push(Entry::Module { specifier, kind, source: Vec::new() });
                slots.push(slot);
            }
            1 => {
                let target = reader.string("header")?;
                entries.push(Entry::Redirect { specifier, target });
                slots.push(None);
            }
            2 if version >= Version::V2_1 => {
                reader.u32("header")?;
                entries.push(Entry::Npm { specifier });
                slots.push(None);
            }
            n => return Err(FormatError::Malformed(format!("unknown entry kind {n} of {specifier}"))),
        }
    }
    Ok((entries, slots))
}

fn source_of(sources: &[u8], slot: &Slot, checksum: Checksum, specifier: &str) -> Result<Vec<u8>, FormatError> {
    let end = slot.offset.checked_add(slot.len).filter(|end| *end <= sources.len());
    let hash_end = end.and_then(|end| end.checked_add(checksum.size())).filter(|end| *end <= sources.len());
    let (Some(end), Some(hash_end)) = (end, hash_end) else { return Err(FormatError::Truncated("sources")) };
    let content = &sources[slot.offset..end];
    if !checksum.matches(content, &sources[end..hash_end]) {
        return Err(FormatError::BadChecksum(format!("source of {specifier}")));
    }
    Ok(content.to_vec())
}

/// A writer of the same layout, for tests: the eszip crate's `into_bytes` in short.
#[cfg(test)]
pub mod write {
    use super::*;

    fn hash(sha256: bool, bytes: &[u8]) -> Vec<u8> {
        use sha2::Digest;
        if sha256 {
            sha2::Sha256::digest(bytes).to_vec()
        } else {
            Vec::new()
        }
    }

    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as u32).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }

    /// An eszip of `version` with the `entries` (npm entries get package 0 and an empty snapshot
    /// unless there are some), SHA-256 checksums when `sha256`.
    pub fn eszip(version: Version, sha256: bool, entries: &[Entry]) -> Vec<u8> {
        let magic = MAGICS.iter().find(|(_, v)| *v == version).map(|(m, _)| *m).unwrap_or(b"ESZIP2.3");
        let sha256 = sha256 || version < Version::V2_2;
        let mut out = magic.to_vec();
        if version >= Version::V2_2 {
            let options: &[u8] = if sha256 { &[0, 1, 1, 32] } else { &[0, 0, 1, 0] };
            out.extend_from_slice(&(options.len() as u32).to_be_bytes());
            out.extend_from_slice(options);
            out.extend(hash(sha256, options));
        }
        let (mut header, mut sources, mut npm) = (Vec::new(), Vec::new(), Vec::new());
        for entry in entries {
            match entry {
                Entry::Module { specifier, kind, source } => {
                    string(&mut header, specifier);
                    header.push(0);
                    let offset = if source.is_empty() { 0 } else { sources.len() as u32 };
                    header.extend_from_slice(&offset.to_be_bytes());
                    header.extend_from_slice(&(source.len() as u32).to_be_bytes());
                    header.extend_from_slice(&[0; 8]);
                    header.push(*kind as u8);
                    if !source.is_empty() {
                        sources.extend_from_slice(source);
                        sources.extend(hash(sha256, source));
                    }
                }
                Entry::Redirect { specifier, target } => {
                    string(&mut header, specifier);
                    header.push(1);
                    string(&mut header, target);
                }
                Entry::Npm { specifier } => {
                    string(&mut header, specifier);
                    header.push(2);
                    header.extend_from_slice(&0u32.to_be_bytes());
                    if npm.is_empty() {
                        string(&mut npm, "left-pad@1.3.0");
                        npm.extend_from_slice(&0u32.to_be_bytes());
                    }
                }
            }
        }
        out.extend_from_slice(&(header.len() as u32).to_be_bytes());
        out.extend_from_slice(&header);
        out.extend(hash(sha256, &header));
        if version >= Version::V2_1 {
            out.extend_from_slice(&(npm.len() as u32).to_be_bytes());
            out.extend_from_slice(&npm);
            out.extend(hash(sha256, &npm));
        }
        out.extend_from_slice(&(sources.len() as u32).to_be_bytes());
        out.extend_from_slice(&sources);
        out.extend_from_slice(&0u32.to_be_bytes());
        out
    }

    /// `eszip` wrapped as the Supabase CLI sends it.
    pub fn ezbr(eszip: &[u8]) -> Vec<u8> {
        let mut out = EZBR_MAGIC.to_vec();
        let mut writer = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        std::io::Write::write_all(&mut writer, eszip).unwrap_or_default();
        drop(writer);
        out
    }
}

#[cfg(test)]
mod tests;
