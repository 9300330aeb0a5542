//! Which folders a function's process may not read although its permissions would let it: the
//! folders beside its own when they lie under a path it may read (a project or data folder under
//! `/tmp`, which every function may read and write). Each function's process is started with
//! these as `--deny-read`, which wins over its `--allow-read` (docs/functions.md).
//!
//! It lists folders only; it never reads files, and decides nothing about what a function is.

use std::path::{Path, PathBuf};

use super::stamps::{Readings, Stamped};

/// The folders whose entries a function must not read: the project folder (its `.env`, its other
/// files), the functions folder (other functions' code and their `.env`), the data folder (the database, stored files, the server's secrets) and the deployed
/// functions' folder (other functions' versions).
#[derive(Debug, Clone, Default)]
pub struct Guarded {
    pub folders: Vec<PathBuf>,
    /// What `denied` worked out, by the folders a function may read, while no guarded folder's
    /// entries changed.
    readings: Readings<Vec<PathBuf>, Vec<PathBuf>>,
}

/// Entries of the data folder functions need: the runtime's scripts and Deno's cache, and the
/// deployed versions (guarded entry by entry as a folder of its own).
const DATA_DIR_KEPT: &[&str] = &["functions-runtime", "functions-deployed"];

impl Guarded {
    /// The guarded folders of a server with these folders.
    pub fn new(
        project_dir: Option<&Path>,
        functions_dir: Option<&Path>,
        data_dir: &Path,
        deployed_dir: &Path,
    ) -> Guarded {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let mut folders: Vec<PathBuf> = project_dir.map(canonical).into_iter().collect();
        folders.extend(functions_dir.map(canonical));
        folders.push(canonical(data_dir));
        folders.push(deployed_dir.to_path_buf());
        Guarded { folders, readings: Readings::default() }
    }

    /// Whether no guarded folder lies in `folder`. A spare process (docs/functions.md) denies no
    /// folder, so it can serve a function only when the folders it must not read lie outside
    /// `/tmp`, which every function's worker may read.
    pub fn none_within(&self, folder: &Path) -> bool {
        self.within(folder).is_empty()
    }

    /// The guarded folders that lie in `folder`. Under `/tmp`, which every function may write,
    /// each function's process is denied writing them (`--deny-write`): a function writes no file
    /// of the data folder, the project or another function, wherever they lie.
    pub fn within(&self, folder: &Path) -> Vec<PathBuf> {
        let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
        self.folders.iter().filter(|guarded| guarded.starts_with(&folder)).cloned().collect()
    }

    /// The entries of the guarded folders that a function allowed to read `read` must not read:
    /// every entry that holds none of `read`, but the shared code and what the runtime needs.
    /// Listed again only when a guarded folder's entries changed (its stamp).
    pub fn denied(&self, read: &[PathBuf]) -> Vec<PathBuf> {
        self.readings.get_or_read(read, || {
            let mut stamped = Stamped::default();
            for folder in &self.folders {
                stamped.add(folder);
            }
            (self.list_denied(read), Some(stamped))
        })
    }

    fn list_denied(&self, read: &[PathBuf]) -> Vec<PathBuf> {
        let mut denied = Vec::new();
        for folder in &self.folders {
            let Ok(entries) = std::fs::read_dir(folder) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name();
                let kept = name == "_shared" || DATA_DIR_KEPT.iter().any(|k| name == *k);
                if kept || read.iter().any(|allowed| allowed.starts_with(&path)) {
                    continue;
                }
                denied.push(path);
            }
        }
        denied.sort();
        denied.dedup();
        denied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guarded_folders_are_seen_within_the_folder_that_holds_them_only() {
        let guarded = Guarded {
            folders: vec![PathBuf::from("/srv/project"), PathBuf::from("/var/lib/server")],
            ..Default::default()
        };
        assert!(guarded.none_within(Path::new("/nonexistent-tmp")));
        assert!(!guarded.none_within(Path::new("/srv")));
        assert!(!guarded.none_within(Path::new("/var/lib/server")));
        assert!(guarded.none_within(Path::new("/var/lib/server-other")));
        assert_eq!(guarded.within(Path::new("/var/lib")), [PathBuf::from("/var/lib/server")]);
    }

    #[test]
    fn a_function_is_denied_the_other_functions_and_the_data_folder_but_not_its_own_or_the_shared_code() {
        let root = std::env::temp_dir().join(format!("functions-guarded-{}", crate::keys::random_secret()));
        for folder in [
            "project/functions/mine",
            "project/functions/other",
            "project/functions/_shared",
            "data/secrets",
            "data/postgres",
            "data/functions-runtime",
            "data/functions-deployed/mine",
            "data/functions-deployed/theirs",
        ] {
            std::fs::create_dir_all(root.join(folder)).unwrap_or_default();
        }
        std::fs::write(root.join("project/.env"), "KEY=1").unwrap_or_default();
        let guarded = Guarded::new(
            Some(&root.join("project")),
            Some(&root.join("project/functions")),
            &root.join("data"),
            &root.join("data/functions-deployed"),
        );
        let root = std::fs::canonicalize(&root).unwrap_or(root);

        let folder = guarded.denied(&[root.join("project/functions/mine"), root.join("project/functions/_shared")]);
        let deployed = guarded.denied(&[root.join("data/functions-deployed/mine/0123")]);

        let names = |paths: Vec<PathBuf>| -> Vec<String> {
            paths.iter().map(|p| p.strip_prefix(&root).unwrap_or(p).to_string_lossy().into_owned()).collect()
        };
        assert_eq!(
            names(folder),
            [
                "data/functions-deployed/mine",
                "data/functions-deployed/theirs",
                "data/postgres",
                "data/secrets",
                "project/.env",
                "project/functions/other"
            ]
        );
        assert_eq!(
            names(deployed),
            [
                "data/functions-deployed/theirs",
                "data/postgres",
                "data/secrets",
                "project/.env",
                "project/functions",
                "project/functions/mine",
                "project/functions/other",
            ]
        );
    }
}
