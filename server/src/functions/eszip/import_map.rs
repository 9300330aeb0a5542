//! The import map of an unpacked bundle: the bundle's own (the JSON module `import_map_path`
//! names, the one Deno's eszip crate puts first, or the edge runtime's metadata `import_map`),
//! its addresses moved to the written files, then every vendored URL and remote redirect
//! (`jsr:` ones included) mapped to its copy. It only computes JSON; `layout` writes it.

use serde_json::{Map, Value};
use url::Url;

use super::format::ModuleKind;
use super::layout::{absolute_segments, classify, locate, scheme_of, vendor_folder, Hints, Spec, Tree};

impl Tree {
    /// The output parts of a key of the bundle (`None` if it lies outside the written files).
    fn output_parts(&self, segments: Vec<String>, absolute: bool) -> Option<Vec<String>> {
        let full: Vec<String> = match (absolute, &self.base) {
            (false, Some(base)) => base.iter().cloned().chain(segments).collect(),
            _ => segments,
        };
        if (absolute || self.base.is_some()) != self.root.is_some() {
            return None;
        }
        full.strip_prefix(self.common.as_slice()).map(<[String]>::to_vec)
    }
}

/// The bundle's own import map: its JSON, its output path (if written as a file) and the
/// folder its relative addresses start from.
pub(super) struct UserMap {
    json: Value,
    pub(super) path: Option<String>,
    folder: Vec<String>,
}

pub(super) fn user_import_map(
    tree: &Tree,
    hints: &Hints<'_>,
    first_is_json: bool,
    metadata: Option<&[u8]>,
) -> Option<UserMap> {
    let as_map = |i: usize| {
        let l = &tree.locals[i];
        let json: Value = serde_json::from_slice(&l.source).ok()?;
        let is_map =
            json.get("imports").is_some_and(Value::is_object) || json.get("scopes").is_some_and(Value::is_object);
        let folder = tree.paths[i].split('/').map(str::to_string).collect::<Vec<_>>();
        is_map.then(|| UserMap { json, path: Some(tree.paths[i].clone()), folder: folder[..folder.len() - 1].to_vec() })
    };
    let json_local = |i: &usize| matches!(tree.locals[*i].kind, ModuleKind::Json | ModuleKind::Jsonc);
    if let Some(found) = hints.import_map.and_then(|h| locate(&tree.locals, h)).filter(json_local).and_then(as_map) {
        return Some(found);
    }
    // The eszip crate puts the import map it was built with first.
    if first_is_json && !tree.locals.is_empty() {
        if let Some(found) = as_map(0) {
            return Some(found);
        }
    }
    // The edge runtime keeps it in its metadata, as `{"import_map":{"specifier","json"},…}`.
    let metadata = metadata?;
    let at = metadata.windows(15).position(|w| w == br#"{"import_map":{"#)?;
    let resolver: Value = serde_json::Deserializer::from_slice(&metadata[at..]).into_iter().next()?.ok()?;
    let map = resolver.get("import_map")?;
    let json: Value = serde_json::from_str(map.get("json")?.as_str()?).ok()?;
    let specifier = map.get("specifier").and_then(Value::as_str).unwrap_or("deno.json");
    let folder = match classify(specifier).ok()? {
        Spec::Local { segments, absolute } => {
            tree.output_parts(segments, absolute).map(|parts| parts[..parts.len().saturating_sub(1)].to_vec())
        }
        _ => None,
    };
    Some(UserMap { json, path: None, folder: folder.unwrap_or_default() })
}

/// The import map of the deploy: the bundle's own, its addresses moved to the files written,
/// then every vendored URL and remote redirect to its copy. `None` when there is nothing to map.
pub(super) fn import_map(tree: &Tree, user: Option<&UserMap>, redirects: &[(String, String)]) -> Option<Value> {
    let mut imports = Map::new();
    let mut scopes = Map::new();
    if let Some(user) = user {
        if let Some(Value::Object(entries)) = user.json.get("imports") {
            for (key, value) in entries {
                let value =
                    value.as_str().map(|v| Value::String(rewrite(v, tree, &user.folder))).unwrap_or(value.clone());
                imports.insert(key.clone(), value);
            }
        }
        if let Some(Value::Object(entries)) = user.json.get("scopes") {
            for (scope, inner) in entries {
                let Value::Object(inner) = inner else { continue };
                let inner: Map<String, Value> = inner
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            v.as_str().map(|v| Value::String(rewrite(v, tree, &user.folder))).unwrap_or(v.clone()),
                        )
                    })
                    .collect();
                scopes.insert(rewrite(scope, tree, &user.folder), Value::Object(inner));
            }
        }
    }
    for (url, path) in &tree.vendored {
        imports.entry(url.clone()).or_insert_with(|| Value::String(format!("./{path}")));
    }
    for (from, _) in redirects {
        if matches!(classify(from), Ok(Spec::Local { .. })) {
            continue;
        }
        let mut target = from.as_str();
        for _ in 0..16 {
            match redirects.iter().find(|(f, _)| f == target) {
                Some((_, next)) => target = next.as_str(),
                None => break,
            }
        }
        if let Some((_, path)) = tree.vendored.iter().find(|(url, _)| url == target) {
            imports.entry(from.clone()).or_insert_with(|| Value::String(format!("./{path}")));
        }
    }
    if imports.is_empty() && scopes.is_empty() {
        return None;
    }
    let mut map = Map::new();
    map.insert("imports".into(), Value::Object(imports));
    if !scopes.is_empty() {
        map.insert("scopes".into(), Value::Object(scopes));
    }
    Some(Value::Object(map))
}

/// An address of the bundle's import map, moved to the written files (the map is written at
/// their root): vendored URLs and URL prefixes to `./vendor/…`, `file://` URLs and relative
/// addresses to paths under the root; anything else (`npm:`, `jsr:`, unknown URLs) as it was.
fn rewrite(value: &str, tree: &Tree, folder: &[String]) -> String {
    let trailing = if value.ends_with('/') { "/" } else { "" };
    match scheme_of(value).map(str::to_ascii_lowercase).as_deref() {
        Some("http" | "https") => {
            if let Some((_, path)) = tree.vendored.iter().find(|(url, _)| url == value) {
                return format!("./{path}");
            }
            match Url::parse(value) {
                Ok(url) if !trailing.is_empty() => format!("./{}/", vendor_folder(&url).join("/")),
                _ => value.to_string(),
            }
        }
        Some("file") => match (absolute_segments(value), &tree.root) {
            (Some(parts), Some(root)) if parts.starts_with(root) => {
                format!("./{}{trailing}", parts[root.len()..].join("/"))
            }
            _ => value.to_string(),
        },
        Some(_) => value.to_string(),
        None if value.starts_with('/') => match (absolute_segments(value), &tree.root) {
            (Some(parts), Some(root)) if parts.starts_with(root) => {
                format!("./{}{trailing}", parts[root.len()..].join("/"))
            }
            _ => value.to_string(),
        },
        None if value.starts_with("./") || value.starts_with("../") => {
            let mut parts: Vec<&str> = folder.iter().map(String::as_str).collect();
            for part in value.split('/') {
                match part {
                    "" | "." => {}
                    ".." => {
                        if parts.pop().is_none() {
                            return value.to_string();
                        }
                    }
                    other => parts.push(other),
                }
            }
            match parts.is_empty() {
                true => "./".to_string(),
                false => format!("./{}{trailing}", parts.join("/")),
            }
        }
        None => value.to_string(),
    }
}
