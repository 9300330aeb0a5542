//! `server seed`: the demo data of the rental site, idempotent and separate from the schema.
//!
//! Creates the administrator and demo customer accounts (e-mails and passwords from
//! `SEED_ADMIN_EMAIL`/`SEED_ADMIN_PASSWORD` and `SEED_DEMO_EMAIL`/`SEED_DEMO_PASSWORD`, a
//! password being generated when not given and printed once, when the account is created),
//! runs `sql/seed/seed.sql` (fleet, blog article, bookings of each kind), and stores an
//! illustration of each vehicle. Running it again changes nothing. It never prints or logs a
//! password it did not just create.

mod images;

use crate::db::cached::CachedQueries;
use deadpool_postgres::Pool;
use rand::Rng;
use serde_json::json;

use crate::auth::{password, users};
use crate::config::SeedConfig;

/// The seed data of the site.
const SEED_SQL: &str = include_str!("../../../sql/seed/seed.sql");

/// Why seeding failed.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error("database error while seeding: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error("cannot get a connection: {0}")]
    Pool(String),
    #[error("cannot create account {email}: {reason}")]
    Account { email: String, reason: String },
    #[error("cannot store vehicle images: {0}")]
    Images(String),
}

/// An account the seed created, with the password to print once.
pub struct CreatedAccount {
    pub role: &'static str,
    pub email: String,
    pub password: String,
}

/// What the seed did.
pub struct SeedReport {
    pub created: Vec<CreatedAccount>,
    pub vehicles: i64,
    pub images: usize,
}

/// Seed the database behind `admin` (owner pool); vehicle illustrations go to `storage`.
pub async fn run(admin: &Pool, config: &SeedConfig, storage: &images::ImageSink) -> Result<SeedReport, SeedError> {
    let mut created = Vec::new();
    let accounts = [
        ("admin", &config.admin_email, config.admin_password.as_deref(), "Administrateur"),
        ("user", &config.demo_email, config.demo_password.as_deref(), "Client Démo"),
    ];
    let client = admin.get().await.map_err(|e| SeedError::Pool(e.to_string()))?;
    for (role, email, given, full_name) in accounts {
        if users::by_email(&client, email).await.map_err(|e| account_error(email, e))?.is_some() {
            continue;
        }
        let password = given.map(str::to_string).unwrap_or_else(generate_password);
        let hash = password::hash(password.clone()).await.map_err(|e| account_error(email, e))?;
        let new = users::NewUser {
            email: email.clone(),
            encrypted_password: Some(hash),
            user_metadata: json!({ "full_name": full_name }),
            app_metadata: json!({}),
            confirmed: true,
            role: "authenticated".into(),
            invited: false,
        };
        users::insert(&client, &new).await.map_err(|e| account_error(email, e))?;
        if role == "admin" {
            client
                .cached_execute("update public.profiles set role = 'admin' where email = lower($1)", &[email])
                .await?;
        }
        created.push(CreatedAccount { role, email: email.clone(), password });
    }
    client.cached_execute("select set_config('seed.demo_email', lower($1), false)", &[&config.demo_email]).await?;
    client.batch_execute(SEED_SQL).await?;
    let vehicles: i64 = client.cached_query_one("select count(*) from public.vehicles", &[]).await?.get(0);
    let rows = client
        .cached_query(
            "select split_part(primary_image, '/', -1), name, category, make, model, coalesce(color, '') from public.vehicles \
             where primary_image like '/storage/v1/object/public/vehicles/%'",
            &[],
        )
        .await?;
    let mut stored = 0;
    for row in rows {
        let file: String = row.get(0);
        let name: String = row.get(1);
        let category: String = row.get(2);
        let (make, model, color): (String, String, String) = (row.get(3), row.get(4), row.get(5));
        let drawn = images::Drawn { name: &name, make: &make, model: &model, category: &category, color: &color };
        if storage.put_if_missing(&client, &file, images::vehicle_svg(&drawn)).await.map_err(SeedError::Images)? {
            stored += 1;
        }
    }
    Ok(SeedReport { created, vehicles, images: stored })
}

pub use images::ImageSink;

fn account_error(email: &str, err: impl std::fmt::Display) -> SeedError {
    SeedError::Account { email: email.to_string(), reason: err.to_string() }
}

/// A 16-character password with upper case, lower case and digits (the site's rule).
fn generate_password() -> String {
    const UPPER: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ";
    const LOWER: &[u8] = b"abcdefghijkmnopqrstuvwxyz";
    const DIGITS: &[u8] = b"23456789";
    let mut rng = rand::thread_rng();
    let mut pick = |set: &[u8]| set[rng.gen_range(0..set.len())] as char;
    let mut out: String = (0..5).map(|_| pick(UPPER)).collect();
    out.extend((0..7).map(|_| pick(LOWER)));
    out.extend((0..4).map(|_| pick(DIGITS)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_passwords_follow_the_sites_rule() {
        let p = generate_password();
        assert_eq!(p.len(), 16);
        assert!(p.chars().any(|c| c.is_ascii_uppercase()));
        assert!(p.chars().any(|c| c.is_ascii_lowercase()));
        assert!(p.chars().any(|c| c.is_ascii_digit()));
        assert_ne!(generate_password(), p);
    }
}
