//! Data carried by the schema-cache errors (PGRST200-PGRST205) and the text
//! PostgREST builds from it (`compressedRel`, `relHint`, `noRelBetweenHint`,
//! `noRpcHint`, `tableNotFoundHint` in `src/PostgREST/Error.hs`, v13/v14).

use serde_json::{Map, Value};

use super::suggest::{
    fuzzy_matches, suggest, suggest_with_min_score, DEFAULT_MIN_SCORE, MAX_TABLES_FOR_FUZZY_SEARCH, NAME_HINT_MIN_SCORE,
};

/// One of several relationships that make an embedding ambiguous (PGRST201).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relationship {
    /// The embedding (origin) table name, unqualified.
    pub table: String,
    /// The embedded (target) table name, unqualified.
    pub foreign_table: String,
    /// How the two are related.
    pub cardinality: Cardinality,
}

/// Cardinality of a [`Relationship`], with what PostgREST prints for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cardinality {
    /// A foreign key on `table` referencing `foreign_table`.
    ManyToOne {
        /// Foreign key constraint name.
        constraint: String,
        /// (column of `table`, column of `foreign_table`) pairs.
        columns: Vec<(String, String)>,
    },
    /// Like many-to-one, with a unique constraint on the referencing columns.
    OneToOne {
        /// Foreign key constraint name.
        constraint: String,
        /// (column of `table`, column of `foreign_table`) pairs.
        columns: Vec<(String, String)>,
    },
    /// A foreign key on `foreign_table` referencing `table`.
    OneToMany {
        /// Foreign key constraint name.
        constraint: String,
        /// (column of `table`, column of `foreign_table`) pairs.
        columns: Vec<(String, String)>,
    },
    /// Through a junction table with foreign keys to both sides.
    ManyToMany {
        /// Junction table name, unqualified.
        junction: String,
        /// Junction foreign key to `table`.
        source_constraint: String,
        /// Junction columns of that key.
        source_columns: Vec<String>,
        /// Junction foreign key to `foreign_table`.
        target_constraint: String,
        /// Junction columns of that key.
        target_columns: Vec<String>,
    },
}

fn paren_list(items: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    let items: Vec<String> = items.into_iter().map(|s| s.as_ref().to_owned()).collect();
    format!("({})", items.join(", "))
}

impl Relationship {
    /// `compressedRel`: `{"cardinality","embedding","relationship"}`.
    pub fn details_json(&self) -> Value {
        let (cardinality, relationship) = match &self.cardinality {
            Cardinality::ManyToMany {
                junction,
                source_constraint,
                source_columns,
                target_constraint,
                target_columns,
            } => (
                "many-to-many",
                format!(
                    "{junction} using {source_constraint}{} and {target_constraint}{}",
                    paren_list(source_columns),
                    paren_list(target_columns)
                ),
            ),
            Cardinality::ManyToOne { constraint, columns } => ("many-to-one", self.fk_text(constraint, columns)),
            Cardinality::OneToOne { constraint, columns } => ("one-to-one", self.fk_text(constraint, columns)),
            Cardinality::OneToMany { constraint, columns } => ("one-to-many", self.fk_text(constraint, columns)),
        };
        // Keys inserted in sorted order, as aeson emits them.
        let mut obj = Map::new();
        obj.insert("cardinality".into(), Value::String(cardinality.to_owned()));
        obj.insert("embedding".into(), Value::String(format!("{} with {}", self.table, self.foreign_table)));
        obj.insert("relationship".into(), Value::String(relationship));
        Value::Object(obj)
    }

    fn fk_text(&self, constraint: &str, columns: &[(String, String)]) -> String {
        format!(
            "{constraint} using {}{} and {}{}",
            self.table,
            paren_list(columns.iter().map(|c| &c.0)),
            self.foreign_table,
            paren_list(columns.iter().map(|c| &c.1)),
        )
    }

    /// `relHint` item: `'foreign_table!constraint'` (the junction for m2m).
    pub fn hint_item(&self) -> String {
        let via = match &self.cardinality {
            Cardinality::ManyToMany { junction, .. } => junction,
            Cardinality::ManyToOne { constraint, .. }
            | Cardinality::OneToOne { constraint, .. }
            | Cardinality::OneToMany { constraint, .. } => constraint,
        };
        format!("'{}!{via}'", self.foreign_table)
    }
}

/// One candidate of an ambiguous function call (PGRST203).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSignature {
    /// Schema name.
    pub schema: String,
    /// Function name.
    pub name: String,
    /// (parameter name, type) pairs; unnamed parameters have an empty name.
    pub params: Vec<(String, String)>,
}

impl FunctionSignature {
    /// `schema.name(p1 => type1, p2 => type2)`.
    pub fn render(&self) -> String {
        let params: Vec<String> = self.params.iter().map(|(n, t)| format!("{n} => {t}")).collect();
        format!("{}.{}({})", self.schema, self.name, params.join(", "))
    }
}

/// The request body type of an RPC call, as far as PGRST202's text cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RpcPayload {
    /// `application/json` (the default).
    Json,
    /// `text/plain`: the function may take a single unnamed `text` parameter.
    TextPlain,
    /// `text/xml`: a single unnamed `xml` parameter.
    TextXml,
    /// `application/octet-stream`: a single unnamed `bytea` parameter.
    OctetStream,
    /// Anything else (form data, CSV, ...).
    Other,
}

impl RpcPayload {
    /// Text/XML/binary POST bodies name no parameters: no list in the message, no hint.
    pub(crate) fn single_unnamed(self, post_invocation: bool) -> bool {
        post_invocation && matches!(self, RpcPayload::TextPlain | RpcPayload::TextXml | RpcPayload::OctetStream)
    }
}

/// `noRelBetweenHint`. When the parent has relationships (`parent_targets`
/// is `Some`, the names of the tables it relates to), suggest a child other
/// than an exact match; otherwise suggest a parent among `schema_parents`
/// (tables of the schema that have relationships).
pub fn relationship_hint(
    parent: &str,
    child: &str,
    parent_targets: Option<&[&str]>,
    schema_parents: &[&str],
) -> Option<String> {
    match parent_targets {
        Some(targets) => fuzzy_matches(child, targets.iter().copied(), DEFAULT_MIN_SCORE)
            .into_iter()
            .find(|(score, _)| *score < 1.0)
            .map(|(_, s)| format!("Perhaps you meant '{s}' instead of '{child}'.")),
        None => suggest(parent, schema_parents.iter().copied())
            .map(|s| format!("Perhaps you meant '{s}' instead of '{parent}'.")),
    }
}

/// `noRpcHint`. Without overloads of `name` (`overloads` empty) suggest
/// another function of the schema (score >= 0.75, v14); with overloads
/// suggest the closest parameter list (score >= 0.33), each list sorted and
/// printed as `(a, b, c)`.
pub fn function_hint(
    schema: &str,
    name: &str,
    args: &[&str],
    schema_functions: &[&str],
    overloads: &[Vec<&str>],
) -> Option<String> {
    let prefix = format!("Perhaps you meant to call the function {schema}.");
    if overloads.is_empty() {
        return suggest_with_min_score(name, schema_functions.iter().copied(), NAME_HINT_MIN_SCORE)
            .map(|f| format!("{prefix}{f}"));
    }
    let sorted_list = |params: &[&str]| {
        let mut p: Vec<&str> = params.to_vec();
        p.sort_unstable();
        paren_list(p)
    };
    let lists: Vec<String> = overloads.iter().map(|o| sorted_list(o)).collect();
    suggest(&sorted_list(args), lists.iter().map(String::as_str)).map(|l| format!("{prefix}{name}{l}"))
}

/// `tableNotFoundHint`: the closest table of the same schema (score >= 0.75,
/// v14), none for schemas with 500 tables or more.
pub fn table_hint(schema: &str, table: &str, schema_tables: &[&str]) -> Option<String> {
    if schema_tables.len() >= MAX_TABLES_FOR_FUZZY_SEARCH {
        return None;
    }
    suggest_with_min_score(table, schema_tables.iter().copied(), NAME_HINT_MIN_SCORE)
        .map(|t| format!("Perhaps you meant the table '{schema}.{t}'"))
}
