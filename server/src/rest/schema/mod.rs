//! The REST schema cache: tables, views, columns, keys, relationships and functions of the
//! exposed schemas, read from the Postgres catalog.
//!
//! Loading (`load`) runs a handful of catalog queries on the admin pool and builds an
//! immutable `SchemaCache`; the `SchemaCacheHandle` swaps in a new one when `NOTIFY pgrst,
//! 'reload schema'` arrives or after migrations, without blocking requests (they keep the
//! `Arc` they took). Nothing here builds request SQL or knows HTTP.

mod computed;
mod load;
mod relationships;
mod representations;
mod views;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

pub use load::load;
pub use relationships::{Cardinality, Relationship};
pub use representations::Representation;

/// `schema.name` of a table, view or function.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QualifiedName {
    pub schema: String,
    pub name: String,
}

impl QualifiedName {
    pub fn new(schema: &str, name: &str) -> QualifiedName {
        QualifiedName { schema: schema.to_string(), name: name.to_string() }
    }

    /// The quoted SQL form `"schema"."name"`.
    pub fn sql(&self) -> String {
        format!("{}.{}", crate::db::quote_ident(&self.schema), crate::db::quote_ident(&self.name))
    }
}

impl std::fmt::Display for QualifiedName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.schema, self.name)
    }
}

/// What kind of relation a table entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    Table,
    View,
    MaterializedView,
    Foreign,
    Partitioned,
}

/// One column of a table or view.
#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    /// `format_type` of the column, e.g. `integer`, `character varying(20)`, `text[]`.
    pub data_type: String,
    /// Name of the base type in pg_type (`int4`, `_text`, `tsvector`, ...).
    pub type_name: String,
    pub nullable: bool,
    /// The default expression as Postgres prints it, if any.
    pub default: Option<String>,
    /// Values of an enum column.
    pub enum_values: Vec<String>,
    pub comment: Option<String>,
    /// Generated (stored) columns cannot be written.
    pub generated: bool,
    /// The functions that show and read values of its type (a domain's casts to and from
    /// `json` and `text`); empty for most columns.
    pub representation: Representation,
}

/// A table, view, materialized view or foreign table of an exposed schema.
#[derive(Debug, Clone)]
pub struct Table {
    pub name: QualifiedName,
    pub kind: TableKind,
    pub columns: Vec<Column>,
    pub primary_key: Vec<String>,
    /// Column sets with a unique constraint or the primary key (for one-to-one detection).
    pub unique_keys: Vec<Vec<String>>,
    pub insertable: bool,
    pub updatable: bool,
    pub deletable: bool,
    pub comment: Option<String>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// Volatility of a function: stable and immutable ones run in read-only transactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Volatility {
    Immutable,
    Stable,
    Volatile,
}

/// One input argument of a function.
#[derive(Debug, Clone)]
pub struct FunctionArg {
    pub name: String,
    pub data_type: String,
    pub has_default: bool,
    pub variadic: bool,
}

/// What a function returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReturnShape {
    Void,
    /// A scalar (or array, domain, enum, range) type.
    Scalar(String),
    /// A row type (table row type, composite type, OUT/TABLE parameters), with its columns.
    Composite {
        columns: Vec<(String, String)>,
        relation: Option<QualifiedName>,
    },
}

/// A function callable through `/rpc`.
#[derive(Debug, Clone)]
pub struct Function {
    pub name: QualifiedName,
    pub args: Vec<FunctionArg>,
    pub returns: ReturnShape,
    pub returns_set: bool,
    pub volatility: Volatility,
    pub comment: Option<String>,
    /// Set when it returns a domain named like a media type.
    pub media: Option<MediaDomain>,
}

/// A function's media-type domain: its name (`image/png`), and whether it is over `bytea`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaDomain {
    pub media_type: String,
    pub binary: bool,
}

impl Function {
    /// The signature as PostgREST prints it in errors: `schema.name(a, b)`.
    pub fn signature(&self) -> String {
        let args: Vec<&str> = self.args.iter().map(|a| a.name.as_str()).collect();
        format!("{}({})", self.name, args.join(", "))
    }
}

/// The whole cache.
#[derive(Debug, Clone, Default)]
pub struct SchemaCache {
    /// Exposed schemas in configuration order (the first is the default).
    pub schemas: Vec<String>,
    pub tables: HashMap<QualifiedName, Table>,
    /// Relationships keyed by their source table or view.
    pub relationships: HashMap<QualifiedName, Vec<Relationship>>,
    pub functions: HashMap<QualifiedName, Vec<Function>>,
    /// Per-role settings (`statement_timeout`, ...) applied in each request of that role.
    pub role_settings: HashMap<String, Vec<(String, String)>>,
    /// Whether the database has `ST_AsGeoJSON` (PostGIS), for `application/geo+json`.
    pub geojson: bool,
    /// Time-zone names of `pg_timezone_names`, for `Prefer: timezone=`.
    pub timezones: std::collections::HashSet<String>,
}

impl SchemaCache {
    pub fn table(&self, schema: &str, name: &str) -> Option<&Table> {
        self.tables.get(&QualifiedName::new(schema, name))
    }

    pub fn relationships_from(&self, source: &QualifiedName) -> &[Relationship] {
        self.relationships.get(source).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Names of the tables and views of `schema` (for "Perhaps you meant" hints).
    pub fn table_names<'a>(&'a self, schema: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.tables.keys().filter(move |q| q.schema == schema).map(|q| q.name.as_str())
    }
}

/// Shared, swappable cache.
#[derive(Debug, Clone, Default)]
pub struct SchemaCacheHandle {
    inner: Arc<RwLock<Arc<SchemaCache>>>,
}

impl SchemaCacheHandle {
    pub fn new(cache: SchemaCache) -> SchemaCacheHandle {
        SchemaCacheHandle { inner: Arc::new(RwLock::new(Arc::new(cache))) }
    }

    /// The current cache; requests keep the `Arc` they got even if a reload swaps it.
    pub fn get(&self) -> Arc<SchemaCache> {
        match self.inner.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub fn replace(&self, cache: SchemaCache) {
        match self.inner.write() {
            Ok(mut guard) => *guard = Arc::new(cache),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(cache),
        }
    }
}
