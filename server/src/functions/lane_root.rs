//! The folder of the lanes' Unix sockets (`functions-runtime/lane.ts`): made at start in
//! `/var/tmp` (`/var/tmp/supabase-rs-lanes-<random>`, mode 0700), which no function may read or
//! write (they may write `/tmp` only), so a function cannot reach, remove or replace another's
//! socket. The supervisor gives each function's process a folder of its own in it, which only that
//! process may read and write. (Not `/dev/shm`: Deno asks `--allow-all` for any path under
//! `/dev`.) Removed when the functions' state is dropped. Without `/var/tmp` (or with
//! `FUNCTIONS_LANES=false`) there is none, and lanes listen on loopback ports. Its name holds the
//! server's pid (`supabase-rs-lanes-<pid>-<random>`): a server that starts removes the folders of
//! servers no longer running (killed before they could remove theirs).

use std::path::{Path, PathBuf};

const PREFIX: &str = "supabase-rs-lanes-";

/// Remove the lane folders in `parent` of servers that no longer run.
fn remove_abandoned(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)).and_then(|rest| rest.split_once('-')) else {
            continue;
        };
        let Ok(pid) = pid.0.parse::<i32>() else { continue };
        // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
        let gone = pid > 0
            && unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The lanes' folder, removed with its sockets when dropped.
#[derive(Debug)]
pub struct LaneRoot(PathBuf);

impl LaneRoot {
    /// A new folder in `/var/tmp`, or `None` where it cannot be made.
    pub fn create() -> Option<LaneRoot> {
        Self::create_in(Path::new("/var/tmp"))
    }

    /// A new folder in `parent` (which must exist), or `None` where it cannot be made.
    pub fn create_in(parent: &Path) -> Option<LaneRoot> {
        use std::os::unix::fs::DirBuilderExt;
        if !parent.is_dir() {
            return None;
        }
        remove_abandoned(parent);
        let random = crate::keys::random_secret();
        let dir = parent.join(format!("{PREFIX}{}-{}", std::process::id(), &random[..12]));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => Some(LaneRoot(dir)),
            Err(err) => {
                tracing::warn!(error = %err, folder = %dir.display(), "functions: no lane folder; lanes listen on loopback ports");
                None
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for LaneRoot {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_folder_is_private_new_each_time_and_removed_when_dropped() {
        let parent = std::env::temp_dir();
        let (one, two) = (LaneRoot::create_in(&parent).expect("made"), LaneRoot::create_in(&parent).expect("made"));
        assert_ne!(one.path(), two.path());
        let mode = std::fs::metadata(one.path()).expect("exists").permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        std::fs::write(one.path().join("a.sock"), "").expect("a file in it");
        let path = one.path().to_path_buf();
        drop(one);
        assert!(!path.exists(), "removed with what it held");
        assert!(LaneRoot::create_in(Path::new("/nonexistent-parent")).is_none());
    }

    #[test]
    fn the_folders_of_servers_no_longer_running_are_removed_at_start_others_kept() {
        let parent = std::env::temp_dir().join(format!("lane-roots-{}", &crate::keys::random_secret()[..8]));
        std::fs::create_dir_all(&parent).expect("parent");
        // A pid past the kernel's largest (4,194,304) runs no process.
        let abandoned = parent.join(format!("{PREFIX}4194999-abc"));
        let running = parent.join(format!("{PREFIX}{}-def", std::process::id()));
        let other = parent.join("something-else");
        for dir in [&abandoned, &running, &other] {
            std::fs::create_dir_all(dir).expect("dir");
        }
        let root = LaneRoot::create_in(&parent).expect("made");
        assert!(!abandoned.exists(), "a dead server's folder is removed");
        assert!(running.exists() && other.exists(), "a running server's folder and others are kept");
        drop(root);
        let _ = std::fs::remove_dir_all(&parent);
    }
}
