//! The realtime inspector's backend: a short-lived access token for the caller the operator
//! chose (an app user or anon) with the publishable key, so the page joins `/realtime/v1` with
//! realtime-js as that caller (never the service key: the browser holds nothing that bypasses
//! row-level security); the tables of the `supabase_realtime` publication; and the sockets and
//! channels of this instance and of the peers it hears on the relay. A minted token is audited
//! (the operator acts as someone else with it). Tokens are minted by `tokens`.

use std::sync::atomic::Ordering;

use actix_web::{web, HttpResponse};
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde_json::json;

use super::audit;
use super::error::StudioError;
use super::session::OperatorSession;
use super::tokens::{self, Caller};
use crate::state::AppState;

/// The tables of the publication, with whether each sends old rows on update and delete.
const PUBLICATION: &str = "select coalesce(json_agg(json_build_object('schema', t.schemaname, 'table', t.tablename, \
     'replica_identity', case c.relreplident when 'f' then 'full' when 'd' then 'default' \
       when 'i' then 'index' else 'nothing' end) order by t.schemaname, t.tablename), '[]'::json)::text, \
     exists (select 1 from pg_publication where pubname = 'supabase_realtime') \
   from pg_publication_tables t \
   join pg_namespace n on n.nspname = t.schemaname \
   join pg_class c on c.relnamespace = n.oid and c.relname = t.tablename \
   where t.pubname = 'supabase_realtime'";

/// `GET /studio/api/realtime/publication`: `{exists, tables: [{schema, table, replica_identity}]}`.
pub async fn publication(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let client = state.pools.admin.get().await?;
    let row = client.query_one(PUBLICATION, &[]).await?;
    let tables: serde_json::Value = serde_json::from_str(row.get::<_, &str>(0)).map_err(StudioError::internal)?;
    Ok(HttpResponse::Ok().json(json!({ "exists": row.get::<_, bool>(1), "tables": tables })))
}

/// `GET /studio/api/realtime/instances`: this instance's sockets, channels and topics, and the
/// peers with the counts of their last hello.
pub async fn instances(state: web::Data<AppState>) -> Result<HttpResponse, StudioError> {
    let rt = &state.realtime;
    let topics = rt.hub.topics();
    Ok(HttpResponse::Ok().json(json!({
        "this": {
            "instance": rt.relay.instance,
            "connections": rt.connections.load(Ordering::Relaxed),
            "channels": rt.hub.channel_count(),
            "max_connections": rt.config.max_concurrent_users,
            "topics": topics,
        },
        "peers": rt.relay.peers(),
    })))
}

#[derive(Deserialize)]
pub struct TokenBody {
    run_as: Caller,
}

/// `POST /studio/api/realtime/token` `{run_as: "anon" | {user: id}}`: `{apikey, access_token,
/// expires_at, role, sub}`; the apikey is the publishable one (it names the project, grants
/// only what anon may), the token lives `tokens::LIFETIME_SECS`.
pub async fn token(
    state: web::Data<AppState>,
    op: web::ReqData<OperatorSession>,
    body: web::Json<TokenBody>,
) -> Result<HttpResponse, StudioError> {
    let minted = tokens::mint(&state, &body.run_as).await?;
    let client = state.pools.admin.get().await?;
    audit::record(&client, &op, "realtime.token", Some(&minted.subject()), json!({ "role": minted.role })).await?;
    Ok(HttpResponse::Ok().insert_header(("Cache-Control", "no-store")).json(json!({
        "apikey": state.keys.api_keys.publishable.expose_secret(),
        "access_token": minted.token,
        "expires_at": minted.expires_at,
        "role": minted.role,
        "sub": minted.sub,
    })))
}
