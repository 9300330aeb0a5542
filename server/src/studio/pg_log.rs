//! The Postgres log tab: the tail of the embedded cluster's log file (`pg-run/postgres.log`
//! beside its data directory), split into lines with their level, filtered by level and text,
//! newest first. Only the file's last [`TAIL_BYTES`] are read. With an external `DATABASE_URL`
//! there is no file this server can read: the answer says so.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Serialize;

/// How much of the end of the file is read.
pub const TAIL_BYTES: u64 = 512 * 1024;

/// Levels from the least to the most severe, as Postgres writes them.
const LEVELS: &[&str] =
    &["DEBUG5", "DEBUG4", "DEBUG3", "DEBUG2", "DEBUG1", "INFO", "NOTICE", "WARNING", "ERROR", "LOG", "FATAL", "PANIC"];
/// Lines that belong to the message above them.
const CONTINUATIONS: &[&str] = &["DETAIL", "HINT", "STATEMENT", "CONTEXT", "QUERY", "LOCATION"];

/// The log file of the embedded cluster whose data directory is `pgdata`.
pub fn log_path(pgdata: &Path) -> Option<PathBuf> {
    pgdata.parent().map(|dir| dir.join("pg-run").join("postgres.log"))
}

/// A line of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    /// `LOG`, `WARNING`, `ERROR`, …; `DETAIL` and the like for lines that explain the one above;
    /// `None` for a line of another shape.
    pub level: Option<String>,
    pub text: String,
}

/// Which lines to keep: at least this severity (`warning`, `error`; anything else: all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MinLevel {
    All,
    Warning,
    Error,
}

impl MinLevel {
    pub fn parse(s: Option<&str>) -> Result<MinLevel, String> {
        match s.map(str::trim).unwrap_or("") {
            "" | "all" => Ok(MinLevel::All),
            "warning" => Ok(MinLevel::Warning),
            "error" => Ok(MinLevel::Error),
            other => Err(format!("level must be all, warning or error, not {other:?}")),
        }
    }

    fn keeps(self, level: Option<&str>) -> bool {
        match self {
            MinLevel::All => true,
            // LOG is informative for clients but ranks above ERROR in the server log: not kept here.
            MinLevel::Warning => matches!(level, Some("WARNING" | "ERROR" | "FATAL" | "PANIC")),
            MinLevel::Error => matches!(level, Some("ERROR" | "FATAL" | "PANIC")),
        }
    }
}

/// The level of a line (`2026-01-01 00:00:00.000 UTC [42] ERROR:  …` → `ERROR`).
pub fn level_of(line: &str) -> Option<String> {
    for word in line.split_whitespace().take(8) {
        if let Some(level) = word.strip_suffix(':') {
            if LEVELS.contains(&level) || CONTINUATIONS.contains(&level) {
                return Some(level.to_string());
            }
        }
    }
    None
}

/// Keep the lines of `text` that pass the level and contain `needle` (case-insensitive), the
/// newest first, at most `limit`. An explaining line (`DETAIL`, `STATEMENT`…) follows the fate
/// of the message above it.
pub fn filter(text: &str, min: MinLevel, needle: Option<&str>, limit: usize) -> Vec<Line> {
    let needle = needle.map(str::to_lowercase).filter(|n| !n.is_empty());
    let mut kept: Vec<Line> = Vec::new();
    let mut parent_kept = false;
    for raw in text.lines() {
        if raw.trim().is_empty() {
            continue;
        }
        let level = level_of(raw);
        let continuation = level.as_deref().is_none_or(|l| CONTINUATIONS.contains(&l));
        let keep_level = if continuation { parent_kept } else { min.keeps(level.as_deref()) };
        if !continuation {
            parent_kept = keep_level;
        }
        let keep_text = needle.as_deref().is_none_or(|n| raw.to_lowercase().contains(n));
        if keep_level && keep_text {
            kept.push(Line { level, text: raw.to_string() });
        }
    }
    kept.reverse();
    kept.truncate(limit);
    kept
}

/// The last [`TAIL_BYTES`] of the file, from its first whole line.
pub fn read_tail(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::with_capacity((len - start) as usize);
    file.take(TAIL_BYTES).read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if start > 0 {
        Ok(text.split_once('\n').map(|(_, rest)| rest.to_string()).unwrap_or_default())
    } else {
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\
2026-12-06 10:00:00.000 UTC [10] LOG:  database system is ready to accept connections
2026-12-06 10:00:01.000 UTC [11] ERROR:  relation \"nope\" does not exist at character 15
2026-12-06 10:00:01.000 UTC [11] STATEMENT:  select * from nope
2026-12-06 10:00:02.000 UTC [12] WARNING:  there is no transaction in progress
2026-12-06 10:00:03.000 UTC [13] FATAL:  password authentication failed for user \"x\"
some line of another shape
";

    #[test]
    fn the_level_is_the_first_known_word_with_a_colon() {
        assert_eq!(level_of("2026-12-06 10:00:00.000 UTC [10] LOG:  ready").as_deref(), Some("LOG"));
        assert_eq!(level_of("2026-12-06 10:00:00.000 UTC [10] STATEMENT:  x").as_deref(), Some("STATEMENT"));
        assert_eq!(level_of("no level: here"), None);
    }

    #[test]
    fn all_lines_come_newest_first() {
        let lines = filter(LOG, MinLevel::All, None, 100);
        assert_eq!(lines.len(), 6);
        assert_eq!(lines[0].text, "some line of another shape");
        assert_eq!(lines[5].level.as_deref(), Some("LOG"));
    }

    #[test]
    fn errors_keep_their_statement_and_drop_the_rest() {
        let lines = filter(LOG, MinLevel::Error, None, 100);
        let levels: Vec<_> = lines.iter().map(|l| l.level.clone().unwrap_or_default()).collect();
        // the line of another shape goes on the message above it (a multi-line FATAL)
        assert_eq!(levels, vec!["", "FATAL", "STATEMENT", "ERROR"]);
        let warnings = filter(LOG, MinLevel::Warning, None, 100);
        assert_eq!(warnings.len(), 5);
    }

    #[test]
    fn text_filter_is_case_insensitive_and_the_limit_keeps_the_newest() {
        let lines = filter(LOG, MinLevel::All, Some("NOPE"), 100);
        assert_eq!(lines.len(), 2);
        let newest = filter(LOG, MinLevel::All, None, 2);
        assert_eq!(newest[1].level.as_deref(), Some("FATAL"));
    }

    #[test]
    fn a_bad_level_is_refused() {
        assert!(MinLevel::parse(Some("loud")).is_err());
        assert_eq!(MinLevel::parse(None), Ok(MinLevel::All));
    }

    #[test]
    fn the_tail_starts_at_a_whole_line() {
        let dir = std::env::temp_dir().join(format!("pg-log-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("postgres.log");
        let long = "x".repeat(100) + "\n";
        std::fs::write(&file, long.repeat((TAIL_BYTES / 100) as usize + 50)).expect("write");
        let tail = read_tail(&file).expect("read");
        assert!(tail.lines().all(|l| l.len() == 100));
        std::fs::remove_dir_all(&dir).expect("clean");
    }
}
