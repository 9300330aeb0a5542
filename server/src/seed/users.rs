//! The accounts a project's `seed-users.json` lists, created by `server seed` before the seed
//! files run: a password needs the auth server's hash and, when generated, printing once, which a
//! seed file cannot do. Nothing here knows what the accounts are for; the seed files find them by
//! the `seed.<label>_email` settings this module sets on the session.
//!
//! ```json
//! { "users": [ { "label": "admin", "email": "admin@example.test", "email_env": "SEED_ADMIN_EMAIL",
//!                "password_env": "SEED_ADMIN_PASSWORD", "user_metadata": { "full_name": "…" } } ] }
//! ```
//!
//! An account whose address exists is left as it is (its password is never changed or printed).

use std::path::Path;

use rand::Rng;
use serde::Deserialize;
use serde_json::Value;

use crate::auth::{password, users};
use crate::db::cached::CachedQueries;

use super::SeedError;

/// The file's name in the project folder.
pub const FILE: &str = "seed-users.json";

/// The file: its accounts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedUsers {
    pub users: Vec<SeedUser>,
}

/// One account of the file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedUser {
    /// Printed with the account, and names its setting `seed.<label>_email` (letters, digits, `_`).
    pub label: String,
    /// The address, unless `email_env` names a variable that is set.
    pub email: String,
    #[serde(default)]
    pub email_env: Option<String>,
    /// The variable giving the password; unset (or absent), one is generated and printed once.
    #[serde(default)]
    pub password_env: Option<String>,
    #[serde(default)]
    pub user_metadata: Option<Value>,
    #[serde(default)]
    pub app_metadata: Option<Value>,
}

/// An account the seed created, with the password to print once.
pub struct CreatedAccount {
    pub label: String,
    pub email: String,
    pub password: String,
}

/// Read `seed-users.json` of the project folder; `None` when there is none.
pub fn read(dir: &Path) -> Result<Option<SeedUsers>, SeedError> {
    let path = dir.join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(SeedError::Users(format!("{}: {e}", path.display()))),
    };
    let file: SeedUsers =
        serde_json::from_str(&text).map_err(|e| SeedError::Users(format!("{}: {e}", path.display())))?;
    for user in &file.users {
        if user.label.is_empty() || !user.label.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(SeedError::Users(format!(
                "{}: label {:?} must be letters, digits or _",
                path.display(),
                user.label
            )));
        }
    }
    Ok(Some(file))
}

/// Create the accounts not there yet (confirmed, role `authenticated`) and set `seed.<label>_email`
/// on the session of `client` for the seed files. `env` reads a variable.
pub async fn create(
    client: &deadpool_postgres::Object,
    file: &SeedUsers,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<CreatedAccount>, SeedError> {
    let mut created = Vec::new();
    for user in &file.users {
        let email = user.email_env.as_deref().and_then(env).filter(|e| !e.is_empty()).unwrap_or(user.email.clone());
        let setting = format!("seed.{}_email", user.label);
        client.cached_execute("select set_config($1, lower($2), false)", &[&setting, &email]).await?;
        if users::by_email(client, &email).await.map_err(|e| account_error(&email, e))?.is_some() {
            continue;
        }
        let given = user.password_env.as_deref().and_then(env).filter(|p| !p.is_empty());
        let password = given.unwrap_or_else(generate_password);
        let hash = password::hash(password.clone()).await.map_err(|e| account_error(&email, e))?;
        let new = users::NewUser {
            email: email.clone(),
            encrypted_password: Some(hash),
            user_metadata: user.user_metadata.clone().unwrap_or_else(|| Value::Object(Default::default())),
            app_metadata: user.app_metadata.clone().unwrap_or_else(|| Value::Object(Default::default())),
            confirmed: true,
            role: "authenticated".into(),
            invited: false,
        };
        users::insert(client, &new).await.map_err(|e| account_error(&email, e))?;
        created.push(CreatedAccount { label: user.label.clone(), email, password });
    }
    Ok(created)
}

fn account_error(email: &str, err: impl std::fmt::Display) -> SeedError {
    SeedError::Account { email: email.to_string(), reason: err.to_string() }
}

/// A 16-character password with upper case, lower case and digits.
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
    fn generated_passwords_have_upper_case_lower_case_and_digits() {
        let p = generate_password();
        assert_eq!(p.len(), 16);
        assert!(p.chars().any(|c| c.is_ascii_uppercase()));
        assert!(p.chars().any(|c| c.is_ascii_lowercase()));
        assert!(p.chars().any(|c| c.is_ascii_digit()));
        assert_ne!(generate_password(), p);
    }

    #[test]
    fn a_label_that_cannot_name_a_setting_is_refused() {
        let dir = std::env::temp_dir().join(format!("seed-users-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(FILE), r#"{"users":[{"label":"a b","email":"a@b.test"}]}"#).unwrap();
        let err = read(&dir).unwrap_err().to_string();
        assert!(err.contains("label \"a b\""), "{err}");
        std::fs::write(dir.join(FILE), r#"{"users":[{"label":"a","email":"a@b.test","pasword_env":"X"}]}"#).unwrap();
        let err = read(&dir).unwrap_err().to_string();
        assert!(err.contains("pasword_env"), "an unknown field is named: {err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
