//! The dependency rule of the server's modules, checked on its own source (a unit test, so
//! `cargo test` fails the moment a lower floor imports a higher one). The rule, also written in
//! `docs/architecture.md`:
//!
//! - **shared parts** import only shared parts, and `config` may import each room's settings
//!   leaf (`<surface>::config`, `studio::config`), which itself imports only shared parts;
//! - **surfaces** import shared parts and themselves; a surface imports another surface's public
//!   face only where `SURFACE_TO_SURFACE` lists it, with the reason;
//! - **the top** (state, start-up, routes and the endpoints that read every surface's state)
//!   may import anything, and nothing below imports it.
//!
//! Every top-level module must be placed on a floor: a new module fails the test until it is.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const SHARED: &[&str] = &[
    "config",
    "db",
    "gate",
    "jwt",
    "keys",
    "listener",
    "log_writer",
    "metrics",
    "project",
    "request_log",
    "sealed",
    "signing_keys",
    "telemetry",
];
const SURFACES: &[&str] = &["auth", "backup", "functions", "outbox", "realtime", "rest", "storage"];
const TOP: &[&str] = &[
    "bin",
    "config_doc",
    "cors",
    "health",
    "import_rule",
    "lib",
    "main",
    "panic_guard",
    "routes",
    "scrape",
    "seed",
    "site",
    "startup",
    "state",
    "studio",
];
/// (importer, imported, why): the only imports from one surface into another.
const SURFACE_TO_SURFACE: &[(&str, &str, &str)] = &[
    ("storage", "rest", "the roles of the schema cache, shared rather than loaded twice"),
    ("outbox", "auth", "mail and text messages are rendered and sent by the auth surface's mailer"),
    ("backup", "storage", "stored files are copied from and back to where the storage surface keeps them"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Floor {
    Shared,
    Surface,
    Top,
}

fn floor(module: &str) -> Option<Floor> {
    if SHARED.contains(&module) {
        Some(Floor::Shared)
    } else if SURFACES.contains(&module) {
        Some(Floor::Surface)
    } else if TOP.contains(&module) {
        Some(Floor::Top)
    } else {
        None
    }
}

/// The paths `crate::a::b` a file names, as (a, b) with b empty when there is none; grouped
/// imports (`use crate::{a, b::c}`) included.
fn crate_paths(source: &str) -> BTreeSet<(String, String)> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut push = |path: &str| {
        let first = ident(path);
        if first.is_empty() {
            return;
        }
        let rest = path[first.len()..].strip_prefix("::").map(ident).unwrap_or_default();
        found.insert((first, rest));
    };
    for (i, _) in source.match_indices("crate::") {
        // `crate::` inside a longer word (`mycrate::`) is not ours
        if source[..i].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let after = &source[i + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                push(item.trim());
            }
        } else {
            push(after);
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every import that breaks the rule, as `file: reason`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut broken = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).expect("under src");
        let mut parts = relative.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string());
        let module = parts.next().unwrap_or_default();
        let second = parts.next();
        let name = relative.display();
        if module == "import_rule" {
            continue; // its own text and fixtures name paths on purpose
        }
        let Some(own) = floor(&module) else {
            broken.push(format!("{name}: module `{module}` is on no floor (place it in import_rule.rs)"));
            continue;
        };
        // a room's settings leaf (`<room>/config.rs`) is a shared part
        let leaf = own != Floor::Shared && second.as_deref() == Some("config");
        let source = std::fs::read_to_string(&file).expect("read file");
        for (target, inner) in crate_paths(&source) {
            if target == module && !leaf {
                continue;
            }
            let Some(theirs) = floor(&target) else {
                broken.push(format!("{name}: imports `crate::{target}`, which is on no floor"));
                continue;
            };
            let target_leaf = theirs != Floor::Shared && inner == "config";
            let allowed = match (own, leaf) {
                (Floor::Top, false) => true,
                (Floor::Shared, _) | (_, true) => theirs == Floor::Shared || (module == "config" && target_leaf),
                (Floor::Surface, false) => {
                    theirs == Floor::Shared
                        || target_leaf
                        || SURFACE_TO_SURFACE.iter().any(|(from, to, _)| *from == module && *to == target)
                }
            };
            if !allowed {
                broken.push(format!("{name}: a {own:?} module imports `crate::{target}` ({theirs:?})"));
            }
        }
    }
    broken.sort();
    broken
}

#[test]
fn imports_run_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let broken = violations(&src);
    assert!(broken.is_empty(), "imports against the rule of docs/architecture.md:\n{}", broken.join("\n"));
}

#[test]
fn the_rule_catches_a_shared_part_importing_a_surface() {
    let dir = std::env::temp_dir().join(format!("import-rule-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("rest")).expect("temp dir");
    std::fs::write(dir.join("jwt.rs"), "use crate::rest::error::RestError;\n").expect("write");
    std::fs::write(dir.join("rest/mod.rs"), "use crate::jwt::JwtVerifier;\n").expect("write");
    std::fs::write(dir.join("health.rs"), "use crate::state::AppState;\n").expect("write");
    std::fs::write(dir.join("newroom.rs"), "").expect("write");
    let broken = violations(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        broken,
        vec![
            "jwt.rs: a Shared module imports `crate::rest` (Surface)".to_string(),
            "newroom.rs: module `newroom` is on no floor (place it in import_rule.rs)".to_string(),
        ]
    );
}

#[test]
fn grouped_and_nested_paths_are_read() {
    let paths = crate_paths("use crate::{db, rest::error::X};\nlet a = crate::storage::config::S; mycrate::x();");
    let names: Vec<_> = paths.iter().map(|(a, b)| format!("{a}/{b}")).collect();
    assert_eq!(names, vec!["db/", "rest/error", "storage/config"]);
}
