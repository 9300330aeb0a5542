//! The SQL of Database › Roles' forms: create a role, alter its attributes, drop it, grant or
//! revoke membership in another role, grant or revoke table privileges on a schema's tables;
//! and which roles may not be edited at all (the platform's own, Postgres's, the server's).
//!
//! Role DDL takes no bound parameters, so names are quoted by `db::quote_ident` and values
//! (`valid until`) written as `db::escaped_literal`. A password never enters the SQL in clear:
//! it is turned into a SCRAM-SHA-256 verifier here (Postgres stores a verifier as given), and
//! the text shown to the operator and kept in the audit log says `password '********'` instead
//! of even the verifier. Nothing here touches the database: `roles` runs what this builds.

use serde::Deserialize;

use crate::db::{escaped_literal, quote_ident};

/// The platform's roles, created by `sql/migrations/V1__platform_roles.sql` (and `postgres`, the
/// embedded cluster's superuser the server connects as): never altered, dropped or granted to.
pub const PLATFORM_ROLES: &[&str] = &["postgres", "authenticator", "anon", "authenticated", "service_role"];

/// The longest name Postgres keeps (bytes).
const NAME_MAX: usize = 63;

/// What the screen shows and the audit log keeps in place of a password.
pub const HIDDEN_PASSWORD: &str = "'********'";

/// Why a role form cannot be turned into SQL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RoleSqlError {
    #[error("Name the role")]
    EmptyName,
    #[error("A role name has at most 63 bytes")]
    LongName,
    #[error("A role name cannot hold a NUL character")]
    NulInName,
    #[error("{0} is {1}: it cannot be created, altered, dropped or granted roles here")]
    Protected(String, &'static str),
    #[error("The connection limit is -1 (none) or more")]
    ConnectionLimit,
    #[error("Pick at least one privilege (select, insert, update, delete)")]
    NoPrivileges,
    #[error("Nothing to change")]
    NothingToChange,
    #[error("A role is not a member of itself")]
    SelfMembership,
}

/// Why `name` may not be edited, if it may not: a platform role, one of the `supabase_*`
/// admins, Postgres's `pg_*`, or the role the server's own connection runs as (`server_roles`:
/// `current_user` and `session_user` of the admin pool).
pub fn protected(name: &str, server_roles: &[String]) -> Option<&'static str> {
    if PLATFORM_ROLES.contains(&name) || name.starts_with("supabase_") {
        Some("one of the platform's roles")
    } else if name.starts_with("pg_") {
        Some("one of Postgres's own roles")
    } else if server_roles.iter().any(|r| r == name) {
        Some("the role this server connects as")
    } else {
        None
    }
}

/// Checks a name for a role to create or edit.
pub fn check_name(name: &str, server_roles: &[String]) -> Result<(), RoleSqlError> {
    if name.is_empty() {
        return Err(RoleSqlError::EmptyName);
    }
    if name.len() > NAME_MAX {
        return Err(RoleSqlError::LongName);
    }
    if name.contains('\0') {
        return Err(RoleSqlError::NulInName);
    }
    match protected(name, server_roles) {
        Some(why) => Err(RoleSqlError::Protected(name.to_string(), why)),
        None => Ok(()),
    }
}

/// A role's attributes as a form sends them; `None` leaves one as it is (alter) or at
/// Postgres's default (create: `nologin`, `inherit`, no limit, no expiry).
#[derive(Debug, Default, Clone, Deserialize)]
pub struct Attributes {
    #[serde(default)]
    pub login: Option<bool>,
    #[serde(default)]
    pub inherit: Option<bool>,
    #[serde(default)]
    pub create_db: Option<bool>,
    #[serde(default)]
    pub create_role: Option<bool>,
    #[serde(default)]
    pub bypass_rls: Option<bool>,
    /// `-1`: no limit.
    #[serde(default)]
    pub connection_limit: Option<i32>,
    /// A timestamp Postgres reads (`2027-01-01`, `2027-01-01 12:00+00`); empty: no expiry.
    #[serde(default)]
    pub valid_until: Option<String>,
    /// A new password (in clear, from the form); never written into SQL as such.
    #[serde(default)]
    pub password: Option<String>,
    /// Remove the password (`password null`): the role can no longer sign in with one.
    #[serde(default)]
    pub clear_password: bool,
}

/// A built statement: what runs, and what is shown and audited (the same, but a password).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    pub run: Vec<String>,
    pub shown: Vec<String>,
    /// A password is set by it (the audit says so instead of showing it).
    pub password_set: bool,
}

impl Built {
    fn same(statements: Vec<String>) -> Built {
        Built { shown: statements.clone(), run: statements, password_set: false }
    }

    /// The statements shown, one a line, each ending in `;`.
    pub fn shown_sql(&self) -> String {
        self.shown.iter().map(|s| format!("{s};")).collect::<Vec<_>>().join("\n")
    }
}

fn flag(out: &mut String, on: Option<bool>, yes: &str, no: &str) {
    if let Some(on) = on {
        out.push(' ');
        out.push_str(if on { yes } else { no });
    }
}

/// The `with …` options of `attrs`, as run and as shown.
fn options(attrs: &Attributes, verifier: Option<&str>) -> Result<(String, String, bool), RoleSqlError> {
    let mut out = String::new();
    flag(&mut out, attrs.login, "login", "nologin");
    flag(&mut out, attrs.inherit, "inherit", "noinherit");
    flag(&mut out, attrs.create_db, "createdb", "nocreatedb");
    flag(&mut out, attrs.create_role, "createrole", "nocreaterole");
    flag(&mut out, attrs.bypass_rls, "bypassrls", "nobypassrls");
    if let Some(limit) = attrs.connection_limit {
        if limit < -1 {
            return Err(RoleSqlError::ConnectionLimit);
        }
        out.push_str(&format!(" connection limit {limit}"));
    }
    if let Some(until) = &attrs.valid_until {
        let until = until.trim();
        out.push_str(" valid until ");
        out.push_str(&escaped_literal(if until.is_empty() { "infinity" } else { until }));
    }
    let mut shown = out.clone();
    let mut password_set = false;
    match (attrs.password.as_deref().filter(|p| !p.is_empty()), verifier) {
        (Some(_), Some(verifier)) => {
            out.push_str(" password ");
            out.push_str(&escaped_literal(verifier));
            shown.push_str(" password ");
            shown.push_str(HIDDEN_PASSWORD);
            password_set = true;
        }
        _ if attrs.clear_password => {
            out.push_str(" password null");
            shown.push_str(" password null");
        }
        _ => {}
    }
    Ok((out, shown, password_set))
}

/// The SCRAM-SHA-256 verifier Postgres stores for `password` (a fresh salt each time).
pub fn verifier(password: &str) -> String {
    postgres_protocol::password::scram_sha_256(password.as_bytes())
}

/// `create role "name" with …`; `verifier` is [`verifier`] of the form's password, if any.
pub fn create_role(name: &str, attrs: &Attributes, verifier: Option<&str>) -> Result<Built, RoleSqlError> {
    let (run, shown, password_set) = options(attrs, verifier)?;
    let head = format!("create role {} with", quote_ident(name));
    // `with` alone is not valid: a role with every default gets `nologin` written out.
    let (run, shown) = if run.is_empty() { (" nologin".to_string(), " nologin".to_string()) } else { (run, shown) };
    Ok(Built { run: vec![format!("{head}{run}")], shown: vec![format!("{head}{shown}")], password_set })
}

/// `alter role "name" with …` for the attributes given.
pub fn alter_role(name: &str, attrs: &Attributes, verifier: Option<&str>) -> Result<Built, RoleSqlError> {
    let (run, shown, password_set) = options(attrs, verifier)?;
    if run.is_empty() {
        return Err(RoleSqlError::NothingToChange);
    }
    let head = format!("alter role {} with", quote_ident(name));
    Ok(Built { run: vec![format!("{head}{run}")], shown: vec![format!("{head}{shown}")], password_set })
}

/// `drop role "name"`, after `drop owned by "name"` (its objects dropped, its privileges
/// revoked) when `drop_owned`; without it Postgres refuses while anything depends on it.
pub fn drop_role(name: &str, drop_owned: bool) -> Built {
    let mut statements = Vec::new();
    if drop_owned {
        statements.push(format!("drop owned by {}", quote_ident(name)));
    }
    statements.push(format!("drop role {}", quote_ident(name)));
    Built::same(statements)
}

/// `grant "role" to "member"` or `revoke "role" from "member"`.
pub fn membership(member: &str, role: &str, grant: bool) -> Result<Built, RoleSqlError> {
    if member == role {
        return Err(RoleSqlError::SelfMembership);
    }
    let (role, member) = (quote_ident(role), quote_ident(member));
    Ok(Built::same(vec![if grant {
        format!("grant {role} to {member}")
    } else {
        format!("revoke {role} from {member}")
    }]))
}

/// A table privilege the form offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Privilege {
    Select,
    Insert,
    Update,
    Delete,
}

impl Privilege {
    fn sql(self) -> &'static str {
        match self {
            Privilege::Select => "select",
            Privilege::Insert => "insert",
            Privilege::Update => "update",
            Privilege::Delete => "delete",
        }
    }
}

/// Grant (with `usage` on the schema first, without which table privileges open nothing) or
/// revoke `privileges` on one table of `schema`, or on all its tables when `table` is `None`.
pub fn table_privileges(
    role: &str,
    schema: &str,
    table: Option<&str>,
    privileges: &[Privilege],
    grant: bool,
) -> Result<Built, RoleSqlError> {
    let mut list: Vec<&str> = Vec::new();
    for p in [Privilege::Select, Privilege::Insert, Privilege::Update, Privilege::Delete] {
        if privileges.contains(&p) {
            list.push(p.sql());
        }
    }
    if list.is_empty() {
        return Err(RoleSqlError::NoPrivileges);
    }
    let on = match table {
        Some(table) => format!("table {}.{}", quote_ident(schema), quote_ident(table)),
        None => format!("all tables in schema {}", quote_ident(schema)),
    };
    let role = quote_ident(role);
    let list = list.join(", ");
    Ok(Built::same(if grant {
        vec![
            format!("grant usage on schema {} to {role}", quote_ident(schema)),
            format!("grant {list} on {on} to {role}"),
        ]
    } else {
        vec![format!("revoke {list} on {on} from {role}")]
    }))
}

#[cfg(test)]
#[path = "roles_sql_tests.rs"]
mod tests;
