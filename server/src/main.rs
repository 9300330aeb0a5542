//! The `server` binary: parse configuration, then serve, migrate, print keys or manage the
//! embedded database. All logic lives in the library.

use clap::Parser;
use secrecy::ExposeSecret;
use server::config::{Cli, Command, DbAction};
use server::db::embedded::EmbeddedPostgres;
use server::db::{Pools, AUTHENTICATOR};
use server::keys::Keys;
use server::startup::{self, Application};

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    server::telemetry::init(&cli.config.log_format);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let config = cli.config;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let app = Application::build(config.clone()).await?;
            let url = config.external_url(app.port());
            print_keys(&url, &app.state().keys);
            app.run_until_stopped().await?;
        }
        Command::Migrate => {
            let keys = Keys::load_or_generate(&config)?;
            let cfg = config.clone();
            let database = tokio::task::spawn_blocking(move || startup::prepare_database(&cfg)).await??;
            let pools = Pools::new(&database.url, &keys.derived_password(AUTHENTICATOR), 2)?;
            let applied = startup::migrate_and_prepare(&pools, &keys).await?;
            println!("{} migration(s) applied", applied.len());
            if let Some(cluster) = database.embedded {
                drop(pools);
                tokio::task::spawn_blocking(move || cluster.stop()).await??;
            }
        }
        Command::Seed => {
            let keys = Keys::load_or_generate(&config)?;
            let cfg = config.clone();
            let database = tokio::task::spawn_blocking(move || startup::prepare_database(&cfg)).await??;
            let pools = Pools::new(&database.url, &keys.derived_password(AUTHENTICATOR), 2)?;
            startup::migrate_and_prepare(&pools, &keys).await?;
            let store = server::storage::backend::build(&config.storage, &config.data_dir)?;
            let sink = server::seed::ImageSink { store, bucket: "vehicles".into() };
            let report = server::seed::run(&pools.admin, &config.seed, &sink).await?;
            println!("seed: {} vehicles, {} images stored", report.vehicles, report.images);
            for account in &report.created {
                println!(
                    "created {} account: {}  password: {}  (shown once)",
                    account.role, account.email, account.password
                );
            }
            drop(pools);
            if let Some(cluster) = database.embedded {
                tokio::task::spawn_blocking(move || cluster.stop()).await??;
            }
        }
        Command::Keys => {
            let keys = Keys::load_or_generate(&config)?;
            print_keys(&config.external_url(config.port), &keys);
        }
        Command::Db { action } => {
            let cluster = EmbeddedPostgres::new(&config.data_dir, config.db_port, config.pg_bin_dir.as_deref())?;
            tokio::task::spawn_blocking(move || match action {
                DbAction::Start => cluster.start().map(|()| println!("{}", cluster.socket_url())),
                DbAction::Stop => cluster.stop(),
                DbAction::Url => {
                    println!("{}", cluster.socket_url());
                    Ok(())
                }
            })
            .await??;
        }
    }
    Ok(())
}

/// Prints where the server listens and its keys. A closed stdout (the reader went away) must not
/// end a running server, so write errors are ignored here rather than panicking as `println!` does.
fn print_keys(url: &str, keys: &Keys) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "API URL: {url}");
    let _ = writeln!(out, "anon key: {}", keys.anon_key.expose_secret());
    let _ = writeln!(out, "service_role key: {}", keys.service_role_key.expose_secret());
    let _ = out.flush();
}
