//! The Backups screen's API (Database section): the repository's backups and their state, a
//! backup taken now, a verification run now, and a restore into a separate folder, all through
//! the `backup` room's own parts (the same as `server backup …` and `server restore
//! --target-dir`). A restore of the live data folder is never offered here: it needs the server
//! stopped.
//!
//! Writes are audited (`backup.take`, `backup.verify`, `backup.restore`). Nothing here sends a
//! secret: the repository's passphrase and S3 keys stay in pgBackRest's configuration file.

use std::path::{Path, PathBuf};

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use crate::backup::{self, BackupError, Backups};
use crate::state::AppState;

/// Why a backup action failed, as the operator should read it.
fn refused(err: BackupError) -> StudioError {
    match err {
        BackupError::Io { .. } | BackupError::Database(_) => StudioError::internal(err),
        other => StudioError::BadRequest(other.to_string()),
    }
}

/// The server's backups, or why there are none.
fn backups_of(state: &AppState) -> Result<&Backups, StudioError> {
    state.backups.as_ref().ok_or_else(|| StudioError::BadRequest(off_reason(state)))
}

fn off_reason(state: &AppState) -> String {
    if state.config.database_url.is_some() {
        BackupError::External.to_string()
    } else {
        "backups are off for this server (BACKUP_ENABLED=false, or pgBackRest is missing: see the server's log)".into()
    }
}

/// `GET /studio/api/backups`: the backups (oldest first), the repository, and the state
/// `/health` tells (last success, archive lag, last verification).
pub async fn list(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let Some(backups) = state.backups.clone() else {
        return Ok(HttpResponse::Ok().json(json!({"enabled": false, "reason": off_reason(&state), "backups": []})));
    };
    let pgbackrest = backups.pgbackrest.clone();
    let info = web::block(move || pgbackrest.info()).await.map_err(StudioError::internal)?.map_err(refused)?;
    let list: Vec<Value> = info
        .backup
        .iter()
        .map(|b| {
            json!({
                "label": b.label,
                "type": b.kind,
                "started_at": b.timestamp.start,
                "stopped_at": b.timestamp.stop,
                "database_bytes": b.info.size,
                "stored_bytes": b.info.repository.size,
                "added_bytes": b.info.repository.delta,
            })
        })
        .collect();
    let archive = info.archive.first().map(|a| json!({"min": a.min, "max": a.max}));
    Ok(HttpResponse::Ok().json(json!({
        "enabled": true,
        "repository": backups.describe(),
        "encrypted": backups.settings.cipher_pass.is_some(),
        "backups": list,
        "archive": archive,
        "status": backup::status::summary(chrono::Utc::now().timestamp()),
    })))
}

#[derive(Deserialize)]
pub struct Take {
    /// `full`, `diff` or `incr`; `incr` when unset.
    #[serde(default)]
    kind: Option<String>,
}

/// `POST /studio/api/backups` `{kind}`: take a backup now; its label.
pub async fn take(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<Take>,
) -> Result<HttpResponse, StudioError> {
    let backups = backups_of(&state)?;
    let kind = body.kind.clone().unwrap_or_else(|| "incr".into());
    if !matches!(kind.as_str(), "full" | "diff" | "incr") {
        return Err(StudioError::BadRequest(format!("Unknown backup type {kind:?}: full, diff or incr")));
    }
    let client = state.pools.admin.get().await?;
    let started = std::time::Instant::now();
    let label = backup::schedule::take(backups, &client, &kind).await.map_err(refused)?;
    let seconds = started.elapsed().as_secs_f64();
    audit::record(&client, &op, "backup.take", Some(&label), json!({"type": kind, "seconds": seconds})).await?;
    Ok(HttpResponse::Created().json(json!({"label": label, "type": kind, "seconds": seconds})))
}

/// `POST /studio/api/backups/verify`: restore the latest backup into a scratch folder and check
/// it; what was found (a failed check is a 200 whose `ok` is false, with its failures).
pub async fn verify(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
) -> Result<HttpResponse, StudioError> {
    let backups = backups_of(&state)?;
    let v = backup::verify::run(backups).await.map_err(refused)?;
    let files = v.files.as_ref().map(|f| f.kept);
    let answer = json!({
        "label": v.label,
        "ok": v.ok(),
        "tables": v.tables,
        "rows": v.rows,
        "compared": v.compared,
        "files_checked": files,
        "failures": v.failures,
        "seconds": v.elapsed.as_secs_f64(),
    });
    let client = state.pools.admin.get().await?;
    audit::record(&client, &op, "backup.verify", Some(&v.label), json!({"ok": v.ok(), "failures": v.failures.len()}))
        .await?;
    Ok(HttpResponse::Ok().json(answer))
}

#[derive(Deserialize)]
pub struct Restore {
    /// An absolute path: a new folder, or an empty one.
    target_dir: String,
    /// A backup's label; else `time`; else the latest archived point.
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    time: Option<String>,
    /// The operator confirmed.
    #[serde(default)]
    confirm: bool,
}

/// Whether `target` may receive a restore beside the live data folder `data_dir`.
pub fn check_target(target: &str, data_dir: &Path) -> Result<PathBuf, StudioError> {
    let path = PathBuf::from(target.trim());
    if target.trim().is_empty() || !path.is_absolute() {
        return Err(StudioError::BadRequest("The target folder must be an absolute path".into()));
    }
    if path.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
        return Err(StudioError::BadRequest("The target folder must not contain '..'".into()));
    }
    let live = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let resolved = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    if resolved == live || resolved.starts_with(live.join("postgres")) || resolved.starts_with(live.join("storage")) {
        return Err(StudioError::BadRequest(
            "The target folder is the live data folder: restore into another folder (a restore of the live data \
             needs the server stopped: `server restore --yes`)"
                .into(),
        ));
    }
    Ok(path)
}

/// `POST /studio/api/backups/restore` `{target_dir, label | time, confirm: true}`: restore into
/// a separate folder, started on a free port for inspection while the server keeps running.
pub async fn restore(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<Restore>,
) -> Result<HttpResponse, StudioError> {
    backups_of(&state)?;
    if !body.confirm {
        return Err(StudioError::BadRequest("Confirm the restore (confirm: true)".into()));
    }
    let target_dir = check_target(&body.target_dir, &state.config.data_dir)?;
    let label = body.label.clone().filter(|l| !l.trim().is_empty());
    let time = body.time.clone().filter(|t| !t.trim().is_empty());
    let target = backup::restore::target(time, label).map_err(refused)?;
    let request = backup::restore::Request { target: target.clone(), target_dir: Some(target_dir.clone()), yes: false };
    let outcome = backup::restore::run(&state.config, request).await.map_err(refused)?;
    let files = outcome
        .files
        .as_ref()
        .map(|f| json!({"restored": f.copied, "bytes": f.bytes_copied, "missing": f.missing, "corrupt": f.corrupt}));
    let dir = outcome.data_dir.display().to_string();
    let answer = json!({
        "data_dir": dir,
        "url": outcome.url,
        "files": files,
        "slots_dropped": outcome.slots_dropped,
        "seconds": outcome.elapsed.as_secs_f64(),
        "stop_with": format!("DATA_DIR={dir} server db stop"),
    });
    let client = state.pools.admin.get().await?;
    audit::record(&client, &op, "backup.restore", Some(&dir), json!({"target": format!("{target:?}")})).await?;
    Ok(HttpResponse::Ok().json(answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_restore_goes_to_an_absolute_folder_other_than_the_live_data() {
        let data = Path::new("/srv/data");
        assert!(check_target("/srv/restores/monday", data).is_ok());
        assert!(check_target("/srv", data).is_ok(), "beside the data folder's own folders");
        for bad in ["", "restores/x", "/srv/data", "/srv/data/postgres", "/srv/data/storage/x", "/srv/restores/../data"]
        {
            assert!(check_target(bad, data).is_err(), "{bad:?} is refused");
        }
    }
}
