//! From a parsed eszip to the files of a source deploy. Local modules (`file:///…` keys, or the
//! keys relative to the bundle's root that Supabase's edge runtime writes) and `static:` files
//! are written at their paths under the common folder of them all, so `../_shared/x.ts` still
//! resolves; remote modules (`https://…`) go under `vendor/<host>/<path>`, and an import map
//! (`import_map.json`, made by `import_map`) maps their URLs, and the redirects the bundle
//! recorded, to those copies, merged with the bundle's own import map when it has one. Sources are what the bundle holds
//! (Deno stores them transpiled to JavaScript), written at their original names.
//!
//! It decides paths and nothing else: a path that would leave the folder is an error.

use std::collections::HashSet;

use url::Url;

use super::format::{Archive, Entry, ModuleKind};
use super::import_map::{import_map, user_import_map};
use super::{EszipError, Unpacked};

/// The edge runtime's metadata entry (an rkyv archive holding the import map as JSON).
const METADATA_KEY: &str = "---EDGE-RUNTIME-METADATA---";
/// The folder of the remote modules.
const VENDOR: &str = "vendor";
/// The name of the written import map (another if the bundle has a file of that name).
const IMPORT_MAP: &str = "import_map.json";
const IMPORT_MAP_ELSE: &str = "import_map.eszip.json";

/// What the deploy call said besides the bundle.
#[derive(Debug, Default, Clone, Copy)]
pub struct Hints<'a> {
    /// The CLI's `entrypoint_path`: a `file://` URL of the bundling machine, or a relative path.
    pub entrypoint: Option<&'a str>,
    /// The CLI's `import_map_path`, in the same forms.
    pub import_map: Option<&'a str>,
}

/// A local file of the bundle.
pub(super) struct Local {
    /// Its path segments: absolute, or relative to the bundle's root (`absolute` says which).
    pub(super) segments: Vec<String>,
    pub(super) kind: ModuleKind,
    pub(super) source: Vec<u8>,
    is_static: bool,
}

/// A specifier, sorted.
pub(super) enum Spec {
    Local {
        segments: Vec<String>,
        absolute: bool,
    },
    Remote(Url),
    /// `npm:`, `node:`, `data:`, `jsr:` and the like: left to Deno.
    Other,
}

/// The bundle laid out: the inputs of the import map.
pub(super) struct Tree {
    pub(super) locals: Vec<Local>,
    /// The output path of each local, by index.
    pub(super) paths: Vec<String>,
    /// The absolute folder the output paths are relative to (`None`: relative keys whose
    /// absolute place is unknown).
    pub(super) root: Option<Vec<String>>,
    /// The parts common to every local file (absolute when `root` is known).
    pub(super) common: Vec<String>,
    /// Where the relative keys were found to lie (from the entrypoint hint).
    pub(super) base: Option<Vec<String>>,
    /// Remote module URLs and their output paths.
    pub(super) vendored: Vec<(String, String)>,
}

pub fn lay_out(archive: Archive, hints: &Hints<'_>) -> Result<Unpacked, EszipError> {
    let first_is_json = matches!(archive.entries.first(), Some(Entry::Module { kind: ModuleKind::Json, .. }));
    let (mut locals, mut remotes, mut redirects, mut metadata, mut npm_files_dropped) =
        (Vec::new(), Vec::new(), Vec::new(), None, 0);
    let mut any_absolute = false;
    let mut any_relative = false;
    for entry in archive.entries {
        match entry {
            Entry::Module { specifier, kind, source } => {
                if specifier.starts_with("---") && specifier.ends_with("---") {
                    // The runtime's version marker, metadata and v1 entries (VFS, npmrc scopes).
                    if specifier == METADATA_KEY {
                        metadata = Some(source);
                    }
                    continue;
                }
                if specifier.starts_with("vfs://") {
                    npm_files_dropped += 1;
                    continue;
                }
                let (key, is_static) = match specifier.strip_prefix("static:") {
                    Some(rest) => (rest, true),
                    None => (specifier.as_str(), false),
                };
                match classify(key)? {
                    Spec::Local { segments, absolute } => {
                        any_absolute |= absolute;
                        any_relative |= !absolute;
                        locals.push((Local { segments, kind, source, is_static }, absolute));
                    }
                    Spec::Remote(url) if !is_static => remotes.push((url, kind, source)),
                    Spec::Remote(_) | Spec::Other => {}
                }
            }
            Entry::Redirect { specifier, target } => redirects.push((specifier, target)),
            Entry::Npm { .. } => {}
        }
    }

    // Relative keys are placed under the entrypoint hint's folder when they are mixed with
    // absolute ones (or the import map names absolute paths).
    let hint_segments = hints.entrypoint.and_then(absolute_segments);
    let base = hint_segments.as_ref().and_then(|hint| {
        locals
            .iter()
            .filter(|(_, absolute)| !absolute)
            .find_map(|(l, _)| hint.ends_with(&l.segments).then(|| hint[..hint.len() - l.segments.len()].to_vec()))
    });
    if any_absolute && any_relative && base.is_none() {
        return Err(EszipError::MixedRoots);
    }
    let locals: Vec<Local> = locals
        .into_iter()
        .map(|(mut local, absolute)| {
            if !absolute {
                if let Some(base) = &base {
                    local.segments = base.iter().cloned().chain(local.segments).collect();
                }
            }
            local
        })
        .collect();
    let absolute = any_absolute || base.is_some();

    let common = common_folder(locals.iter().map(|l| l.segments.as_slice()));
    let paths: Vec<String> = locals.iter().map(|l| l.segments[common.len()..].join("/")).collect();
    let root = absolute.then(|| common.clone());

    let entry = match hints.entrypoint {
        Some(hint) => locate(&locals, hint).ok_or_else(|| EszipError::EntrypointMissing(hint.to_string()))?,
        None => locals
            .iter()
            .position(|l| !l.is_static && matches!(l.kind, ModuleKind::JavaScript))
            .ok_or(EszipError::NoEntrypoint)?,
    };

    let mut used: HashSet<String> = paths.iter().cloned().collect();
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut vendored = Vec::new();
    for (url, kind, source) in remotes {
        let path = vendor_path(&url, kind, &mut used);
        vendored.push((url.to_string(), path.clone()));
        files.push((path, source));
    }

    let tree = Tree { locals, paths, root, common, base, vendored };
    let user_map = user_import_map(&tree, hints, first_is_json, metadata.as_deref());
    let map = import_map(&tree, user_map.as_ref(), &redirects);
    let entrypoint_path = tree.paths[entry].clone();
    let mut seen = HashSet::new();
    let mut local_files: Vec<(String, Vec<u8>)> = Vec::new();
    for (local, path) in tree.locals.into_iter().zip(tree.paths) {
        if seen.insert(path.clone()) {
            local_files.push((path, local.source));
        }
    }
    local_files.append(&mut files);
    let mut files = local_files;
    let import_map_path = map.map(|map| {
        let user_path = user_map.as_ref().and_then(|m| m.path.clone());
        let name = match files.iter().any(|(p, _)| p == IMPORT_MAP) && user_path.as_deref() != Some(IMPORT_MAP) {
            true => IMPORT_MAP_ELSE,
            false => IMPORT_MAP,
        };
        files.retain(|(p, _)| p != name);
        files.push((name.to_string(), serde_json::to_vec_pretty(&map).unwrap_or_default()));
        name.to_string()
    });
    Ok(Unpacked { files, entrypoint_path, import_map_path, npm_files_dropped })
}

/// Sort a specifier; a local path with `.`/`..` parts or bad characters is refused.
pub(super) fn classify(specifier: &str) -> Result<Spec, EszipError> {
    let Some(scheme) = scheme_of(specifier) else {
        return Ok(Spec::Local { segments: segments(specifier)?, absolute: false });
    };
    Ok(match scheme.to_ascii_lowercase().as_str() {
        "file" => {
            let url = Url::parse(specifier).map_err(|_| EszipError::PathEscapes(specifier.to_string()))?;
            Spec::Local { segments: segments(url.path())?, absolute: true }
        }
        "http" | "https" => Url::parse(specifier).map(Spec::Remote).unwrap_or(Spec::Other),
        _ => Spec::Other,
    })
}

/// The scheme of a URL-like specifier (two characters at least, so `C:` is a path).
pub(super) fn scheme_of(specifier: &str) -> Option<&str> {
    let (scheme, _) = specifier.split_once(':')?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        && scheme.len() >= 2;
    valid.then_some(scheme)
}

/// The decoded parts of a `/`-separated path, refusing `.`, `..`, `\` and NUL.
fn segments(path: &str) -> Result<Vec<String>, EszipError> {
    let mut out = Vec::new();
    for raw in path.split('/').filter(|s| !s.is_empty()) {
        let part = percent_encoding::percent_decode_str(raw)
            .decode_utf8()
            .map_err(|_| EszipError::PathEscapes(path.to_string()))?;
        if part == "." || part == ".." || part.contains(['/', '\\', '\0']) {
            return Err(EszipError::PathEscapes(path.to_string()));
        }
        out.push(part.into_owned());
    }
    if out.is_empty() {
        return Err(EszipError::PathEscapes(path.to_string()));
    }
    Ok(out)
}

/// The segments of a `file://` URL or an absolute path; `None` for a relative one.
pub(super) fn absolute_segments(hint: &str) -> Option<Vec<String>> {
    match scheme_of(hint) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file") => {
            Url::parse(hint).ok().and_then(|u| segments(u.path()).ok())
        }
        Some(_) => None,
        None if hint.starts_with('/') => segments(hint).ok(),
        None => None,
    }
}

/// The folder common to every file (its parts).
fn common_folder<'a>(mut files: impl Iterator<Item = &'a [String]>) -> Vec<String> {
    let Some(first) = files.next() else { return Vec::new() };
    let mut common: Vec<String> = first[..first.len().saturating_sub(1)].to_vec();
    for file in files {
        let folder = &file[..file.len().saturating_sub(1)];
        let same = common.iter().zip(folder).take_while(|(a, b)| a == b).count();
        common.truncate(same);
    }
    common
}

/// The local file a hint names: the one sharing the longest tail of parts with it (the file's
/// name and folder at least, so `bye/index.ts` is not `hello/index.ts`).
pub(super) fn locate(locals: &[Local], hint: &str) -> Option<usize> {
    let hint: Vec<String> = match absolute_segments(hint) {
        Some(parts) => parts,
        None => hint.split('/').filter(|p| !p.is_empty() && *p != ".").map(str::to_string).collect(),
    };
    let shared = |l: &Local| l.segments.iter().rev().zip(hint.iter().rev()).take_while(|(a, b)| a == b).count();
    locals
        .iter()
        .enumerate()
        .map(|(i, l)| (i, shared(l), l))
        .filter(|(_, n, l)| *n > 0 && (*n >= 2 || *n == hint.len() || *n == l.segments.len()))
        .max_by_key(|(i, n, _)| (*n, usize::MAX - i))
        .map(|(i, _, _)| i)
}

/// `vendor/<host>[_<port>]/<path>`: the name keeps its extension (Deno reads the media type
/// from it); one without a known extension, or with a query, gets one from the module kind.
fn vendor_path(url: &Url, kind: ModuleKind, used: &mut HashSet<String>) -> String {
    let mut parts = vendor_folder(url);
    let mut name = match !url.path().ends_with('/') && parts.len() > 2 {
        true => parts.pop().unwrap_or_default(),
        false => "index".to_string(),
    };
    const KNOWN: [&str; 10] = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".json", ".wasm"];
    if let Some(query) = url.query() {
        name = format!("{name}_{}", &short_hash(query));
    }
    if url.query().is_some() || !KNOWN.iter().any(|ext| name.ends_with(ext)) {
        name.push_str(match kind {
            ModuleKind::Json | ModuleKind::Jsonc => ".json",
            ModuleKind::Wasm => ".wasm",
            ModuleKind::JavaScript | ModuleKind::OpaqueData => ".js",
        });
    }
    parts.push(name);
    let mut path = parts.join("/");
    if !used.insert(path.clone()) {
        parts.pop();
        parts.push(format!("{}_{}", short_hash(url.as_str()), path.rsplit('/').next().unwrap_or("index")));
        path = parts.join("/");
        used.insert(path.clone());
    }
    path
}

/// `vendor`, the host folder and the URL's path parts (unsafe parts replaced by `_`).
pub(super) fn vendor_folder(url: &Url) -> Vec<String> {
    let mut host: String = url.host_str().unwrap_or("host").chars().map(safe_char).collect();
    if let Some(port) = url.port() {
        host.push_str(&format!("_{port}"));
    }
    let mut parts = vec![VENDOR.to_string(), host];
    for raw in url.path().split('/').filter(|s| !s.is_empty()) {
        let part = percent_encoding::percent_decode_str(raw).decode_utf8_lossy().into_owned();
        let part = if part == "." || part == ".." { "_".to_string() } else { part.chars().map(safe_char).collect() };
        parts.push(part);
    }
    parts
}

fn safe_char(c: char) -> char {
    if c == '/' || c == '\\' || c == '\0' || c == ':' {
        '_'
    } else {
        c
    }
}

fn short_hash(text: &str) -> String {
    use sha2::Digest;
    hex::encode(&sha2::Sha256::digest(text.as_bytes())[..4])
}

#[cfg(test)]
mod tests;
