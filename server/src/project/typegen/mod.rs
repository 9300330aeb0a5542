//! `server gen types typescript`: the TypeScript types of a database's schemas, the text
//! `supabase gen types typescript --local` prints for the same schemas byte for byte. The CLI runs
//! postgres-meta's generator and prettier; here the catalogue is read (`catalogue`), turned into
//! the same syntax tree (`generate`) and laid out by prettier's rules (`ts`, `doc`, `collate`),
//! with no Node at run time. The goldens in `tests/fixtures/typegen/` were printed by
//! postgres-meta itself (docs/projects.md says how).
//!
//! It only reads the database; it writes nothing but the text it returns.

mod catalogue;
mod collate;
mod doc;
mod functions;
mod generate;
mod queries;
mod ts;
mod views;

use doc::{concat, text};

/// `export type Json = …`, the same for every database.
const JSON_TYPE: &str = include_str!("json.ts.txt");
/// `Tables<>`, `TablesInsert<>`, `TablesUpdate<>`, `Enums<>`, `CompositeTypes<>`: the same for
/// every database (their default schema is always `public`).
const HELPERS: &str = include_str!("helpers.ts.txt");

/// The schemas `supabase gen types typescript` reads when none is given: `public`, then the
/// API's schemas (`[api] schemas`), without repeats.
pub fn default_schemas(api_schemas: &[String]) -> Vec<String> {
    let mut out = vec!["public".to_string()];
    for schema in api_schemas {
        if !schema.is_empty() && !out.contains(schema) {
            out.push(schema.clone());
        }
    }
    out
}

/// The `--schema` values: repeated or comma-separated, blanks dropped.
pub fn parse_schemas(values: &[String]) -> Vec<String> {
    values.iter().flat_map(|v| v.split(',')).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// How the types are generated.
#[derive(Debug, Clone)]
pub struct Options {
    /// `isOneToOne` in relationships: the CLI's default (off only for PostgREST 9).
    pub detect_one_to_one: bool,
    /// postgres-meta's `PG_META_POSTGREST_VERSION`: `Database` then names the PostgREST version
    /// (`__InternalSupabase`), which the CLI's `--local` does not set.
    pub postgrest_version: Option<String>,
}

/// The TypeScript text of `schemas` as the CLI prints it (its trailing blank line included).
pub async fn typescript(
    client: &tokio_postgres::Client,
    schemas: &[String],
    options: &Options,
) -> Result<String, tokio_postgres::Error> {
    let catalogue = catalogue::read(client, schemas).await?;
    Ok(render(&catalogue, options))
}

/// A database error as the command reports it: Postgres's message and SQLSTATE, or the cause of
/// a failed connection (`tokio_postgres` shows only "db error" by itself).
pub fn describe(err: &tokio_postgres::Error) -> String {
    if let Some(db) = err.as_db_error() {
        return format!("{} (SQLSTATE {})", db.message(), db.code().code());
    }
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

fn render(catalogue: &catalogue::Catalogue, options: &Options) -> String {
    let (database, constants) =
        generate::build(catalogue, options.detect_one_to_one, options.postgrest_version.as_deref());
    let database = doc::print(concat(vec![text("export type Database = "), ts::ty_doc(&database)]));
    let constants =
        doc::print(concat(vec![text("export const Constants = "), ts::value_doc(&constants), text(" as const")]));
    format!("{JSON_TYPE}\n{database}\n\n{HELPERS}{constants}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_schemas_are_public_then_the_apis() {
        assert_eq!(default_schemas(&["public".into(), "api".into()]), vec!["public", "api"]);
        assert_eq!(default_schemas(&[]), vec!["public"]);
    }

    #[test]
    fn schema_flags_may_repeat_or_hold_a_comma_list() {
        assert_eq!(parse_schemas(&["public,inventory".into(), " audit ".into()]), vec!["public", "inventory", "audit"]);
    }

    #[test]
    fn an_empty_catalogue_prints_empty_database_and_constants() {
        let printed =
            render(&catalogue::Catalogue::default(), &Options { detect_one_to_one: true, postgrest_version: None });
        assert!(printed.contains("export type Database = {}\n"), "{printed}");
        assert!(printed.ends_with("export const Constants = {} as const\n\n"), "{printed}");
    }
}
