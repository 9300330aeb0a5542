//! The operators of the dashboard (`_studio.operators`): add, list, remove, change a password,
//! find one to sign in, and the first one a fresh data folder gets. Passwords are hashed with
//! `auth::password` (argon2id on a blocking thread). Used by the sign-in handler and by the
//! `server studio operators` commands; knows nothing of HTTP.

use deadpool_postgres::GenericClient;
use uuid::Uuid;

use super::error::StudioError;

/// The e-mail address of the operator a fresh data folder gets.
pub const FIRST_OPERATOR_EMAIL: &str = "admin@studio.local";
/// The shortest password an operator may have.
pub const MIN_PASSWORD_LEN: usize = 10;

/// An operator as listed.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Operator {
    pub id: Uuid,
    pub email: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub last_sign_in_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// Why an operator command failed.
#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    #[error("an operator with the e-mail {0} already exists")]
    Exists(String),
    #[error("no operator has the e-mail {0}")]
    Unknown(String),
    #[error("the password must have at least {MIN_PASSWORD_LEN} characters")]
    WeakPassword,
    #[error("{0:?} is not an e-mail address")]
    BadEmail(String),
    #[error("database: {0}")]
    Db(#[from] tokio_postgres::Error),
    #[error("password hashing failed")]
    Hash,
}

impl From<OperatorError> for StudioError {
    fn from(err: OperatorError) -> StudioError {
        match err {
            OperatorError::Db(db) => db.into(),
            OperatorError::Hash => StudioError::Internal,
            other => StudioError::BadRequest(other.to_string()),
        }
    }
}

/// A generated password: 20 letters and digits (about 119 bits).
pub fn generate_password() -> String {
    crate::auth::tokens::random_token(20)
}

fn check(email: &str, password: &str) -> Result<String, OperatorError> {
    let email = email.trim();
    if email.len() < 3 || !email.contains('@') || email.chars().any(char::is_whitespace) {
        return Err(OperatorError::BadEmail(email.to_string()));
    }
    if password.chars().count() < MIN_PASSWORD_LEN {
        return Err(OperatorError::WeakPassword);
    }
    Ok(email.to_string())
}

async fn hash(password: &str) -> Result<String, OperatorError> {
    crate::auth::password::hash(password.to_string()).await.map_err(|_| OperatorError::Hash)
}

/// Add an operator.
pub async fn add(db: &impl GenericClient, email: &str, password: &str) -> Result<Operator, OperatorError> {
    let email = check(email, password)?;
    let hash = hash(password).await?;
    let row = db
        .query_opt(
            "insert into _studio.operators (email, password_hash) values ($1, $2) \
             on conflict ((lower(email))) do nothing returning id, email, created_at, last_sign_in_at",
            &[&email, &hash],
        )
        .await?
        .ok_or_else(|| OperatorError::Exists(email.clone()))?;
    Ok(of_row(&row))
}

fn of_row(row: &tokio_postgres::Row) -> Operator {
    Operator { id: row.get(0), email: row.get(1), created_at: row.get(2), last_sign_in_at: row.get(3) }
}

/// Every operator, by e-mail.
pub async fn list(db: &impl GenericClient) -> Result<Vec<Operator>, OperatorError> {
    let rows = db
        .query("select id, email, created_at, last_sign_in_at from _studio.operators order by lower(email)", &[])
        .await?;
    Ok(rows.iter().map(of_row).collect())
}

/// Remove an operator (their sessions end with them).
pub async fn remove(db: &impl GenericClient, email: &str) -> Result<(), OperatorError> {
    let n = db.execute("delete from _studio.operators where lower(email) = lower($1)", &[&email.trim()]).await?;
    if n == 0 {
        return Err(OperatorError::Unknown(email.to_string()));
    }
    Ok(())
}

/// Set an operator's password and end their sessions.
pub async fn set_password(db: &impl GenericClient, email: &str, password: &str) -> Result<(), OperatorError> {
    let email = check(email, password)?;
    let hash = hash(password).await?;
    let n = db
        .execute(
            "with o as (update _studio.operators set password_hash = $2, password_changed_at = now() \
                        where lower(email) = lower($1) returning id) \
             delete from _studio.sessions s using o where s.operator_id = o.id",
            &[&email, &hash],
        )
        .await?;
    // The delete counts sessions, not operators: check the operator exists apart.
    let _ = n;
    let found = db.query_opt("select 1 from _studio.operators where lower(email) = lower($1)", &[&email]).await?;
    if found.is_none() {
        return Err(OperatorError::Unknown(email));
    }
    Ok(())
}

/// The id, e-mail and password hash of the operator with this e-mail, if any.
pub async fn find_for_sign_in(
    db: &impl GenericClient,
    email: &str,
) -> Result<Option<(Uuid, String, String)>, tokio_postgres::Error> {
    let row = db
        .query_opt("select id, email, password_hash from _studio.operators where lower(email) = lower($1)", &[&email])
        .await?;
    Ok(row.map(|r| (r.get(0), r.get(1), r.get(2))))
}

/// When no operator exists yet, create the first one with a generated password and return its
/// e-mail and password (to print once); `None` when there already is one. Two instances starting
/// together create one operator: the insert does nothing when another won.
pub async fn ensure_first(db: &impl GenericClient) -> Result<Option<(String, String)>, OperatorError> {
    if db.query_opt("select 1 from _studio.operators limit 1", &[]).await?.is_some() {
        return Ok(None);
    }
    let password = generate_password();
    match add(db, FIRST_OPERATOR_EMAIL, &password).await {
        Ok(op) => Ok(Some((op.email, password))),
        Err(OperatorError::Exists(_)) => Ok(None),
        Err(err) => Err(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_passwords_are_checked() {
        assert!(check("ops@example.com", "long enough pw").is_ok());
        assert!(matches!(check("nope", "long enough pw"), Err(OperatorError::BadEmail(_))));
        assert!(matches!(check("a b@c", "long enough pw"), Err(OperatorError::BadEmail(_))));
        assert!(matches!(check("ops@example.com", "short"), Err(OperatorError::WeakPassword)));
        assert_eq!(check("  ops@example.com ", "long enough pw").unwrap(), "ops@example.com");
        assert_eq!(generate_password().len(), 20);
    }
}
