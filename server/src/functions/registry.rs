//! Which functions exist and how each is called: a subfolder of the functions folder with an
//! entry file, unless `config.toml` disables it (`[functions.<name>] enabled = false`), checked
//! for a JWT unless it says `verify_jwt = false`. Folders starting with `_` or `.` are shared
//! code (`_shared/`), never functions.
//!
//! Its import map is found as the Supabase CLI finds it (`[functions.<name>] import_map`, else
//! the function's `deno.json`, `deno.jsonc` or `import_map.json`, else `functions/import_map.json`),
//! and its `static_files` globs are matched to the files it may read besides its folder.
//!
//! Looked up on each request, so a function added while the server runs is found, and one
//! edited gets a new `version` (its files' sizes and modification times, with `_shared/`'s, its
//! import map's and its static files'), which makes the router boot a new worker for it; what
//! was found is kept while the stamps of the folders and files it was found from hold (`stamps`).
//! It reads the file system only and never runs code.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::stamps::{Readings, Stamped};

pub use crate::project::config::FunctionSettings;

/// A function to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub entrypoint: PathBuf,
    pub verify_jwt: bool,
    /// Its own request idle timeout (`[functions.<name>] request_idle_timeout_secs`), if set.
    pub request_idle_secs: Option<u64>,
    /// Its own heap limit in MiB and CPU time per request in ms (`[functions.<name>]
    /// memory_limit_mb`, `cpu_time_limit_ms`), if set.
    pub memory_limit_mb: Option<u64>,
    pub cpu_time_limit_ms: Option<u64>,
    /// The folders it may read (besides /tmp): its own, and the shared code beside it, and the
    /// files its `static_files` globs match.
    pub read: Vec<PathBuf>,
    /// Its import map or Deno configuration file (`deno.json`, `deno.jsonc`, an import map).
    pub import_map: Option<PathBuf>,
    /// Changes when a file of the function (or of `_shared/`) changes.
    pub version: String,
}

/// The entry files looked for, in order, when `config.toml` names none (the CLI's `index.ts`,
/// and the other extensions Deno runs).
const ENTRY_FILES: &[&str] = &["index.ts", "index.js", "index.mts", "index.mjs", "index.tsx", "index.jsx"];

/// The functions folder and the settings of `config.toml`.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    pub dir: Option<PathBuf>,
    /// The project folder, which `entrypoint` settings are relative to.
    pub project_dir: Option<PathBuf>,
    pub settings: HashMap<String, FunctionSettings>,
    /// `FUNCTIONS_IMPORT_MAP`: the import map of every function, over the others.
    pub import_map: Option<PathBuf>,
    /// Functions found, by name, while nothing they were found from changed (`stamps`).
    pub readings: Readings<String, Option<Function>>,
}

/// Whether `name` can be a function's name (letters, digits, `-` and `_`, not starting with `_`).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Registry {
    /// The function `name`, if it exists and is enabled.
    ///
    /// A function laid out as the CLI lays it out (no `entrypoint`, `import_map` or
    /// `static_files` setting, no `FUNCTIONS_IMPORT_MAP`) is found again from the stamps of the
    /// folders and files it was found from, which a request only `stat`s.
    pub fn find(&self, name: &str) -> Option<Function> {
        let dir = self.dir.as_deref()?;
        if !valid_name(name) {
            return None;
        }
        let settings = self.settings.get(name).cloned().unwrap_or_default();
        if !settings.enabled {
            return None;
        }
        let plain = settings.entrypoint.is_none()
            && settings.import_map.is_none()
            && settings.static_files.is_empty()
            && self.import_map.is_none();
        if !plain {
            return self.find_in(dir, name, &settings, None);
        }
        self.readings.get_or_read(name, || {
            let mut stamped = Stamped::default();
            // Entries added to or removed from these change their stamps: a new entry file, a
            // new `deno.json`, `_shared/` or `import_map.json` appearing.
            stamped.add(dir);
            stamped.add(&dir.join(name));
            // Stamps follow symbolic links: one pointed elsewhere changes the stamp of its path.
            let found = self.find_in(dir, name, &settings, Some(&mut stamped));
            (found, Some(stamped))
        })
    }

    fn find_in(
        &self,
        dir: &Path,
        name: &str,
        settings: &FunctionSettings,
        stamped: Option<&mut Stamped>,
    ) -> Option<Function> {
        let entrypoint = match (&settings.entrypoint, &self.project_dir) {
            (Some(entry), Some(project)) => Some(project.join(entry)).filter(|p| p.is_file()),
            _ => entry_file(&dir.join(name)),
        }?;
        let entrypoint = std::fs::canonicalize(&entrypoint).ok()?;
        let folder = entrypoint.parent().unwrap_or(dir);
        let import_map = self.import_map(name, settings, folder);
        let static_files = self.static_files(name, settings);
        let shared = dir.join("_shared");
        let mut watched: Vec<&Path> = vec![folder, &shared];
        watched.extend(import_map.iter().map(PathBuf::as_path));
        watched.extend(static_files.iter().map(PathBuf::as_path));
        let version = version(&watched, stamped);
        let mut read = vec![folder.to_path_buf(), shared.clone()];
        read.extend(
            static_files.iter().filter(|file| !file.starts_with(folder) && !file.starts_with(&shared)).cloned(),
        );
        Some(Function {
            name: name.to_string(),
            entrypoint,
            verify_jwt: settings.verify_jwt,
            request_idle_secs: settings.request_idle_timeout_secs,
            memory_limit_mb: settings.memory_limit_mb,
            cpu_time_limit_ms: settings.cpu_time_limit_ms,
            read,
            import_map,
            version,
        })
    }

    /// The import map of a function, as `supabase functions serve` picks it: `FUNCTIONS_IMPORT_MAP`
    /// (its `--import-map`), else `import_map` of
    /// `config.toml` (relative to the project folder), else `deno.json`, `deno.jsonc` or
    /// `import_map.json` in the function's folder (`functions/<name>/`, else its entry file's
    /// folder), else `functions/import_map.json`.
    fn import_map(&self, name: &str, settings: &FunctionSettings, entry_folder: &Path) -> Option<PathBuf> {
        let dir = self.dir.as_deref()?;
        if let Some(every) = &self.import_map {
            return std::fs::canonicalize(every).ok();
        }
        let found = match (&settings.import_map, &self.project_dir) {
            (Some(path), Some(project)) => Some(project.join(path)).filter(|p| p.is_file()),
            _ => [dir.join(name), entry_folder.to_path_buf()]
                .iter()
                .flat_map(|folder| IMPORT_MAP_FILES.iter().map(move |file| folder.join(file)))
                .chain(std::iter::once(dir.join("import_map.json")))
                .find(|path| path.is_file()),
        };
        found.and_then(|path| std::fs::canonicalize(path).ok())
    }

    /// The files a function's `static_files` globs match (relative to the project folder, as the
    /// CLI reads them), canonical, sorted, at most `STATIC_FILES`.
    fn static_files(&self, name: &str, settings: &FunctionSettings) -> Vec<PathBuf> {
        let Some(project) = &self.project_dir else { return Vec::new() };
        let mut files = Vec::new();
        for pattern in &settings.static_files {
            let full = project.join(pattern);
            let Ok(paths) = glob::glob(&full.to_string_lossy()) else {
                tracing::warn!(function = name, pattern, "functions: static_files: not a glob pattern");
                continue;
            };
            files.extend(paths.flatten().filter(|p| p.is_file()).filter_map(|p| std::fs::canonicalize(p).ok()));
        }
        files.sort();
        files.dedup();
        files.truncate(STATIC_FILES);
        files
    }
}

/// A function's own import map or Deno configuration, in the order the CLI looks for them.
const IMPORT_MAP_FILES: &[&str] = &["deno.json", "deno.jsonc", "import_map.json"];
/// Static files a function may be given at most (each is a path in its read permission).
const STATIC_FILES: usize = 500;

/// Files looked at for a version, at most (a folder holding more is not a function's code).
const VERSION_FILES: usize = 2000;

/// A digest of the sizes and modification times of `paths` and of the files under those that are
/// folders (hidden folders and `node_modules` left out).
/// The folders walked and files looked at are noted in `stamped`, when given.
fn version(paths: &[&Path], mut stamped: Option<&mut Stamped>) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut pending = Vec::new();
    let mut note = |path: &Path| {
        if let Some(stamped) = stamped.as_deref_mut() {
            stamped.add(path);
        }
    };
    for path in paths {
        note(path);
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => {
                path.hash(&mut hasher);
                meta.len().hash(&mut hasher);
                meta.modified().ok().and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok()).hash(&mut hasher);
            }
            _ => pending.push(path.to_path_buf()),
        }
    }
    let mut seen = 0;
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') || name == "node_modules" {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            note(&entry.path());
            if meta.is_dir() {
                pending.push(entry.path());
                continue;
            }
            seen += 1;
            if seen > VERSION_FILES {
                return format!("{:016x}", hasher.finish());
            }
            entry.path().hash(&mut hasher);
            meta.len().hash(&mut hasher);
            meta.modified().ok().and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok()).hash(&mut hasher);
        }
    }
    format!("{:016x}", hasher.finish())
}

fn entry_file(folder: &Path) -> Option<PathBuf> {
    ENTRY_FILES.iter().map(|file| folder.join(file)).find(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("functions-registry-{}", crate::keys::random_secret()));
        for (path, text) in [
            ("functions/hello/index.ts", "Deno.serve(() => new Response('hi'))"),
            ("functions/js-only/index.js", ""),
            ("functions/_shared/index.ts", ""),
            ("functions/empty/README.md", ""),
            ("functions/off/index.ts", ""),
            ("elsewhere/main.ts", ""),
        ] {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap_or(&dir)).unwrap_or_default();
            std::fs::write(&path, text).unwrap_or_default();
        }
        dir
    }

    fn registry(dir: &Path) -> Registry {
        let mut settings = HashMap::new();
        settings.insert("off".to_string(), FunctionSettings { enabled: false, ..Default::default() });
        settings.insert(
            "moved".to_string(),
            FunctionSettings { verify_jwt: false, entrypoint: Some("elsewhere/main.ts".into()), ..Default::default() },
        );
        Registry {
            dir: Some(dir.join("functions")),
            project_dir: Some(dir.to_path_buf()),
            settings,
            import_map: None,
            readings: Readings::default(),
        }
    }

    #[test]
    fn a_folder_with_an_entry_file_is_a_function_checked_for_a_jwt() {
        let dir = folder();
        let found = registry(&dir).find("hello").map(|f| (f.entrypoint.ends_with("hello/index.ts"), f.verify_jwt));
        assert_eq!(found, Some((true, true)));
        assert!(registry(&dir).find("js-only").is_some_and(|f| f.entrypoint.ends_with("index.js")));
    }

    #[test]
    fn shared_folders_folders_without_entry_and_disabled_functions_are_not_found() {
        let dir = folder();
        for name in ["_shared", "empty", "off", "missing", "..", "hello/..", "a b", ""] {
            assert_eq!(registry(&dir).find(name), None, "{name}");
        }
    }

    #[test]
    fn an_entrypoint_setting_is_relative_to_the_project_folder() {
        let dir = folder();
        let found = registry(&dir).find("moved");
        assert!(found.as_ref().is_some_and(|f| f.entrypoint.ends_with("elsewhere/main.ts") && !f.verify_jwt));
    }

    #[test]
    fn editing_a_function_or_the_shared_code_changes_its_version() {
        let dir = folder();
        let registry = registry(&dir);
        let version = || registry.find("hello").map(|f| f.version).unwrap_or_default();
        let first = version();
        assert_eq!(version(), first);
        std::fs::write(dir.join("functions/hello/index.ts"), "Deno.serve(() => new Response('hello again'))").unwrap();
        let edited = version();
        assert_ne!(edited, first);
        std::fs::write(dir.join("functions/_shared/cors.ts"), "export const cors = {};").unwrap();
        assert_ne!(version(), edited);
    }

    #[test]
    fn a_function_found_again_from_its_stamps_still_sees_edits_new_files_and_a_new_entry_file() {
        let dir = folder();
        use super::super::stamps::backdate;
        let minute = std::time::Duration::from_secs(60);
        backdate(&dir, minute);
        let registry = registry(&dir);
        let find = || registry.find("hello").expect("hello is found");
        let first = find();
        assert_eq!(find(), first, "found again, unchanged");

        let index = dir.join("functions/hello/index.ts");
        std::fs::write(&index, "Deno.serve(() => new Response('hi there'))").unwrap_or_default();
        let edited = find();
        assert_ne!(edited.version, first.version, "an edit is seen");
        backdate(&index, minute / 2);
        let settled = find();
        assert_ne!(settled.version, edited.version, "a new modification time is seen");
        assert_eq!(find(), settled);

        std::fs::write(dir.join("functions/_shared/util.ts"), "export {}").unwrap_or_default();
        let shared = find();
        assert_ne!(shared.version, settled.version, "a new file in _shared/ is seen");

        backdate(&dir, minute);
        assert_eq!(find().import_map, None);
        std::fs::write(dir.join("functions/hello/deno.json"), "{}").unwrap_or_default();
        assert!(
            find().import_map.is_some_and(|map| map.ends_with("functions/hello/deno.json")),
            "a new deno.json is seen"
        );

        backdate(&dir, minute);
        std::fs::remove_file(&index).unwrap_or_default();
        std::fs::write(dir.join("functions/hello/index.js"), "").unwrap_or_default();
        assert!(find().entrypoint.ends_with("functions/hello/index.js"), "a new entry file is seen");
        std::fs::remove_file(dir.join("functions/hello/index.js")).unwrap_or_default();
        assert_eq!(registry.find("hello"), None, "a function without an entry file is gone");
        std::fs::remove_dir_all(&dir).unwrap_or_default();
    }

    #[test]
    fn the_import_map_is_the_setting_s_else_the_function_s_deno_json_else_the_folder_s() {
        let dir = folder();
        for (path, text) in [
            ("functions/hello/deno.json", "{}"),
            ("functions/hello/import_map.json", "{}"),
            ("functions/import_map.json", "{}"),
            ("maps/custom.json", "{}"),
        ] {
            std::fs::create_dir_all(dir.join(path).parent().unwrap_or(&dir)).unwrap_or_default();
            std::fs::write(dir.join(path), text).unwrap_or_default();
        }
        let mut registry = registry(&dir);
        if let Some(moved) = registry.settings.get_mut("moved") {
            moved.import_map = Some("maps/custom.json".into());
        }
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        let map_of = |registry: &Registry, name: &str| {
            let map = registry.find(name).and_then(|f| f.import_map).unwrap_or_default();
            map.strip_prefix(&dir).map(Path::to_path_buf).unwrap_or(map)
        };
        assert_eq!(map_of(&registry, "hello"), PathBuf::from("functions/hello/deno.json"));
        assert_eq!(map_of(&registry, "js-only"), PathBuf::from("functions/import_map.json"), "the folder's");
        assert_eq!(map_of(&registry, "moved"), PathBuf::from("maps/custom.json"), "the setting's");
        registry.import_map = Some(dir.join("maps/custom.json"));
        assert_eq!(map_of(&registry, "hello"), PathBuf::from("maps/custom.json"), "FUNCTIONS_IMPORT_MAP's");
    }

    #[test]
    fn static_files_globs_are_files_the_function_may_read_and_editing_one_changes_its_version() {
        let dir = folder();
        for path in ["templates/a.html", "templates/b.html", "templates/c.txt", "functions/hello/page.html"] {
            std::fs::create_dir_all(dir.join(path).parent().unwrap_or(&dir)).unwrap_or_default();
            std::fs::write(dir.join(path), "x").unwrap_or_default();
        }
        let mut registry = registry(&dir);
        let globs = vec!["./templates/*.html".into(), "functions/hello/*.html".into(), "nothing/*".into()];
        registry.settings.insert("hello".into(), FunctionSettings { static_files: globs, ..Default::default() });
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);

        let found = registry.find("hello").expect("found");

        let read: Vec<_> = found.read.iter().map(|p| p.strip_prefix(&dir).unwrap_or(p).to_path_buf()).collect();
        let expected: Vec<PathBuf> = ["functions/hello", "functions/_shared", "templates/a.html", "templates/b.html"]
            .map(PathBuf::from)
            .to_vec();
        assert_eq!(read, expected, "the function's own files are in its folder already");
        std::fs::write(dir.join("templates/a.html"), "edited").unwrap_or_default();
        assert_ne!(registry.find("hello").map(|f| f.version), Some(found.version));
    }

    #[test]
    fn without_a_functions_folder_nothing_is_found() {
        assert_eq!(Registry::default().find("hello"), None);
    }
}
