//! Typed syntax tree produced by the PostgREST query-string, `Prefer` and `Range` parsers.
//!
//! These types only describe what the client asked for. They must not resolve names
//! against the schema, build SQL, or hold anything from the HTTP layer. Every string in
//! them is raw client input: identifiers (columns, relations, aliases, hints) must be
//! quoted as identifiers by the SQL layer and values must be bound as parameters or
//! literals, never spliced. The one exception is a cast name, which the parser only lets
//! through in a type-name shape (see [`SelectItem::Column::cast`]).

/// Where a filter, logic tree, order or limit applies: `[]` is the root resource,
/// `["films"]` the `films` embedding under it, `["films", "actors"]` one level deeper.
/// Segments are the relation names or aliases as written in the key (`films.year=...`).
pub type EmbedPath = Vec<String>;

/// Everything parsed from the query string of one request, in query-string order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QueryParams {
    /// `select=`. Empty means "not given" or `select=` at the root, both of which PostgREST
    /// treats as `*`. (An *embedded* empty list, `rel()`, means "select nothing of rel"; see
    /// [`SelectItem::Embed`].) Only the first `select` key counts, as in PostgREST.
    pub select: Vec<SelectItem>,
    /// Horizontal filters `col=op.value`, with the embedding they apply to.
    pub filters: Vec<(EmbedPath, Filter)>,
    /// `and=(...)`, `or=(...)`, `not.or=(...)`, `rel.or=(...)` trees. The tree root is always
    /// a [`LogicTree::Node`] carrying the key's operator and negation.
    pub logic: Vec<(EmbedPath, LogicTree)>,
    /// `order=` / `rel.order=`; one entry per key, in query-string order.
    pub order: Vec<(EmbedPath, Vec<OrderTerm>)>,
    /// `limit` / `offset` / `rel.limit` / `rel.offset` merged per embedding:
    /// `(path, limit, offset)`. When a key repeats, the last value wins (as PostgREST).
    /// Values are non-negative and at most `i64::MAX`. `limit=0` is returned as `Some(0)`.
    pub limits: Vec<(EmbedPath, Option<u64>, Option<u64>)>,
    /// `on_conflict=a,b` (first occurrence only).
    pub on_conflict: Option<Vec<String>>,
    /// `columns=a,b` (first occurrence only).
    pub columns: Option<Vec<String>>,
    /// For RPC requests only: `(raw key, raw value)` of the keys the caller declared to be
    /// function arguments, in order. Never parsed.
    pub rpc_args: Vec<(String, String)>,
}

/// A column reference, optionally followed by JSON navigation: `data->a->>b`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Column name (unquoted form; quote it as an identifier).
    pub column: String,
    /// JSON operators applied left to right; empty for a plain column.
    pub json_path: Vec<JsonOperation>,
}

/// One JSON navigation step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonOperation {
    /// `->` (result stays `json`/`jsonb`).
    Arrow(JsonKey),
    /// `->>` (result is `text`).
    DoubleArrow(JsonKey),
}

/// Operand of a JSON arrow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonKey {
    /// Object key, e.g. `->name` or `->"a.b"`. Bind it as a text literal.
    Key(String),
    /// Array index, e.g. `->0` or `->-1`: an integer followed by `->`, `::`, `.`, `,`, `)`
    /// or the end. Anything else that starts with a digit (`->1a`) is a [`JsonKey::Key`].
    Index(i64),
}

/// One item of a `select=` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectItem {
    /// `*`: all columns of the current resource.
    Star,
    /// A column, e.g. `alias:col->a::text`, `amount.sum()`, `total:amount::int.sum()::text`.
    Column {
        /// Column and optional JSON path.
        field: Field,
        /// `alias:` prefix (an identifier; quote it).
        alias: Option<String>,
        /// `::type` right after the field, applied before any aggregate. Only type-name
        /// shapes pass: ASCII letters/digits/underscores starting with a letter or `_`,
        /// further words only from the SQL type keywords (`double precision`,
        /// `timestamp with time zone`, ...), modifiers `(n)` / `(n,m)` and array suffixes
        /// `[]` / `[n]`. Emit it verbatim, ideally as `CAST(expr AS <cast>)`.
        cast: Option<String>,
        /// `.sum()`, `.avg()`, `.max()`, `.min()`, `.count()`.
        aggregate: Option<Aggregate>,
        /// `::type` after the aggregate call; same shape rules as `cast`.
        aggregate_cast: Option<String>,
    },
    /// `count()` (an aggregate over all rows), e.g. `n:count()::int`.
    CountAll {
        /// `alias:` prefix.
        alias: Option<String>,
        /// `::type` applied to the count; same shape rules as a column cast.
        cast: Option<String>,
    },
    /// An embedded resource `alias:rel!hint!inner(...)` or a spread `...rel!hint(...)`.
    Embed {
        /// Relation (table, view, or foreign-key/column name used for disambiguation).
        relation: String,
        /// `alias:` prefix; always `None` for a spread.
        alias: Option<String>,
        /// `!hint` (foreign key name, column or junction table).
        hint: Option<String>,
        /// `!inner` / `!left`. Unquoted `inner` and `left` are join types; `!"inner"` is a hint.
        join: Option<JoinType>,
        /// `...rel(...)`: the embedded columns are spread into the parent.
        spread: bool,
        /// Items selected from the relation; may be empty (`rel()`), which selects nothing
        /// from it (used to filter on it without returning it).
        select: Vec<SelectItem>,
    },
}

/// Aggregate functions allowed in `select`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    /// `count()`
    Count,
    /// `sum()`
    Sum,
    /// `avg()`
    Avg,
    /// `max()`
    Max,
    /// `min()`
    Min,
}

/// Join type of an embedding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinType {
    /// `!inner`: parent rows without a match are dropped.
    Inner,
    /// `!left`: the default.
    Left,
}

/// A horizontal filter `field=[not.]op.value` (or a leaf of a logic tree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// The filtered column (the key's last segment, plus its JSON path).
    pub field: Field,
    /// `not.` prefix.
    pub negated: bool,
    /// Operator and operand.
    pub op: Operation,
}

/// Operator and operand of a filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// `eq.5`, `neq.a`, `cs.{1,2}`, `ov.[1,5)`, `isdistinct.x`, ...
    /// The value is raw text (arrays and ranges stay literals for Postgres to parse). For
    /// `like`/`ilike` every `*` has already been turned into `%`, as PostgREST does.
    Compare {
        /// The operator.
        op: CompareOp,
        /// Raw operand text (may be empty).
        value: String,
    },
    /// `eq(any).{a,b}`, `like(all).{a*,b*}`: only for `eq gt gte lt lte like ilike match
    /// imatch`. `value` is the raw array literal, passed as `op ANY(value)` / `op ALL(value)`
    /// exactly as PostgREST does (for `like`/`ilike`, `*` is already `%`).
    Quantified {
        /// The operator (see [`CompareOp::accepts_quantifier`]).
        op: CompareOp,
        /// `any` or `all`.
        quantifier: Quantifier,
        /// Raw array literal text, e.g. `{a,b}`.
        value: String,
    },
    /// `in.(a,"b,c",d)`: quoted elements are unquoted with `\` escapes resolved; unquoted
    /// elements are kept verbatim (including spaces). `in.()` is the empty list, which
    /// PostgREST turns into `= ANY('{}')` (matches nothing).
    In(Vec<String>),
    /// `is.null`, `is.not_null`, `is.true`, `is.false`, `is.unknown` (case-insensitive).
    Is(IsValue),
    /// `fts.x`, `plfts(english).x`, ...: `col @@ <function>(config, value)`.
    Fts {
        /// Which tsquery function.
        kind: FtsKind,
        /// Text search configuration from `fts(config)`; bind it as a literal.
        config: Option<String>,
        /// Raw query text.
        value: String,
    },
}

/// Binary comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `eq` `=`
    Eq,
    /// `neq` `<>`
    Neq,
    /// `gt` `>`
    Gt,
    /// `gte` `>=`
    Gte,
    /// `lt` `<`
    Lt,
    /// `lte` `<=`
    Lte,
    /// `like` `LIKE` (`*` already turned into `%`)
    Like,
    /// `ilike` `ILIKE` (`*` already turned into `%`)
    Ilike,
    /// `match` `~`
    Match,
    /// `imatch` `~*`
    Imatch,
    /// `isdistinct` `IS DISTINCT FROM`
    IsDistinct,
    /// `cs` `@>`
    Cs,
    /// `cd` `<@`
    Cd,
    /// `ov` `&&`
    Ov,
    /// `sl` `<<`
    Sl,
    /// `sr` `>>`
    Sr,
    /// `nxl` `&>`
    Nxl,
    /// `nxr` `&<`
    Nxr,
    /// `adj` `-|-`
    Adj,
}

impl CompareOp {
    /// The query-string spelling (`"eq"`, `"isdistinct"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Eq => "eq",
            Self::Neq => "neq",
            Self::Gt => "gt",
            Self::Gte => "gte",
            Self::Lt => "lt",
            Self::Lte => "lte",
            Self::Like => "like",
            Self::Ilike => "ilike",
            Self::Match => "match",
            Self::Imatch => "imatch",
            Self::IsDistinct => "isdistinct",
            Self::Cs => "cs",
            Self::Cd => "cd",
            Self::Ov => "ov",
            Self::Sl => "sl",
            Self::Sr => "sr",
            Self::Nxl => "nxl",
            Self::Nxr => "nxr",
            Self::Adj => "adj",
        }
    }

    /// The SQL operator PostgREST emits for it.
    pub fn sql_operator(self) -> &'static str {
        match self {
            Self::Eq => "=",
            Self::Neq => "<>",
            Self::Gt => ">",
            Self::Gte => ">=",
            Self::Lt => "<",
            Self::Lte => "<=",
            Self::Like => "LIKE",
            Self::Ilike => "ILIKE",
            Self::Match => "~",
            Self::Imatch => "~*",
            Self::IsDistinct => "IS DISTINCT FROM",
            Self::Cs => "@>",
            Self::Cd => "<@",
            Self::Ov => "&&",
            Self::Sl => "<<",
            Self::Sr => ">>",
            Self::Nxl => "&>",
            Self::Nxr => "&<",
            Self::Adj => "-|-",
        }
    }

    /// Whether its value is a text pattern (`like`, `ilike`, `match`, `imatch`), not a value of
    /// the column's type.
    pub fn is_pattern(self) -> bool {
        matches!(self, Self::Like | Self::Ilike | Self::Match | Self::Imatch)
    }

    /// Whether `op(any)` / `op(all)` is accepted (`eq gt gte lt lte like ilike match imatch`).
    pub fn accepts_quantifier(self) -> bool {
        matches!(
            self,
            Self::Eq
                | Self::Gt
                | Self::Gte
                | Self::Lt
                | Self::Lte
                | Self::Like
                | Self::Ilike
                | Self::Match
                | Self::Imatch
        )
    }
}

/// `(any)` / `(all)` after a quantifiable operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantifier {
    /// `ANY(...)`
    Any,
    /// `ALL(...)`
    All,
}

/// Operand of `is.`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsValue {
    /// `IS NULL`
    Null,
    /// `IS NOT NULL`
    NotNull,
    /// `IS TRUE`
    True,
    /// `IS FALSE`
    False,
    /// `IS UNKNOWN`
    Unknown,
}

/// Full-text search operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FtsKind {
    /// `fts`: `to_tsquery`
    Fts,
    /// `plfts`: `plainto_tsquery`
    Plfts,
    /// `phfts`: `phraseto_tsquery`
    Phfts,
    /// `wfts`: `websearch_to_tsquery`
    Wfts,
}

impl FtsKind {
    /// The tsquery constructor PostgREST calls for it.
    pub fn function(self) -> &'static str {
        match self {
            Self::Fts => "to_tsquery",
            Self::Plfts => "plainto_tsquery",
            Self::Phfts => "phraseto_tsquery",
            Self::Wfts => "websearch_to_tsquery",
        }
    }
}

/// A boolean combination of filters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogicTree {
    /// `[not.]and(...)` / `[not.]or(...)`; never has zero children.
    Node {
        /// `not.` prefix.
        negated: bool,
        /// `and` / `or`.
        op: LogicOp,
        /// Operands, in order.
        children: Vec<LogicTree>,
    },
    /// `col.[not.]op.value`.
    Leaf(Filter),
}

/// Logic tree operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicOp {
    /// `and`
    And,
    /// `or`
    Or,
}

/// One term of `order=`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderTerm {
    /// `Some(rel)` for `rel(col)`: order by a column of a to-one embedded relation.
    pub relation: Option<String>,
    /// The column (and JSON path) to order by.
    pub field: Field,
    /// `.asc` / `.desc`; `None` means the database default (ascending).
    pub direction: Option<Direction>,
    /// `.nullsfirst` / `.nullslast`; `None` means the database default.
    pub nulls: Option<NullsOrder>,
}

/// Order direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `ASC`
    Asc,
    /// `DESC`
    Desc,
}

/// Placement of NULLs in an ordering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NullsOrder {
    /// `NULLS FIRST`
    First,
    /// `NULLS LAST`
    Last,
}
