//! The `server` binary: parse configuration, then serve, migrate, print keys or manage the
//! embedded database. All logic lives in the library.

use clap::Parser;
use secrecy::ExposeSecret;
use server::config::{
    Cli, Command, Config, DbAction, FunctionsAction, GenAction, KeysAction, MigrationAction, SecretsAction,
};
use server::db::embedded::EmbeddedPostgres;
use server::db::AUTHENTICATOR;
use server::keys::Keys;
use server::startup::{self, Application};

/// mimalloc instead of glibc's malloc: a request allocates and frees many small buffers across
/// threads, where glibc spent about a seventh of the server's CPU (its arenas, `malloc_consolidate`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_arena_eager_commit`: its place in mimalloc 3's `mi_option_t` (`mimalloc.h`), which
/// the Rust bindings do not name.
#[cfg(target_os = "linux")]
const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// Run before `main`, before the first allocation reserves mimalloc's first arena: its arenas
/// are committed as they are used rather than up front, which kept the idle server's resident
/// memory near the system allocator's (about 41 against 31.5 MB, instead of 90). The index is
/// mimalloc's ABI (deprecated options keep their places); `Cargo.lock` pins the version.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static CONFIGURE_ALLOCATOR: extern "C" fn() = configure_allocator;

#[cfg(target_os = "linux")]
extern "C" fn configure_allocator() {
    // SAFETY: sets one of mimalloc's options by its index; it only stores the value.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0) };
}

fn main() -> std::process::ExitCode {
    // A project's config.toml gives settings the environment and the flags have not set: read
    // it first, then parse (a flag or a variable still wins over the file).
    let args: Vec<String> = std::env::args().collect();
    if std::env::var_os("SUPABASE_PROJECT_DIR").is_some_and(|v| v.is_empty()) {
        // Set and empty: no project (clap would refuse an empty value).
        std::env::remove_var("SUPABASE_PROJECT_DIR");
    }
    match server::project::settings_from_args(&args) {
        Ok(Some((_, settings))) => {
            for (name, value) in settings {
                // Still one thread: nothing else reads the environment yet.
                std::env::set_var(name, value);
            }
        }
        Ok(None) => {}
        Err(err) => {
            eprintln!("error: {err}");
            return std::process::ExitCode::FAILURE;
        }
    }
    let cli = Cli::parse();
    let _traces = server::telemetry::init(&cli.config.log_format);
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
            if let Some(line) = app.backups_announcement() {
                println!("{line}");
            }
            println!("Studio: {url}/studio");
            print_first_operator(&app.state().pools).await;
            app.run_until_stopped().await?;
        }
        Command::Migrate | Command::Db { action: DbAction::Push } => {
            let keys = Keys::load_or_generate(&config)?;
            let cfg = config.clone();
            let database = tokio::task::spawn_blocking(move || startup::prepare_database(&cfg)).await??;
            let pools = database.pools(&keys.derived_password(AUTHENTICATOR), 2)?;
            let applied = startup::migrate_and_prepare(&pools, &keys).await?;
            println!("{} migration(s) applied", applied.len());
            let project = startup::apply_project(&config, &pools).await?;
            for name in &project {
                println!("Applying migration {name}.sql...");
            }
            if config.project.is_some() || server::project::locate(None).is_some() {
                println!("{} project migration(s) applied", project.len());
            }
            if let Some(cluster) = database.embedded {
                drop(pools);
                tokio::task::spawn_blocking(move || cluster.stop()).await??;
            }
        }
        Command::Db { action: DbAction::Reset { force } } => {
            if config.database_url.is_some() && !force {
                return Err("`db reset` drops and creates again the database DATABASE_URL names, with all its data: \
                            add --force to do it"
                    .into());
            }
            let keys = Keys::load_or_generate(&config)?;
            let cfg = config.clone();
            let database = tokio::task::spawn_blocking(move || startup::prepare_database(&cfg)).await??;
            let name = server::project::reset::recreate(&database.direct).await?;
            println!("Recreated the database {name}");
            let pools = database.pools(&keys.derived_password(AUTHENTICATOR), 2)?;
            startup::migrate_and_prepare(&pools, &keys).await?;
            for migration in startup::apply_project(&config, &pools).await? {
                println!("Applying migration {migration}.sql...");
            }
            println!("Finished server db reset.");
            drop(pools);
            if let (Some(cluster), true) = (database.embedded, database.started_embedded) {
                tokio::task::spawn_blocking(move || cluster.stop()).await??;
            }
        }
        Command::Db { action: DbAction::Dump { data_only, schema, file } } => {
            let cfg = config.clone();
            let database = tokio::task::spawn_blocking(move || startup::prepare_database(&cfg)).await??;
            let bin = server::db::embedded::find_bin_dir(config.pg_bin_dir.as_deref())
                .ok_or("pg_dump was not found: install PostgreSQL's client or set PG_BIN_DIR")?;
            let mut dump = std::process::Command::new(bin.join("pg_dump"));
            dump.arg("--dbname").arg(database.direct.expose_secret()).arg("--no-owner");
            dump.args(if data_only { &["--data-only", "--inserts"][..] } else { &["--schema-only"][..] });
            if schema.is_empty() {
                for platform in server::project::PLATFORM_SCHEMAS {
                    dump.arg("--exclude-schema").arg(platform);
                }
            } else {
                for name in &schema {
                    dump.arg("--schema").arg(name);
                }
            }
            if let Some(file) = &file {
                dump.arg("--file").arg(file);
            }
            let status = tokio::task::spawn_blocking(move || dump.status()).await??;
            if let (Some(cluster), true) = (database.embedded, database.started_embedded) {
                tokio::task::spawn_blocking(move || cluster.stop()).await??;
            }
            if !status.success() {
                return Err(format!("pg_dump failed ({status})").into());
            }
        }
        Command::Migration { action: MigrationAction::New { name } } => {
            let dir = server::project::locate(config.project.as_deref()).unwrap_or_else(|| "supabase".into());
            let path = server::project::migrations::create(&dir, &name)?;
            println!("Created new migration at {}", path.display());
        }
        Command::Functions { action: FunctionsAction::New { name } } => {
            let dir = server::project::locate(config.project.as_deref()).unwrap_or_else(|| "supabase".into());
            let path = server::functions::scaffold::create(&dir, &name)?;
            println!("Created new function at {}", path.display());
        }
        Command::Functions { action: FunctionsAction::Invoke { name, body } } => {
            let keys = Keys::load_or_generate(&config)?;
            let url = config.external_url(config.port);
            let (status, text) =
                server::functions::cli::invoke(&url, keys.anon_key.expose_secret(), &name, body.as_deref()).await?;
            println!("{status}\n{text}");
            if status >= 400 {
                return Err(format!("the function answered {status}").into());
            }
        }
        Command::Functions { action } => functions_command(&config, action).await?,
        Command::Secrets { action } => secrets_command(&config, action).await?,
        Command::Migration { action: MigrationAction::List } => {
            let dir = server::project::locate(config.project.as_deref())
                .ok_or("no project folder: give --project DIR (or SUPABASE_PROJECT_DIR), or run where ./supabase is")?;
            let files = server::project::migrations::local(&dir)?;
            let baselines = server::project::squash::baselines(&files)?;
            let local: Vec<String> = files.into_iter().map(|m| m.version).collect();
            let keys = Keys::load_or_generate(&config)?;
            let cfg = config.clone();
            let database = tokio::task::spawn_blocking(move || startup::prepare_database(&cfg)).await??;
            let pools = database.pools(&keys.derived_password(AUTHENTICATOR), 2)?;
            let client = pools.direct.get().await?;
            let remote: Vec<String> =
                server::project::migrations::applied(&client).await?.into_iter().map(|(v, _)| v).collect();
            print!("{}", server::project::migrations::list_table(&local, &remote));
            print!("{}", server::project::squash::notes(&baselines, &remote));
            drop(client);
            drop(pools);
            if let (Some(cluster), true) = (database.embedded, database.started_embedded) {
                tokio::task::spawn_blocking(move || cluster.stop()).await??;
            }
        }
        Command::Seed => {
            let keys = Keys::load_or_generate(&config)?;
            let cfg = config.clone();
            let database = tokio::task::spawn_blocking(move || startup::prepare_database(&cfg)).await??;
            let pools = database.pools(&keys.derived_password(AUTHENTICATOR), 2)?;
            startup::migrate_and_prepare(&pools, &keys).await?;
            startup::apply_project(&config, &pools).await?;
            let dir = server::project::locate(config.project.as_deref())
                .ok_or("no project folder: give --project DIR (or SUPABASE_PROJECT_DIR), or run where ./supabase is")?;
            let project = server::project::Project::open(&dir)?;
            let store = server::storage::backend::build(&config.storage, &config.data_dir)?.store;
            let report = server::seed::run(&project, &pools.direct, &store, &|name| std::env::var(name).ok()).await?;
            for refused in &report.objects.refused {
                eprintln!("seed: not stored: {refused}");
            }
            println!(
                "seed: {} file(s) run, {} object(s) stored, {} unchanged",
                report.files.len(),
                report.objects.stored.len(),
                report.objects.unchanged
            );
            for account in &report.created {
                println!(
                    "created {} account: {}  password: {}  (shown once)",
                    account.label, account.email, account.password
                );
            }
            print_first_operator(&pools).await;
            drop(pools);
            if let Some(cluster) = database.embedded {
                tokio::task::spawn_blocking(move || cluster.stop()).await??;
            }
        }
        Command::Gen { action } => gen(&config, action).await?,
        Command::Backup { action } => server::backup::commands::backup(&config, action).await?,
        Command::Restore { to, to_backup, target_dir, yes } => {
            server::backup::commands::restore(&config, to, to_backup, target_dir, yes).await?
        }
        Command::Studio { action: server::studio::StudioAction::Operators { action } } => {
            studio_operators(&config, action).await?
        }
        Command::Keys { action: None } => {
            let keys = Keys::load_or_generate(&config)?;
            print_keys(&config.external_url(config.port), &keys);
        }
        Command::Keys { action: Some(action) } => signing_keys(&config, action).await?,
        Command::Db { action } => {
            let cluster = EmbeddedPostgres::new(&config.data_dir, config.db_port, config.pg_bin_dir.as_deref())?;
            // Archives only when BACKUP_ENABLED says so or the data directory has a repository.
            let (cluster, backups) = server::backup::archive::prepare(&config, cluster, false);
            tokio::task::spawn_blocking(move || match action {
                // Taken by the arms above.
                DbAction::Push | DbAction::Reset { .. } | DbAction::Dump { .. } => Ok(()),
                DbAction::Start => {
                    cluster.start()?;
                    // An archiving cluster's WAL waits for the stanza: make sure it exists.
                    if let Some(Err(err)) = backups.map(|b| b.pgbackrest.stanza_create()) {
                        eprintln!("warning: WAL archiving is on but the stanza could not be created: {err}");
                    }
                    println!("{}", cluster.socket_url());
                    Ok(())
                }
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

/// `server keys signing|new|rotate|revoke`: on the database the server uses (the embedded cluster
/// is started for the command when it is not running, and stopped again after).
async fn signing_keys(config: &Config, action: KeysAction) -> Result<(), Box<dyn std::error::Error>> {
    use server::signing_keys as sk;
    let keys = Keys::load_or_generate(config)?;
    let cfg = config.clone();
    let database = tokio::task::spawn_blocking(move || startup::prepare_database(&cfg)).await??;
    let pools = database.pools(&keys.derived_password(AUTHENTICATOR), 2)?;
    startup::migrate_and_prepare(&pools, &keys).await?;
    let mut client = pools.admin.get().await?;
    let outcome = match action {
        KeysAction::Signing => sk::list(&client).await.map(|keys| {
            println!("{:<38}{:<11}{:<17}created (UTC)", "id (kid)", "algorithm", "status");
            for key in keys {
                println!("{:<38}{:<11}{:<17}{}", key.id.to_string(), key.algorithm, key.status, key.created_at);
            }
        }),
        KeysAction::New { pem, jwk } => {
            let key = match (pem, jwk) {
                (Some(path), _) => sk::new_key_from_pem(&std::fs::read_to_string(&path)?),
                (None, Some(path)) => sk::new_key_from_jwk(&std::fs::read_to_string(&path)?),
                (None, None) => sk::generate_es256(),
            }?;
            sk::add_standby(&client, &key).await.map(|()| println!("standby {} key {}", key.algorithm, key.id))
        }
        KeysAction::Rotate => sk::rotate(&mut client).await.map(|id| println!("key {id} now signs access tokens")),
        KeysAction::Revoke { id } => sk::revoke(&client, id).await.map(|()| println!("key {id} revoked")),
        KeysAction::S3New { description } => {
            let (id, secret) = server::storage::s3::new_credentials(&client, &description).await?;
            println!("S3 access key id: {id}\nS3 secret access key: {secret}");
            Ok(())
        }
        KeysAction::S3List => {
            for (id, description, created) in server::storage::s3::list_credentials(&client).await? {
                println!("{id:<24}{created}  {description}");
            }
            Ok(())
        }
        KeysAction::S3Revoke { access_key_id } => {
            let gone = server::storage::s3::revoke_credentials(&client, &access_key_id).await?;
            println!(
                "{}",
                if gone {
                    format!("S3 access key {access_key_id} revoked")
                } else {
                    format!("no S3 access key {access_key_id}")
                }
            );
            Ok(())
        }
    };
    drop(client);
    drop(pools);
    if let (Some(cluster), true) = (database.embedded, database.started_embedded) {
        tokio::task::spawn_blocking(move || cluster.stop()).await??;
    }
    Ok(outcome?)
}

/// The database the server uses, migrated, for a command: the embedded cluster is started for
/// it when it is not running (`release_database` stops it again).
async fn command_database(
    config: &Config,
) -> Result<(Keys, startup::Database, server::db::Pools), Box<dyn std::error::Error>> {
    let keys = Keys::load_or_generate(config)?;
    let cfg = config.clone();
    let database = tokio::task::spawn_blocking(move || startup::prepare_database(&cfg)).await??;
    let pools = database.pools(&keys.derived_password(AUTHENTICATOR), 2)?;
    startup::migrate_and_prepare(&pools, &keys).await?;
    Ok((keys, database, pools))
}

/// Close a command's connections, and stop the embedded cluster if the command started it.
async fn release_database(
    database: startup::Database,
    pools: server::db::Pools,
) -> Result<(), Box<dyn std::error::Error>> {
    drop(pools);
    if let (Some(cluster), true) = (database.embedded, database.started_embedded) {
        tokio::task::spawn_blocking(move || cluster.stop()).await??;
    }
    Ok(())
}

/// `server functions list|deploy|delete|logs`: on the database the server uses (the embedded
/// cluster is started for the command when it is not running, and stopped again after); a
/// running server picks the change up through its NOTIFY listener.
async fn functions_command(config: &Config, action: FunctionsAction) -> Result<(), Box<dyn std::error::Error>> {
    use server::functions::{cli, store};
    let (_, database, pools) = command_database(config).await?;
    let mut client = pools.admin.get().await?;
    let outcome: Result<(), Box<dyn std::error::Error>> = async {
        match action {
            FunctionsAction::List => print!("{}", cli::list_table(&store::list(&client).await?)),
            FunctionsAction::Deploy { name, no_verify_jwt } => {
                let project_dir = server::project::locate(config.project.as_deref());
                let functions_dir = config
                    .functions
                    .dir
                    .clone()
                    .or_else(|| project_dir.as_ref().map(|p| p.join("functions")))
                    .ok_or("no functions folder: give --project DIR (or SUPABASE_PROJECT_DIR) or FUNCTIONS_DIR")?;
                let settings = match &project_dir {
                    Some(dir) => {
                        server::project::Project::open(dir)?.config.functions.remove(&name).unwrap_or_default()
                    }
                    None => Default::default(),
                };
                let deploy = cli::bundle(&functions_dir, project_dir.as_deref(), &name, &settings, no_verify_jwt)?;
                let files = deploy.files.len();
                let deployed = store::deploy(&mut client, deploy).await?;
                println!(
                    "Deployed Function {} (version {}, {files} file(s), sha256 {})",
                    deployed.slug, deployed.version, deployed.sha256
                );
            }
            FunctionsAction::Delete { name } => match store::delete(&client, &name).await? {
                true => println!("Deleted Function {name}."),
                false => return Err(format!("no deployed function {name}").into()),
            },
            FunctionsAction::Logs { name, limit } => {
                print!("{}", cli::log_lines(&store::logs(&client, &name, limit.clamp(1, store::LOGS_KEPT)).await?))
            }
            // Handled without the database.
            FunctionsAction::New { .. } | FunctionsAction::Invoke { .. } => {}
        }
        Ok(())
    }
    .await;
    drop(client);
    release_database(database, pools).await?;
    outcome
}

/// `server secrets set|list|unset`: sealed with the key derived from this configuration's JWT
/// secret, in the database the server uses.
async fn secrets_command(config: &Config, action: SecretsAction) -> Result<(), Box<dyn std::error::Error>> {
    use server::functions::{cli, seal::Sealer, store};
    let (keys, database, pools) = command_database(config).await?;
    let mut client = pools.admin.get().await?;
    let outcome: Result<(), Box<dyn std::error::Error>> = async {
        match action {
            SecretsAction::Set { pairs, env_file } => {
                let secrets = cli::secret_pairs(&pairs, env_file.as_deref())?;
                store::set_secrets(&mut client, &Sealer::new(&keys.jwt_secret), &secrets).await?;
                println!("Finished server secrets set.");
            }
            SecretsAction::List => print!("{}", cli::secrets_table(&store::list_secrets(&client).await?)),
            SecretsAction::Unset { names } => {
                let removed = store::unset_secrets(&client, &names).await?;
                println!("Finished server secrets unset ({removed} removed).");
            }
        }
        Ok(())
    }
    .await;
    drop(client);
    release_database(database, pools).await?;
    outcome
}

/// Create the dashboard's first operator when there is none, and print its password once.
async fn print_first_operator(pools: &server::db::Pools) {
    let outcome = match pools.admin.get().await {
        Ok(client) => server::studio::cli::first_operator(&client).await.map_err(|e| e.to_string()),
        Err(err) => Err(err.to_string()),
    };
    match outcome {
        Ok(Some(line)) => println!("{line}"),
        Ok(None) => {}
        Err(err) => eprintln!("studio: cannot create the first operator: {err}"),
    }
}

/// `server studio operators add|list|remove|passwd`, on the database the server uses (the
/// embedded cluster is started for the command when it is not running, and stopped again after).
async fn studio_operators(
    config: &Config,
    action: server::studio::OperatorsAction,
) -> Result<(), Box<dyn std::error::Error>> {
    let (_, database, pools) = command_database(config).await?;
    let client = pools.admin.get().await?;
    let outcome = server::studio::cli::operators(&client, action).await;
    drop(client);
    release_database(database, pools).await?;
    for line in outcome? {
        println!("{line}");
    }
    Ok(())
}

/// `server gen types typescript`: the types of the database `--db-url` names, else of the one the
/// server uses (the embedded cluster is started for the command when it is not running).
async fn gen(config: &Config, action: GenAction) -> Result<(), Box<dyn std::error::Error>> {
    use server::project::typegen;
    let GenAction::Types { lang, lang_flag, schema, db_url, local: _, postgrest_v9_compat, postgrest_version } = action;
    let options = typegen::Options { detect_one_to_one: !postgrest_v9_compat, postgrest_version };
    let lang = lang_flag.unwrap_or(lang);
    if lang != "typescript" {
        return Err(format!("unsupported language {lang:?}: only typescript is generated").into());
    }
    let schemas = match typegen::parse_schemas(&schema) {
        given if given.is_empty() => typegen::default_schemas(&config.rest.schemas),
        given => given,
    };
    let (url, database) = match db_url {
        Some(url) => (url, None),
        None => {
            let cfg = config.clone();
            let database = tokio::task::spawn_blocking(move || startup::prepare_database(&cfg)).await??;
            (database.direct.expose_secret().to_string(), Some(database))
        }
    };
    let outcome = async {
        let target: tokio_postgres::Config = url.parse().map_err(|e| format!("database URL: {e}"))?;
        let (client, connection) = target.connect(tokio_postgres::NoTls).await.map_err(|e| typegen::describe(&e))?;
        let driver = tokio::spawn(connection);
        let text = typegen::typescript(&client, &schemas, &options).await.map_err(|e| typegen::describe(&e));
        drop(client);
        driver.abort();
        Ok::<_, Box<dyn std::error::Error>>(text?)
    }
    .await;
    if let Some(database) = database {
        if let (Some(cluster), true) = (database.embedded, database.started_embedded) {
            tokio::task::spawn_blocking(move || cluster.stop()).await??;
        }
    }
    let text = outcome?;
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
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
    let _ = writeln!(out, "publishable key: {}", keys.api_keys.publishable.expose_secret());
    let _ = writeln!(out, "secret key: {}", keys.api_keys.secret.expose_secret());
    let access_token = server::functions::manage::access_token(&keys.jwt_secret);
    let _ = writeln!(out, "Management API access token: {}", access_token.expose_secret());
    let _ = out.flush();
}
