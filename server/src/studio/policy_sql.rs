//! The SQL of the policies screen: `create policy`, `drop policy` and the row-level security
//! switch, built as text the operator reads before it runs. Identifiers (schema, table, policy,
//! roles) are quoted by `db::quote_ident`; `public` is the keyword `PUBLIC`. A policy's `using`
//! and `with check` are SQL expressions the operator wrote (the database owner, who could run
//! them in the SQL editor as well): they cannot be bound, so they are written in parentheses,
//! and the statement is run on its own with the extended protocol, which refuses a second
//! statement smuggled into an expression. Nothing here touches the database.

use serde::{Deserialize, Serialize};

use crate::db::quote_ident;

/// The command a policy applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Command {
    All,
    Select,
    Insert,
    Update,
    Delete,
}

impl Command {
    fn sql(self) -> &'static str {
        match self {
            Command::All => "all",
            Command::Select => "select",
            Command::Insert => "insert",
            Command::Update => "update",
            Command::Delete => "delete",
        }
    }
}

/// A policy as the form describes it.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Policy {
    pub schema: String,
    pub table: String,
    pub name: String,
    pub command: Command,
    /// Roles it applies to; empty means `public` (everyone).
    #[serde(default)]
    pub roles: Vec<String>,
    /// Permissive (the default: any one lets a row through) or restrictive (each must).
    #[serde(default = "yes")]
    pub permissive: bool,
    #[serde(default)]
    pub using: Option<String>,
    #[serde(default)]
    pub with_check: Option<String>,
}

fn yes() -> bool {
    true
}

/// Why a policy cannot be turned into SQL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    #[error("{0} is required")]
    Missing(&'static str),
    #[error("a {0} policy takes no {1} expression")]
    NotFor(&'static str, &'static str),
    #[error("an insert policy needs a with check expression, the others a using expression")]
    NoExpression,
    #[error("an expression must not contain a semicolon")]
    Semicolon,
}

/// `"schema"."table"`.
pub fn qualified(schema: &str, table: &str) -> String {
    format!("{}.{}", quote_ident(schema), quote_ident(table))
}

fn role(name: &str) -> String {
    match name {
        "public" => "public".into(),
        other => quote_ident(other),
    }
}

fn expression(text: &Option<String>) -> Result<Option<&str>, PolicyError> {
    match text.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(e) if e.contains(';') => Err(PolicyError::Semicolon),
        Some(e) => Ok(Some(e)),
    }
}

/// `create policy "name" on "s"."t" as permissive for select to "authenticated" using (...) with check (...)`.
pub fn create(p: &Policy) -> Result<String, PolicyError> {
    for (what, value) in [("schema", &p.schema), ("table", &p.table), ("name", &p.name)] {
        if value.trim().is_empty() {
            return Err(PolicyError::Missing(what));
        }
    }
    let using = expression(&p.using)?;
    let check = expression(&p.with_check)?;
    match (p.command, using, check) {
        (Command::Insert, Some(_), _) => return Err(PolicyError::NotFor("insert", "using")),
        (Command::Select, _, Some(_)) => return Err(PolicyError::NotFor("select", "with check")),
        (Command::Delete, _, Some(_)) => return Err(PolicyError::NotFor("delete", "with check")),
        (Command::Insert, _, None) => return Err(PolicyError::NoExpression),
        (Command::Select | Command::Delete, None, _) => return Err(PolicyError::NoExpression),
        (Command::All | Command::Update, None, None) => return Err(PolicyError::NoExpression),
        _ => {}
    }
    let roles: Vec<String> =
        if p.roles.is_empty() { vec!["public".into()] } else { p.roles.iter().map(|r| role(r)).collect() };
    let mut sql = format!(
        "create policy {} on {}\n  as {}\n  for {}\n  to {}",
        quote_ident(&p.name),
        qualified(&p.schema, &p.table),
        if p.permissive { "permissive" } else { "restrictive" },
        p.command.sql(),
        roles.join(", ")
    );
    if let Some(u) = using {
        sql.push_str(&format!("\n  using ({u})"));
    }
    if let Some(c) = check {
        sql.push_str(&format!("\n  with check ({c})"));
    }
    Ok(sql)
}

/// `drop policy "name" on "s"."t"`.
pub fn drop(schema: &str, table: &str, name: &str) -> String {
    format!("drop policy {} on {}", quote_ident(name), qualified(schema, table))
}

/// `alter table "s"."t" enable|disable row level security`.
pub fn rls(schema: &str, table: &str, enabled: bool) -> String {
    format!(
        "alter table {} {} row level security",
        qualified(schema, table),
        if enabled { "enable" } else { "disable" }
    )
}

/// The statements that put `p` in place: replacing `old` (a policy's command and kind cannot be
/// altered, so an edit drops and creates, in one transaction) or new.
pub fn put(p: &Policy, old: Option<&str>) -> Result<Vec<String>, PolicyError> {
    let mut out = Vec::new();
    if let Some(old) = old {
        out.push(drop(&p.schema, &p.table, old));
    }
    out.push(create(p)?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(command: Command, using: Option<&str>, check: Option<&str>) -> Policy {
        Policy {
            schema: "public".into(),
            table: "orders".into(),
            name: "Owner only".into(),
            command,
            roles: vec!["authenticated".into()],
            permissive: true,
            using: using.map(str::to_string),
            with_check: check.map(str::to_string),
        }
    }

    #[test]
    fn a_policy_is_written_with_every_identifier_quoted() {
        let p = policy(Command::All, Some("(select auth.uid()) = owner"), Some("(select auth.uid()) = owner"));
        assert_eq!(
            create(&p).unwrap(),
            "create policy \"Owner only\" on \"public\".\"orders\"\n  as permissive\n  for all\n  to \"authenticated\"\n  \
             using ((select auth.uid()) = owner)\n  with check ((select auth.uid()) = owner)"
        );
    }

    #[test]
    fn public_is_the_keyword_and_hostile_names_stay_names() {
        let mut p = policy(Command::Select, Some("true"), None);
        p.roles = vec!["public".into(), "we\"ird".into()];
        p.name = "x\"; drop table t; --".into();
        p.permissive = false;
        let sql = create(&p).unwrap();
        assert!(sql.starts_with("create policy \"x\"\"; drop table t; --\" on"), "{sql}");
        assert!(sql.contains("as restrictive"), "{sql}");
        assert!(sql.contains("to public, \"we\"\"ird\""), "{sql}");
        p.roles.clear();
        assert!(create(&p).unwrap().contains("to public\n"));
    }

    #[test]
    fn expressions_fit_their_command() {
        assert_eq!(create(&policy(Command::Insert, Some("true"), None)), Err(PolicyError::NotFor("insert", "using")));
        assert_eq!(
            create(&policy(Command::Select, Some("true"), Some("true"))),
            Err(PolicyError::NotFor("select", "with check"))
        );
        assert_eq!(create(&policy(Command::Delete, None, None)), Err(PolicyError::NoExpression));
        assert_eq!(create(&policy(Command::Insert, None, Some("  "))), Err(PolicyError::NoExpression));
        assert!(create(&policy(Command::Insert, None, Some("true"))).unwrap().ends_with("with check (true)"));
        assert!(create(&policy(Command::Update, Some("true"), None)).is_ok());
        assert_eq!(
            create(&policy(Command::Select, Some("true); drop table x; --"), None)),
            Err(PolicyError::Semicolon)
        );
        let mut nameless = policy(Command::Select, Some("true"), None);
        nameless.name = " ".into();
        assert_eq!(create(&nameless), Err(PolicyError::Missing("name")));
    }

    #[test]
    fn an_edit_drops_then_creates_and_rls_switches() {
        let p = policy(Command::Select, Some("true"), None);
        let list = put(&p, Some("old \"one\"")).unwrap();
        assert_eq!(list[0], "drop policy \"old \"\"one\"\"\" on \"public\".\"orders\"");
        assert!(list[1].starts_with("create policy"));
        assert_eq!(put(&p, None).unwrap().len(), 1);
        assert_eq!(rls("public", "orders", true), "alter table \"public\".\"orders\" enable row level security");
        assert_eq!(rls("a\"b", "t", false), "alter table \"a\"\"b\".\"t\" disable row level security");
    }
}
