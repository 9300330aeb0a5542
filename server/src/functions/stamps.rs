//! Stamps of files and folders (kind, inode, length, modification time), so that what was worked
//! out from reading them is kept and reused while none of them changed: a few `stat` calls per
//! request instead of listing folders and probing files again.
//!
//! A folder's stamp changes when an entry is added, removed or renamed in it; a file's when it is
//! written or replaced. A file system's clock ticks coarsely (a few ms), so a change in the same
//! tick as the reading it follows would leave the stamp as it was: a reading is kept only when
//! everything it read had been unchanged for [`SETTLED`] (as git treats "racily clean" files).
//! It reads metadata only, never a file's content.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// How long what was read must have been unchanged for the reading to be kept.
const SETTLED: Duration = Duration::from_secs(2);
/// Readings kept at most (by key); past it they are all dropped and read again as asked.
const KEPT: usize = 1024;

/// What a path looked like: absent, or its kind, inode, length and modification time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp(Option<(bool, u64, u64, SystemTime)>);

impl Stamp {
    /// The stamp of `path` now (symbolic links followed).
    pub fn of(path: &Path) -> Stamp {
        Stamp(
            std::fs::metadata(path)
                .ok()
                .map(|m| (m.is_dir(), m.ino(), m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH))),
        )
    }

    /// Whether it has been unchanged long enough at `now` for a reading of it to be kept.
    fn settled(&self, now: SystemTime) -> bool {
        match &self.0 {
            None => true,
            Some((_, _, _, modified)) => now.duration_since(*modified).is_ok_and(|age| age >= SETTLED),
        }
    }
}

/// The paths a reading depended on, each with its stamp when it was read.
#[derive(Debug, Clone, Default)]
pub struct Stamped(Vec<(PathBuf, Stamp)>);

impl Stamped {
    /// Note that the reading depended on `path`, as it is now.
    pub fn add(&mut self, path: &Path) {
        self.0.push((path.to_path_buf(), Stamp::of(path)));
    }

    /// Whether every path is as it was.
    fn current(&self) -> bool {
        self.0.iter().all(|(path, stamp)| Stamp::of(path) == *stamp)
    }

    fn settled(&self, now: SystemTime) -> bool {
        self.0.iter().all(|(_, stamp)| stamp.settled(now))
    }
}

/// A reading kept: what it depended on, and what it gave.
type Kept<V> = Arc<(Stamped, V)>;

/// Readings by key, each reused while the paths it depended on are unchanged.
#[derive(Debug)]
pub struct Readings<K, V> {
    kept: Arc<Mutex<HashMap<K, Kept<V>>>>,
}

impl<K, V> Clone for Readings<K, V> {
    fn clone(&self) -> Self {
        Readings { kept: self.kept.clone() }
    }
}

impl<K, V> Default for Readings<K, V> {
    fn default() -> Self {
        Readings { kept: Arc::default() }
    }
}

impl<K: Eq + Hash, V: Clone> Readings<K, V> {
    /// The reading kept for `key` if nothing it read changed since, else `read()` again (which
    /// gives what it depended on, or `None` to keep nothing this time), kept when settled.
    pub fn get_or_read<Q>(&self, key: &Q, read: impl FnOnce() -> (V, Option<Stamped>)) -> V
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ToOwned<Owned = K> + ?Sized,
    {
        // Checked outside the lock: the `stat`s of one request do not hold up another's.
        let kept = self.kept.lock().ok().and_then(|kept| kept.get(key).cloned());
        if let Some(kept) = kept {
            if kept.0.current() {
                return kept.1.clone();
            }
        }
        let (value, stamped) = read();
        if let Ok(mut kept) = self.kept.lock() {
            match stamped {
                Some(stamped) if stamped.settled(SystemTime::now()) => {
                    if kept.len() >= KEPT {
                        kept.clear();
                    }
                    kept.insert(key.to_owned(), Arc::new((stamped, value.clone())));
                }
                _ => {
                    kept.remove(key);
                }
            }
        }
        value
    }
}

/// Set the modification time of `path` and of everything under it to `ago` before now (tests
/// date what they wrote as settled).
#[cfg(test)]
pub fn backdate(path: &Path, ago: Duration) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
            backdate(&entry.path(), ago);
        }
    }
    if let Ok(file) = std::fs::File::open(path) {
        file.set_modified(SystemTime::now() - ago).unwrap_or_default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn folder() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("stamps-test-{}", crate::keys::random_secret()));
        std::fs::create_dir_all(&dir).unwrap_or_default();
        dir
    }

    /// Backdate `path` so a reading of it counts as settled.
    fn age(path: &Path) {
        backdate(path, Duration::from_secs(60));
    }

    #[test]
    fn a_reading_is_reused_until_a_file_it_read_changes_or_an_entry_is_added() {
        let dir = folder();
        let file = dir.join("index.ts");
        std::fs::write(&file, "one").unwrap_or_default();
        age(&file);
        age(&dir);
        let readings: Readings<&str, String> = Readings::default();
        let reads = Cell::new(0);
        let read = || {
            reads.set(reads.get() + 1);
            let mut stamped = Stamped::default();
            stamped.add(&dir);
            stamped.add(&file);
            (std::fs::read_to_string(&file).unwrap_or_default(), Some(stamped))
        };
        assert_eq!(readings.get_or_read(&"f", read), "one");
        assert_eq!(readings.get_or_read(&"f", read), "one");
        assert_eq!(reads.get(), 1, "the second reading was reused");

        // An edit of the same length: its modification time tells it apart.
        std::fs::write(&file, "two").unwrap_or_default();
        // Changed within the settling time (dated ahead, so however slow this machine): not kept.
        std::fs::File::open(&file)
            .and_then(|f| f.set_modified(SystemTime::now() + Duration::from_secs(3600)))
            .expect("set the modification time");
        assert_eq!(readings.get_or_read(&"f", read), "two");
        assert_eq!(reads.get(), 2);
        assert_eq!(readings.get_or_read(&"f", read), "two");
        assert_eq!(reads.get(), 3, "read again on the next call");

        age(&file);
        assert_eq!(readings.get_or_read(&"f", read), "two");
        assert_eq!(readings.get_or_read(&"f", read), "two");
        assert_eq!(reads.get(), 4, "settled again: kept");

        // A new entry in the folder changes the folder's stamp.
        std::fs::write(dir.join("other.ts"), "x").unwrap_or_default();
        readings.get_or_read(&"f", read);
        assert_eq!(reads.get(), 5);
        std::fs::remove_dir_all(&dir).unwrap_or_default();
    }

    #[test]
    fn a_reading_without_stamps_is_never_kept() {
        let readings: Readings<u8, u8> = Readings::default();
        let reads = Cell::new(0);
        for _ in 0..3 {
            readings.get_or_read(&1, || {
                reads.set(reads.get() + 1);
                (7, None)
            });
        }
        assert_eq!(reads.get(), 3);
    }
}
