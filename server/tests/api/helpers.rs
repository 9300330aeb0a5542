//! `spawn_app()`: the server on port 0 against a fresh database cloned from a migrated template.
//!
//! The cluster is `TEST_DATABASE_URL` when set (a superuser URL), else a private cluster the
//! tests start under the temp directory (socket only) and leave running for the next run
//! (`server db stop` with the same DATA_DIR stops it; `make test` does).

use std::sync::OnceLock;

use secrecy::{ExposeSecret, SecretString};
use server::config::Config;
use server::db::embedded::EmbeddedPostgres;
use server::keys::{random_secret, Keys};
use server::startup::Application;

pub struct TestCluster {
    pub admin_url: String,
    pub template: String,
}

static CLUSTER: OnceLock<TestCluster> = OnceLock::new();

/// Append `key=value` to a libpq URL.
pub fn with_param(url: &str, key: &str, value: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{key}={value}")
}

/// A connection of the test's own to `url` (its connection task spawned).
pub async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.expect("connect");
    tokio::spawn(conn);
    client
}

/// [`connect`] with `pg_stat_statements` there, to count the statements the server runs.
pub async fn connect_with_statements(url: &str) -> tokio_postgres::Client {
    let db = connect(url).await;
    db.batch_execute("create extension if not exists pg_stat_statements").await.expect("pg_stat_statements");
    db
}

/// Poll `check` every 100 ms for at most 15 s: its first answer, or `None`.
pub async fn eventually<T>(mut check: impl AsyncFnMut() -> Option<T>) -> Option<T> {
    for _ in 0..150 {
        if let Some(found) = check().await {
            return Some(found);
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    None
}

/// A port nobody listens on now, for a process the test starts.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// A child process killed (by its id) and reaped when dropped.
pub struct KillOnDrop(pub std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// moto's S3 server (`MOTO_SERVER`, else the one of the virtual environment `make setup-python`
/// builds) on 127.0.0.1:`port`, plain HTTP, stopped when dropped.
pub fn moto_server(port: u16) -> KillOnDrop {
    let bin = std::env::var("MOTO_SERVER").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../supabase-compat-tests/.venv/bin/moto_server").to_string()
    });
    assert!(std::path::Path::new(&bin).exists(), "no moto_server at {bin}: run `make setup-python` or set MOTO_SERVER");
    let child = std::process::Command::new(bin)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start moto_server");
    KillOnDrop(child)
}

/// Directory of the test cluster.
pub fn test_data_dir() -> std::path::PathBuf {
    std::env::var_os("TEST_DATA_DIR")
        .map(Into::into)
        .unwrap_or_else(|| std::env::temp_dir().join("server-test-cluster"))
}

pub fn cluster() -> &'static TestCluster {
    CLUSTER.get_or_init(|| {
        std::thread::spawn(|| {
            let admin_url = match std::env::var("TEST_DATABASE_URL") {
                Ok(url) => url,
                Err(_) => {
                    let cluster = EmbeddedPostgres::new(&test_data_dir(), 0, None).expect("test cluster");
                    cluster.start().expect("start test cluster");
                    cluster.socket_url()
                }
            };
            let template = format!("tpl_{}", &random_secret()[..12]);
            let rt = tokio::runtime::Runtime::new().expect("runtime");
            rt.block_on(async {
                let client = connect(&admin_url).await;
                client.batch_execute(&format!("create database {template}")).await.expect("create template");
                let url = SecretString::from(with_param(&admin_url, "dbname", &template));
                let mut config = base_config();
                config.database_url = Some(url.clone());
                let keys = Keys::load_or_generate(&config).expect("keys");
                let pools = server::db::Pools::new(&url, &keys.derived_password("authenticator"), 2).expect("pools");
                server::startup::migrate_and_prepare(&pools, &keys).await.expect("migrate template");
                server::startup::apply_project(&config, &pools).await.expect("the rental project on the template");
                pools.admin.close();
                pools.request.close();
            });
            TestCluster { admin_url, template }
        })
        .join()
        .expect("cluster set-up thread")
    })
}

/// A configuration for tests: port 0, a fresh JWT secret, a temporary data directory.
pub fn base_config() -> Config {
    use clap::Parser;
    let mut cli = server::config::Cli::parse_from(["server"]);
    cli.config.port = 0;
    cli.config.http_workers = Some(1);
    cli.config.db_pool_size = 4;
    cli.config.jwt_secret = Some(SecretString::from(random_secret()));
    cli.config.data_dir = std::env::temp_dir().join(format!("server-test-{}", &random_secret()[..12]));
    cli.config.web_dir = "/nonexistent".into();
    cli.config.project = Some(rental_project());
    // The request log writes beside every test's statements: on only where a test asks for it.
    cli.config.request_log.enabled = false;
    // The reports' sampler too: on only in the test of the reports' history.
    cli.config.studio.reports_sample_secs = 0;
    cli.config
}

/// The rental site's Supabase project, which the tests run unless they say otherwise.
pub fn rental_project() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/supabase")
}

pub struct TestApp {
    pub address: String,
    pub anon_key: String,
    pub service_key: String,
    /// `sb_publishable_…` and `sb_secret_…`.
    pub publishable_key: String,
    pub secret_key: String,
    pub jwt_secret: String,
    pub db_url: String,
    pub http: reqwest::Client,
    pub rest: actix_web::web::Data<server::rest::RestState>,
    pub auth: actix_web::web::Data<server::auth::AuthState>,
    pub storage: actix_web::web::Data<server::storage::StorageState>,
}

/// Create a fresh database from the template, retrying while the template is still in use.
pub async fn fresh_database() -> String {
    let cluster = cluster();
    let name = format!("test_{}", &random_secret()[..16]);
    let client = connect(&cluster.admin_url).await;
    for attempt in 0.. {
        match client.batch_execute(&format!("create database {name} template {}", cluster.template)).await {
            Ok(()) => break,
            Err(err) if attempt < 50 => {
                let _ = err;
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(err) => panic!("cannot create test database: {err}"),
        }
    }
    with_param(&cluster.admin_url, "dbname", &name)
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

pub async fn spawn_app_with(customize: impl FnOnce(&mut Config)) -> TestApp {
    spawn_app_on(fresh_database().await, customize).await
}

/// The server started on the database `db_url` (prepared by the test).
pub async fn spawn_app_on(db_url: String, customize: impl FnOnce(&mut Config)) -> TestApp {
    let mut config = base_config();
    config.database_url = Some(SecretString::from(db_url.clone()));
    customize(&mut config);
    let jwt_secret = config.jwt_secret.as_ref().map(|s| s.expose_secret().to_string()).unwrap_or_default();
    let app = Application::build(config).await.expect("build app");
    let address = format!("http://127.0.0.1:{}", app.port());
    let keys = app.state().keys.clone();
    let rest = app.state().rest.clone();
    let auth = app.state().auth.clone();
    let storage = app.state().storage.clone();
    tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        anon_key: keys.anon_key.expose_secret().to_string(),
        service_key: keys.service_role_key.expose_secret().to_string(),
        publishable_key: keys.api_keys.publishable.expose_secret().to_string(),
        secret_key: keys.api_keys.secret.expose_secret().to_string(),
        jwt_secret,
        db_url,
        http: reqwest::Client::new(),
        rest,
        auth,
        storage,
    }
}

impl TestApp {
    /// Run SQL as the database owner (arrange steps).
    pub async fn admin_sql(&self, sql: &str) {
        let client = connect(&self.db_url).await;
        client.batch_execute(sql).await.expect("admin sql");
    }

    /// One row of `sql` run as the database owner (assert steps).
    pub async fn admin_query_one(&self, sql: &str) -> tokio_postgres::Row {
        let client = connect(&self.db_url).await;
        client.query_one(sql, &[]).await.expect("admin query")
    }

    /// Run DDL as the owner, then reload the REST schema cache.
    pub async fn ddl(&self, sql: &str) {
        self.admin_sql(sql).await;
        self.rest.reload().await.expect("schema reload");
    }

    /// A `/rest/v1` request with the anon key and, when given, a bearer token.
    pub fn rest_req(&self, method: reqwest::Method, path: &str, bearer: Option<&str>) -> reqwest::RequestBuilder {
        let mut req =
            self.http.request(method, format!("{}/rest/v1{}", self.address, path)).header("apikey", &self.anon_key);
        if let Some(token) = bearer {
            req = req.bearer_auth(token);
        }
        req
    }

    /// A user access token for `sub` (role authenticated).
    pub fn user_token(&self, sub: &str) -> String {
        self.sign(
            serde_json::json!({"sub": sub, "role": "authenticated", "aud": "authenticated", "exp": 4_000_000_000i64}),
        )
    }

    /// `GET /auth/v1/user` with `token`: the user.
    pub async fn auth_user(&self, token: &str) -> serde_json::Value {
        let res =
            self.http.get(format!("{}/auth/v1/user", self.address)).bearer_auth(token).send().await.expect("user");
        assert_eq!(res.status(), reqwest::StatusCode::OK, "GET /auth/v1/user");
        res.json().await.expect("user json")
    }

    /// `POST /auth/v1{path}` as supabase-js sends it (the anon key, API version 2024-01-01): the
    /// status and the JSON answer (`null` when there is none).
    pub async fn auth_post(&self, path: &str, body: serde_json::Value) -> (reqwest::StatusCode, serde_json::Value) {
        send_json(self.auth_request(path).header("apikey", &self.anon_key), body).await
    }

    /// [`auth_post`](Self::auth_post) from the client address `ip` (`x-forwarded-for`, the header
    /// the tests' rate limits trust).
    pub async fn auth_post_from(
        &self,
        ip: &str,
        path: &str,
        body: serde_json::Value,
    ) -> (reqwest::StatusCode, serde_json::Value) {
        send_json(self.auth_request(path).header("apikey", &self.anon_key).header("x-forwarded-for", ip), body).await
    }

    /// `POST /auth/v1{path}` with `token` as the bearer and no API key (the MFA calls of a
    /// signed-in user): the status and the JSON answer (`null` when there is none).
    pub async fn auth_post_as(
        &self,
        token: &str,
        path: impl AsRef<str>,
        body: serde_json::Value,
    ) -> (reqwest::StatusCode, serde_json::Value) {
        send_json(self.auth_request(path.as_ref()).bearer_auth(token), body).await
    }

    /// `GET /auth/v1/settings`.
    pub async fn auth_settings(&self) -> serde_json::Value {
        let res = self.http.get(format!("{}/auth/v1/settings", self.address)).send().await.expect("settings");
        res.json().await.expect("settings json")
    }

    fn auth_request(&self, path: &str) -> reqwest::RequestBuilder {
        self.http.post(format!("{}/auth/v1{path}", self.address)).header("x-supabase-api-version", "2024-01-01")
    }

    /// The development inbox's messages to `to` (an address, or `+<digits>` for texts), newest first.
    pub async fn inbox(&self, to: &str) -> Vec<serde_json::Value> {
        let res: serde_json::Value = self
            .http
            .get(format!("{}/inbox/api/messages", self.address))
            .query(&[("to", to)])
            .send()
            .await
            .expect("inbox")
            .json()
            .await
            .expect("inbox json");
        res["messages"].as_array().cloned().unwrap_or_default()
    }

    /// An HS256 token signed with this app's secret.
    pub fn sign(&self, claims: serde_json::Value) -> String {
        sign_with(&self.jwt_secret, claims)
    }
}

/// The status and the JSON body of `res` (`null` when the body is not JSON).
pub async fn json_of(res: reqwest::Response) -> (u16, serde_json::Value) {
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(serde_json::Value::Null))
}

async fn send_json(req: reqwest::RequestBuilder, body: serde_json::Value) -> (reqwest::StatusCode, serde_json::Value) {
    let res = req.json(&body).send().await.expect("request");
    let status = res.status();
    (status, res.json().await.unwrap_or(serde_json::Value::Null))
}

/// Every connection of `pool`, held at once: each can then be asked what its session holds
/// (prepared statements, plans), none left out.
pub async fn every_connection(pool: &deadpool_postgres::Pool) -> Vec<deadpool_postgres::Object> {
    let mut connections = Vec::new();
    for _ in 0..pool.status().max_size {
        connections.push(pool.get().await.expect("a pool connection"));
    }
    connections
}

pub fn sign_with(secret: &str, claims: serde_json::Value) -> String {
    jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(secret.as_bytes()),
    )
    .expect("sign")
}

/// The server binary run as its own process (for tests about the process itself): port 0, no
/// web app, no inherited `DATABASE_URL`, no backups (`BACKUP_ENABLED=true` in `env` for them), plus `env`. Returns it with the API URL and anon key it
/// prints first; it is killed when dropped.
pub async fn spawn_binary(env: &[(&str, &str)]) -> (tokio::process::Child, String, String) {
    use tokio::io::AsyncBufReadExt;
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_server"));
    command
        .env_remove("DATABASE_URL")
        .env("PORT", "0")
        .env("WEB_DIR", "/nonexistent")
        .env("RUST_LOG", "warn")
        .env("BACKUP_ENABLED", "false")
        .env("SUPABASE_PROJECT_DIR", rental_project())
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("start the server binary");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let (mut url, mut anon) = (None, None);
    while url.is_none() || anon.is_none() {
        let line = tokio::time::timeout(std::time::Duration::from_secs(120), lines.next_line())
            .await
            .expect("the server starts")
            .expect("stdout")
            .expect("a line");
        if let Some(u) = line.strip_prefix("API URL: ") {
            url = Some(u.to_string());
        }
        if let Some(k) = line.strip_prefix("anon key: ") {
            anon = Some(k.to_string());
        }
    }
    // Keep reading what the server still prints, so its stdout never becomes a closed pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url.unwrap_or_default(), anon.unwrap_or_default())
}
