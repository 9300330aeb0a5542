//! Integration tests of the server: one binary, each test on a fresh database cloned from a
//! migrated template, talking to the real server over HTTP.

mod auth;
mod auth_refresh_batch;
mod backup;
mod foundation;
mod functions;
mod functions_deploy;
mod functions_limits;
mod fuzz;
mod helpers;
mod http_large_bodies;
mod keys;
mod memory;
mod metrics;
mod oauth_server;
mod oidc;
mod outbox;
mod phone;
mod rest;
mod rest_bodies;
mod rest_computed;
mod rest_domains;
mod rest_embedding;
mod rest_errors;
mod rest_openapi;
mod rest_responses;
mod rest_shared_connections;
mod seed;
mod site;
mod smtp_sink;
mod storage;
mod studio;
mod studio_auth;
mod supervise;
mod typegen;
mod webhooks;
