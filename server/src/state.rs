//! The state every handler may reach: configuration, keys, pools and each surface's own state.
//!
//! It lives apart from `startup` (which builds it) so that the endpoints sitting on top of the
//! surfaces (`health`, `site`) read it without importing the code that starts the server. No
//! surface imports it: a surface's handlers take their own state (`web::Data<RestState>`, …).

use std::sync::Arc;

use actix_web::web;

use crate::auth::AuthState;
use crate::config::Config;
use crate::db::Pools;
use crate::functions::FunctionsState;
use crate::keys::Keys;
use crate::realtime::Realtime;
use crate::rest::RestState;
use crate::storage::StorageState;

/// State shared by every handler.
pub struct AppState {
    pub config: Config,
    pub keys: Keys,
    pub pools: Pools,
    pub external_url: String,
    pub rest: web::Data<RestState>,
    pub auth: web::Data<AuthState>,
    pub realtime: Arc<Realtime>,
    pub storage: web::Data<StorageState>,
    pub functions: web::Data<FunctionsState>,
    /// The embedded cluster's data directory, when the server runs one.
    pub embedded_pgdata: Option<std::path::PathBuf>,
    /// The embedded cluster's backups, when it archives its WAL (the dashboard's Backups screen).
    pub backups: Option<crate::backup::Backups>,
}

impl AppState {
    /// Whether the embedded cluster runs (`None` with `DATABASE_URL`).
    pub fn embedded_running(&self) -> Option<bool> {
        self.embedded_pgdata.as_deref().map(crate::db::embedded::postmaster_alive)
    }
}
