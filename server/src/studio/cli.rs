//! `server studio operators add|list|remove|passwd|reset-totp`: what each prints, on a database connection
//! the binary opened. The first operator of a fresh data folder is made by [`first_operator`].

use deadpool_postgres::GenericClient;

use super::config::OperatorsAction;
use super::operators::{self, OperatorError};

/// Run one operators command; returns the lines to print.
pub async fn operators(db: &impl GenericClient, action: OperatorsAction) -> Result<Vec<String>, OperatorError> {
    match action {
        OperatorsAction::Add { email, password } => {
            let (password, generated) = given_or_generated(password);
            let op = operators::add(db, &email, &password).await?;
            let mut out = vec![format!("operator {} added", op.email)];
            if generated {
                out.push(format!("password: {password}  (shown once)"));
            }
            Ok(out)
        }
        OperatorsAction::List => {
            let list = operators::list(db).await?;
            let mut out = vec![format!("{:<38}{:<40}{:<27}last sign-in (UTC)", "id", "e-mail", "created (UTC)")];
            for op in list {
                let last = op.last_sign_in_at.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string()).unwrap_or("-".into());
                out.push(format!(
                    "{:<38}{:<40}{:<27}{last}",
                    op.id.to_string(),
                    op.email,
                    op.created_at.format("%Y-%m-%d %H:%M:%S").to_string()
                ));
            }
            Ok(out)
        }
        OperatorsAction::Remove { email } => {
            operators::remove(db, &email).await?;
            Ok(vec![format!("operator {email} removed")])
        }
        OperatorsAction::ResetTotp { email } => match super::operator_totp::clear(db, &email).await? {
            true => Ok(vec![format!("TOTP of {email} removed; they sign in with their password")]),
            false => Ok(vec![format!("{email} has no TOTP")]),
        },
        OperatorsAction::Passwd { email, password } => {
            let (password, generated) = given_or_generated(password);
            operators::set_password(db, &email, &password).await?;
            let mut out = vec![format!("password of {email} changed; their sessions are ended")];
            if generated {
                out.push(format!("password: {password}  (shown once)"));
            }
            Ok(out)
        }
    }
}

fn given_or_generated(password: Option<String>) -> (String, bool) {
    match password.filter(|p| !p.is_empty()) {
        Some(p) => (p, false),
        None => (operators::generate_password(), true),
    }
}

/// The line to print when a fresh database got its first operator (`None` when it had one).
pub async fn first_operator(db: &impl GenericClient) -> Result<Option<String>, OperatorError> {
    Ok(operators::ensure_first(db)
        .await?
        .map(|(email, password)| format!("created studio operator: {email}  password: {password}  (shown once)")))
}
