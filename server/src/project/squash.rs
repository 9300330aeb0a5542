//! Baselines that replace an older migration history, in the spirit of `supabase migration
//! squash` and `supabase migration repair`: a migration file whose leading comment says
//!
//! ```sql
//! -- squashes: 20250101003000 20250101003100
//! -- squashes: 20250101003200
//! ```
//!
//! makes, on an empty database, what those versions made. On a database whose history holds
//! every squashed version and not the baseline, the baseline is recorded as applied (with its
//! statements, as the CLI records them) instead of being run, and the squashed rows are dropped:
//! all the baselines of the folder at once, in one transaction. A history holding only some of a
//! baseline's squashed versions stops the start with what is missing and what to do.
//!
//! It reads and writes the CLI's history only; it never runs a migration's statements.

use std::collections::BTreeSet;
use std::path::Path;

use super::migrations::Migration;
use super::split::split;
use super::ProjectError;

/// The versions the leading comment of `text` declares squashed (`-- squashes: v1 v2 …`, on as
/// many lines as needed); an error names a token that is not a version.
pub fn declared(path: &Path, text: &str) -> Result<Vec<String>, ProjectError> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix("--") else { break };
        let Some(list) = comment.trim_start().strip_prefix("squashes:") else { continue };
        for token in list.split_whitespace() {
            if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ProjectError::Invalid(format!(
                    "{}: `-- squashes:` lists migration versions (digits), not {token:?}",
                    path.display()
                )));
            }
            out.push(token.to_string());
        }
    }
    Ok(out)
}

/// A baseline file of the folder and the versions it squashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Baseline {
    pub migration: Migration,
    pub squashes: Vec<String>,
}

/// The baselines among `migrations` (the files that declare squashed versions).
pub fn baselines(migrations: &[Migration]) -> Result<Vec<Baseline>, ProjectError> {
    let mut out = Vec::new();
    for migration in migrations {
        let text = std::fs::read_to_string(&migration.path).map_err(|e| ProjectError::Io(migration.path.clone(), e))?;
        let squashes = declared(&migration.path, &text)?;
        if !squashes.is_empty() {
            out.push(Baseline { migration: migration.clone(), squashes });
        }
    }
    Ok(out)
}

/// What to do with a history: the baselines to record, the squashed versions to drop.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub record: Vec<Migration>,
    pub drop: Vec<String>,
}

/// Decide from the applied versions; a baseline whose squashed versions are only partly applied
/// is an error naming the missing ones.
pub fn plan(baselines: &[Baseline], applied: &BTreeSet<String>) -> Result<Plan, ProjectError> {
    let mut plan = Plan::default();
    let mut drop = BTreeSet::new();
    for baseline in baselines {
        if applied.contains(&baseline.migration.version) {
            continue;
        }
        let missing: Vec<&str> =
            baseline.squashes.iter().filter(|v| !applied.contains(*v)).map(String::as_str).collect();
        if missing.len() == baseline.squashes.len() {
            continue; // a database without that history: the baseline runs as any migration
        }
        if !missing.is_empty() {
            return Err(ProjectError::Invalid(format!(
                "the database's migration history holds {} of the {} versions that {} squashes; missing: {}. \
                 Apply the missing migrations first with the files that squash replaced (in git history: \
                 `server db push` from a checkout that still has them), then start again; or, if the schema \
                 already matches, record them in supabase_migrations.schema_migrations \
                 (`supabase migration repair --status applied VERSION`) (docs/projects.md)",
                baseline.squashes.len() - missing.len(),
                baseline.squashes.len(),
                baseline.migration.path.display(),
                missing.join(", "),
            )));
        }
        plan.record.push(baseline.migration.clone());
        drop.extend(baseline.squashes.iter().cloned());
    }
    plan.drop = drop.into_iter().collect();
    Ok(plan)
}

/// Record the baselines of `migrations` that replace the applied history, in one transaction.
/// Returns the versions recorded. The caller holds the project's advisory lock.
pub async fn recognise(
    client: &mut tokio_postgres::Client,
    migrations: &[Migration],
) -> Result<Vec<String>, ProjectError> {
    let baselines = baselines(migrations)?;
    if baselines.is_empty() {
        return Ok(Vec::new());
    }
    let applied: BTreeSet<String> = super::migrations::applied(client).await?.into_iter().map(|(v, _)| v).collect();
    let plan = plan(&baselines, &applied)?;
    if plan.record.is_empty() {
        return Ok(Vec::new());
    }
    let db = |e: tokio_postgres::Error| ProjectError::Db(format!("recording the squashed history: {e}"));
    let tx = client.transaction().await.map_err(db)?;
    for migration in &plan.record {
        let text = std::fs::read_to_string(&migration.path).map_err(|e| ProjectError::Io(migration.path.clone(), e))?;
        tx.execute(
            "insert into supabase_migrations.schema_migrations (version, name, statements) values ($1, $2, $3)",
            &[&migration.version, &migration.name, &split(&text)],
        )
        .await
        .map_err(db)?;
    }
    tx.execute("delete from supabase_migrations.schema_migrations where version = any($1)", &[&plan.drop])
        .await
        .map_err(db)?;
    tx.commit().await.map_err(db)?;
    let recorded: Vec<String> = plan.record.iter().map(|m| m.version.clone()).collect();
    tracing::info!(
        baselines = %plan.record.iter().map(|m| format!("{}_{}", m.version, m.name)).collect::<Vec<_>>().join(", "),
        squashed = plan.drop.len(),
        "project: the applied history is squashed: its baselines are recorded as applied, nothing was run"
    );
    Ok(recorded)
}

/// For `server migration list`: a line per set of squashed versions that baselines not applied
/// yet replace and the database holds, saying what the next start (or `db push`) does.
pub fn notes(baselines: &[Baseline], applied: &[String]) -> String {
    let applied: BTreeSet<String> = applied.iter().cloned().collect();
    // the baselines not applied, grouped by the versions they squash (the order of the folder)
    let mut groups: Vec<(&[String], Vec<&Migration>)> = Vec::new();
    for baseline in baselines.iter().filter(|b| !applied.contains(&b.migration.version)) {
        match groups.iter_mut().find(|(squashes, _)| *squashes == baseline.squashes.as_slice()) {
            Some((_, files)) => files.push(&baseline.migration),
            None => groups.push((&baseline.squashes, vec![&baseline.migration])),
        }
    }
    let span = |first: Option<&String>, last: Option<&String>| match (first, last) {
        (Some(a), Some(b)) if a != b => format!("{a} … {b}"),
        (Some(a), _) => a.clone(),
        _ => String::new(),
    };
    let mut out = String::new();
    for (squashes, files) in groups {
        let held = squashes.iter().filter(|v| applied.contains(*v)).count();
        if held == 0 {
            continue;
        }
        let what = if held == squashes.len() {
            "recorded as applied in their place at the next start or `server db push`".to_string()
        } else {
            format!("only {held} of the {} squashed versions are applied: the start refuses", squashes.len())
        };
        let names = match files.as_slice() {
            [one] => format!("{}_{}", one.version, one.name),
            many => format!(
                "{} ({} files)",
                span(many.first().map(|m| &m.version), many.last().map(|m| &m.version)),
                many.len()
            ),
        };
        out.push_str(&format!(
            "   {names} squash{} {} ({} versions): {what}\n",
            if files.len() == 1 { "es" } else { "" },
            span(squashes.iter().min(), squashes.iter().max()),
            squashes.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn migration(version: &str) -> Migration {
        Migration { version: version.into(), name: "base".into(), path: format!("/p/{version}_base.sql").into() }
    }

    fn baseline(version: &str, squashes: &[&str]) -> Baseline {
        Baseline { migration: migration(version), squashes: squashes.iter().map(|s| s.to_string()).collect() }
    }

    fn set(versions: &[&str]) -> BTreeSet<String> {
        versions.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_leading_comment_declares_the_squashed_versions_on_several_lines() {
        let text = "-- squashes: 1 2\n-- squashes: 3\n--\n-- what it is\n\ncreate table t (x int);\n-- squashes: 4\n";
        assert_eq!(declared(Path::new("a.sql"), text).unwrap(), vec!["1", "2", "3"]);
        assert!(declared(Path::new("a.sql"), "create table t (x int);").unwrap().is_empty());
        let err = declared(Path::new("a.sql"), "-- squashes: 1 v2\n").unwrap_err().to_string();
        assert!(err.contains("a.sql") && err.contains("\"v2\""), "{err}");
    }

    #[test]
    fn a_history_holding_every_squashed_version_records_the_baselines_and_drops_the_squashed_rows() {
        let all = [baseline("10", &["1", "2"]), baseline("11", &["1", "2"])];
        let plan = plan(&all, &set(&["1", "2", "5"])).unwrap();
        assert_eq!(plan.record, vec![migration("10"), migration("11")]);
        assert_eq!(plan.drop, vec!["1", "2"]);
    }

    #[test]
    fn an_empty_history_or_an_applied_baseline_changes_nothing() {
        let all = [baseline("10", &["1", "2"])];
        assert_eq!(plan(&all, &set(&[])).unwrap(), Plan::default());
        assert_eq!(plan(&all, &set(&["10", "1", "2"])).unwrap(), Plan::default());
    }

    #[test]
    fn a_history_holding_some_squashed_versions_is_refused_with_the_missing_ones() {
        let err = plan(&[baseline("10", &["1", "2", "3"])], &set(&["1"])).unwrap_err().to_string();
        assert!(err.contains("holds 1 of the 3 versions"), "{err}");
        assert!(err.contains("missing: 2, 3"), "{err}");
        assert!(err.contains("/p/10_base.sql"), "{err}");
    }

    #[test]
    fn the_list_notes_what_the_next_start_records() {
        let one = [baseline("10", &["1", "2"])];
        let note = notes(&one, &["1".into(), "2".into()]);
        assert_eq!(note, "   10_base squashes 1 … 2 (2 versions): recorded as applied in their place at the next start or `server db push`\n");
        assert_eq!(notes(&one, &["10".into()]), "");
        assert!(notes(&one, &["1".into()]).contains("only 1 of the 2"));
        let two = [baseline("10", &["1", "2"]), baseline("11", &["1", "2"])];
        assert!(notes(&two, &["1".into(), "2".into()]).starts_with("   10 … 11 (2 files) squash 1 … 2 (2 versions)"));
    }
}
