//! A Supabase-compatible backend: `/auth/v1`, `/rest/v1`, `/storage/v1`, `/realtime/v1` and `/functions/v1`
//! served by one binary over one PostgreSQL database, where row-level security decides.
//!
//! The binary (`main.rs`) only parses configuration and calls [`startup::Application::build`].

pub mod auth;
pub mod backup;
pub mod config;
pub mod config_doc;
pub mod cors;
pub mod db;
pub mod functions;
pub mod gate;
pub mod health;
pub mod jwt;
pub mod keys;
pub mod listener;
pub mod log_writer;
pub mod metrics;
pub mod outbox;
pub mod panic_guard;
pub mod project;
pub mod realtime;
pub mod request_log;
pub mod rest;
pub mod routes;
pub mod scrape;
pub mod sealed;
pub mod seed;
pub mod signing_keys;
pub mod site;
pub mod startup;
pub mod state;
pub mod storage;
pub mod studio;
pub mod telemetry;

#[cfg(test)]
mod import_rule;
