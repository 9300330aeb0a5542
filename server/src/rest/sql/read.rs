//! Reads as SQL: each plan level becomes a SELECT whose embedded resources are LATERAL joins
//! (`json_agg` for to-many, `row_to_json` for to-one), and the root is wrapped so that one
//! statement returns the total count (when asked), the page size and the JSON body as text.

use crate::rest::parse::{Aggregate, Direction, IsValue, JoinType, NullsOrder, Operation, SelectItem};
use crate::rest::plan::{EmbedPlan, PlanItem, ReadPlan, Source};
use crate::rest::schema::{Cardinality, Table};

use super::filter::{field_key, field_sql, filter_sql, logic_sql};
use super::{ident, Sql};

/// What the statement's body column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyShape {
    /// A JSON array of the rows.
    Array,
    /// The first row as a JSON object (the caller checks there is exactly one).
    First,
    /// Nothing (HEAD, `return=minimal`).
    None,
    /// A GeoJSON `FeatureCollection` of the rows (PostGIS's `ST_AsGeoJSON` of each row).
    GeoJson,
}

/// The parts of one level's SELECT.
struct Level {
    select: Vec<String>,
    from: String,
    wheres: Vec<String>,
    group_by: Vec<String>,
    order_by: Vec<String>,
    limit: Option<String>,
    offset: Option<String>,
}

impl Level {
    fn render(&self) -> String {
        let mut out = format!("SELECT {} FROM {}", self.select.join(", "), self.from);
        if !self.wheres.is_empty() {
            out.push_str(" WHERE ");
            out.push_str(&self.wheres.join(" AND "));
        }
        if !self.group_by.is_empty() {
            out.push_str(" GROUP BY ");
            out.push_str(&self.group_by.join(", "));
        }
        if !self.order_by.is_empty() {
            out.push_str(" ORDER BY ");
            out.push_str(&self.order_by.join(", "));
        }
        if let Some(limit) = &self.limit {
            out.push_str(" LIMIT ");
            out.push_str(limit);
        }
        if let Some(offset) = &self.offset {
            out.push_str(" OFFSET ");
            out.push_str(offset);
        }
        out
    }
}

/// Table aliases named as PostgREST names them, so Postgres's errors read as PostgREST's do
/// (`column messages_1.sum does not exist`): the root by its relation's name, each embedded or
/// junction relation by its name and a number, never twice in one statement.
#[derive(Default)]
struct Aliases(std::collections::HashSet<String>);

impl Aliases {
    /// Longest name kept before the number, so an alias stays under Postgres's 63 bytes.
    const MAX_NAME: usize = 48;

    fn root(&mut self, source: &Source) -> String {
        let name = match source {
            Source::Relation(name) => Self::short(&name.name),
            Source::Raw(_) => "pgrst_source".to_string(),
        };
        self.0.insert(name.clone());
        name
    }

    fn next(&mut self, relation: &str) -> String {
        let name = Self::short(relation);
        let alias = (1..).map(|n| format!("{name}_{n}")).find(|a| !self.0.contains(a)).unwrap_or_default();
        self.0.insert(alias.clone());
        alias
    }

    fn short(name: &str) -> String {
        let mut end = name.len().min(Self::MAX_NAME);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name[..end].to_string()
    }
}

fn source_sql(source: &Source) -> String {
    match source {
        Source::Relation(name) => name.sql(),
        Source::Raw(text) => text.clone(),
    }
}

/// One select item as SQL: `expr AS "key"`, what to group by when its level aggregates and it
/// does not (nothing for `*`), and whether it is an aggregate.
struct ItemSql {
    select: String,
    group: Option<String>,
    aggregate: bool,
}

fn item_sql(item: &SelectItem, alias: &str, table: Option<&Table>) -> Option<ItemSql> {
    match item {
        SelectItem::Star => Some(ItemSql { select: format!("{}.*", ident(alias)), group: None, aggregate: false }),
        SelectItem::Column { field, alias: out_alias, cast, aggregate, aggregate_cast } => {
            let column = field_sql(field, alias);
            // A column of a domain shown through its JSON cast is formatted by the cast's
            // function (not inside an aggregate, which wants the value itself), before any
            // `::type` the request adds, as PostgREST does; the level groups by the column.
            let formatter = table
                .filter(|_| field.json_path.is_empty() && aggregate.is_none())
                .and_then(|t| t.column(&field.column))
                .and_then(|c| c.representation.to_json.as_deref());
            let mut expr = match formatter {
                Some(function) => format!("{function}({column})"),
                None => column.clone(),
            };
            if let Some(cast) = cast {
                expr = format!("CAST({expr} AS {cast})");
            }
            let group = if formatter.is_some() { column } else { expr.clone() };
            let key = out_alias.clone().unwrap_or_else(|| match aggregate {
                Some(agg) if out_alias.is_none() => aggregate_name(*agg).to_string(),
                _ => field_key(field),
            });
            if let Some(agg) = aggregate {
                expr = format!("{}({expr})", aggregate_name(*agg));
                if let Some(cast) = aggregate_cast {
                    expr = format!("CAST({expr} AS {cast})");
                }
            }
            Some(ItemSql {
                select: format!("{expr} AS {}", ident(&key)),
                group: Some(group),
                aggregate: aggregate.is_some(),
            })
        }
        SelectItem::CountAll { alias: out_alias, cast } => {
            let mut expr = "count(*)".to_string();
            if let Some(cast) = cast {
                expr = format!("CAST({expr} AS {cast})");
            }
            let select = format!("{expr} AS {}", ident(out_alias.as_deref().unwrap_or("count")));
            Some(ItemSql { select, group: None, aggregate: true })
        }
        SelectItem::Embed { .. } => None,
    }
}

/// The output columns (quoted) of a spread level, as its select list names them, with `::text`
/// after an embedded object (for GROUP BY: `json` has no equality).
fn spread_columns(plan: &ReadPlan) -> Vec<String> {
    spread_names(plan).into_iter().map(|(name, json)| if json { format!("{name}::text") } else { name }).collect()
}

/// The output names (quoted) of a spread level, each with whether it holds embedded JSON.
fn spread_names(plan: &ReadPlan) -> Vec<(String, bool)> {
    let mut columns = Vec::new();
    for item in &plan.items {
        match item {
            PlanItem::Select(SelectItem::Star) => {
                columns.extend(plan.table.iter().flat_map(|t| t.columns.iter().map(|c| (ident(&c.name), false))));
            }
            PlanItem::Select(item) => {
                if let Some(ItemSql { select, .. }) = item_sql(item, "x", None) {
                    if let Some((_, name)) = select.rsplit_once(" AS ") {
                        columns.push((name.to_string(), false));
                    }
                }
            }
            PlanItem::Embed(i) => {
                let embed = &plan.embeds[*i];
                if embed.hidden {
                    continue;
                }
                if embed.spread {
                    columns.extend(spread_names(&embed.plan));
                } else {
                    columns.push((ident(&embed.key), true));
                }
            }
        }
    }
    columns
}

fn aggregate_name(agg: Aggregate) -> &'static str {
    match agg {
        Aggregate::Count => "count",
        Aggregate::Sum => "sum",
        Aggregate::Avg => "avg",
        Aggregate::Max => "max",
        Aggregate::Min => "min",
    }
}

/// How a level is tied to its parent: the conditions of a foreign key (`join`), a junction
/// joined in (`extra_from`), or a function of the parent row read instead of the level's
/// relation (`source`, for computed relationships).
#[derive(Default)]
struct Tie {
    source: Option<String>,
    extra_from: Option<String>,
    join: Vec<String>,
}

/// Build one level.
fn level(plan: &ReadPlan, alias: &str, sql: &mut Sql, aliases: &mut Aliases, tie: Tie) -> Level {
    let Tie { source, extra_from, join } = tie;
    let source = source.unwrap_or_else(|| source_sql(&plan.source));
    let mut from = format!("{source} AS {}", ident(alias));
    if let Some(extra) = extra_from {
        from.push(' ');
        from.push_str(&extra);
    }
    let mut wheres = join;
    let mut select = Vec::new();
    let mut group_by = Vec::new();
    let aggregated = plan.has_aggregates();
    let mut embed_aliases = Vec::new();

    for embed in &plan.embeds {
        let e_alias = aliases.next(&embed.relationship.target.name);
        let lateral = embed_lateral(embed, alias, &e_alias, sql, aliases);
        let join_kind = if embed.join == JoinType::Inner && embed.relationship.is_to_one() { "INNER" } else { "LEFT" };
        from.push_str(&format!(" {join_kind} JOIN LATERAL ({lateral}) AS {} ON TRUE", ident(&e_alias)));
        if embed.join == JoinType::Inner && !embed.relationship.is_to_one() {
            wheres.push(format!("{}.\"__j\" IS NOT NULL", ident(&e_alias)));
        }
        embed_aliases.push(e_alias);
    }

    for item in &plan.items {
        match item {
            PlanItem::Select(item) => {
                if let Some(item) = item_sql(item, alias, plan.table) {
                    if let Some(group) = item.group.filter(|_| aggregated && !item.aggregate) {
                        group_by.push(group);
                    }
                    select.push(item.select);
                }
            }
            PlanItem::Embed(i) => {
                let (embed, e_alias) = (&plan.embeds[*i], &embed_aliases[*i]);
                if embed.hidden {
                    continue;
                }
                if embed.spread && embed.relationship.is_to_one() {
                    select.push(format!("{}.*", ident(e_alias)));
                } else if embed.spread {
                    // A to-many spread: each of its columns is an array, of the child rows' values.
                    let names = spread_names(&embed.plan).into_iter().map(|(n, _)| format!("{}.{n}", ident(e_alias)));
                    select.extend(names);
                } else if embed.relationship.is_to_one() {
                    select.push(format!("{}.\"__j\" AS {}", ident(e_alias), ident(&embed.key)));
                } else {
                    select.push(format!("coalesce({}.\"__j\", '[]'::json) AS {}", ident(e_alias), ident(&embed.key)));
                }
                if aggregated && !embed.spread {
                    group_by.push(format!("{}.\"__j\"::text", ident(e_alias)));
                }
                if aggregated && embed.spread {
                    // A spread's columns are plain columns of this level: grouped too (a to-many
                    // spread's are JSON arrays, grouped by their text).
                    let to_many = !embed.relationship.is_to_one();
                    for column in spread_columns(&embed.plan) {
                        let text = if to_many && !column.ends_with("::text") { "::text" } else { "" };
                        group_by.push(format!("{}.{}{text}", ident(e_alias), column));
                    }
                }
            }
        }
    }

    for filter in &plan.filters {
        // `rel=is.null` / `rel=not.is.null` on an embedded resource filters the parent.
        let embed = plan.embeds.iter().position(|e| {
            filter.field.json_path.is_empty() && (e.key == filter.field.column || e.written == filter.field.column)
        });
        match (embed, &filter.op) {
            (Some(i), Operation::Is(value @ (IsValue::Null | IsValue::NotNull))) => {
                let null = (*value == IsValue::Null) != filter.negated;
                let test = if null { "IS NULL" } else { "IS NOT NULL" };
                wheres.push(format!("{}.\"__j\" {test}", ident(&embed_aliases[i])));
            }
            _ => wheres.push(filter_sql(filter, alias, plan.table, sql)),
        }
    }
    for tree in &plan.logic {
        wheres.push(logic_sql(tree, alias, plan.table, sql));
    }

    let mut order_by = Vec::new();
    for term in &plan.order {
        let expr = match &term.relation {
            Some(rel) => match plan.embeds.iter().position(|e| e.alias.as_deref() == Some(rel) || &e.written == rel) {
                Some(i) => field_sql(&term.field, &embed_aliases[i]),
                None => field_sql(&term.field, rel),
            },
            None => field_sql(&term.field, alias),
        };
        let mut clause = expr;
        match term.direction {
            Some(Direction::Asc) => clause.push_str(" ASC"),
            Some(Direction::Desc) => clause.push_str(" DESC"),
            None => {}
        }
        match term.nulls {
            Some(NullsOrder::First) => clause.push_str(" NULLS FIRST"),
            Some(NullsOrder::Last) => clause.push_str(" NULLS LAST"),
            None => {}
        }
        order_by.push(clause);
    }
    let limit = plan.limit.map(|l| sql.bind(l.to_string()));
    let offset = plan.offset.filter(|o| *o > 0).map(|o| sql.bind(o.to_string()));
    Level { select, from, wheres, group_by, order_by, limit, offset }
}

/// The LATERAL subquery of an embedding.
fn embed_lateral(embed: &EmbedPlan, parent: &str, alias: &str, sql: &mut Sql, aliases: &mut Aliases) -> String {
    let mut tie = Tie::default();
    let Tie { source, extra_from, join } = &mut tie;
    match &embed.relationship.cardinality {
        Cardinality::ManyToOne { columns }
        | Cardinality::OneToMany { columns }
        | Cardinality::OneToOne { columns, .. } => {
            for (source_col, target_col) in columns {
                join.push(format!("{}.{} = {}.{}", ident(alias), ident(target_col), ident(parent), ident(source_col)));
            }
        }
        Cardinality::ManyToMany { junction, source_columns, target_columns, .. } => {
            let j_alias = aliases.next(&junction.name);
            let on: Vec<String> = target_columns
                .iter()
                .map(|(jcol, tcol)| format!("{}.{} = {}.{}", ident(&j_alias), ident(jcol), ident(alias), ident(tcol)))
                .collect();
            *extra_from = Some(format!("JOIN {} AS {} ON {}", junction.sql(), ident(&j_alias), on.join(" AND ")));
            for (scol, jcol) in source_columns {
                join.push(format!("{}.{} = {}.{}", ident(&j_alias), ident(jcol), ident(parent), ident(scol)));
            }
        }
        Cardinality::Computed { function, .. } => {
            // The parent row, cast to the parameter's type: a parent read from a CTE (a
            // mutation's rows) is an anonymous record, and the cast also picks the overload.
            *source = Some(format!("{}({}::{})", function.sql(), ident(parent), embed.relationship.source.sql()));
        }
    }
    let inner = level(&embed.plan, alias, sql, aliases, tie).render();
    let row = format!("{alias}_row");
    if embed.spread && embed.relationship.is_to_one() {
        format!("SELECT {r}.* FROM ({inner}) AS {r}", r = ident(&row))
    } else if embed.spread {
        let arrays: Vec<String> = spread_names(&embed.plan)
            .into_iter()
            .map(|(name, _)| format!("coalesce(json_agg({r}.{name}), '[]') AS {name}", r = ident(&row)))
            .collect();
        let mut select = vec![format!("json_agg({}) AS \"__j\"", ident(&row))];
        select.extend(arrays);
        format!("SELECT {} FROM ({inner}) AS {r}", select.join(", "), r = ident(&row))
    } else if embed.relationship.is_to_one() {
        format!("SELECT row_to_json({r}) AS \"__j\", {r}.* FROM ({inner}) AS {r}", r = ident(&row))
    } else {
        format!("SELECT json_agg({r}) AS \"__j\" FROM ({inner}) AS {r}", r = ident(&row))
    }
}

/// A full read statement: `(total bigint, page bigint, body text)`.
///
/// `ctes` are extra WITH entries placed first (a mutation whose rows `plan` reads).
pub fn read_statement(
    plan: &ReadPlan,
    sql: &mut Sql,
    exact_count: bool,
    body: BodyShape,
    ctes: Option<String>,
) -> String {
    statement(plan, sql, exact_count, None, body, ctes)
}

/// [`read_statement`] whose `total` is `total_sql` (e.g. how many rows an upsert inserted).
pub fn read_statement_with_total(
    plan: &ReadPlan,
    sql: &mut Sql,
    total_sql: &str,
    body: BodyShape,
    ctes: Option<String>,
) -> String {
    statement(plan, sql, false, Some(total_sql), body, ctes)
}

fn statement(
    plan: &ReadPlan,
    sql: &mut Sql,
    exact_count: bool,
    total_sql: Option<&str>,
    body: BodyShape,
    ctes: Option<String>,
) -> String {
    let mut aliases = Aliases::default();
    let root_alias = aliases.root(&plan.source);
    let root = level(plan, &root_alias, sql, &mut aliases, Tie::default());
    let count = if let Some(total) = total_sql {
        total.to_string()
    } else if exact_count {
        let mut q = format!("SELECT count(*) FROM {}", root.from);
        if !root.wheres.is_empty() {
            q.push_str(" WHERE ");
            q.push_str(&root.wheres.join(" AND "));
        }
        if !root.group_by.is_empty() {
            q = format!("SELECT count(*) FROM ({q} GROUP BY {}) AS pgrst_groups", root.group_by.join(", "));
        }
        format!("({q})")
    } else {
        "NULL".to_string()
    };
    let body_sql = match body {
        BodyShape::Array => "coalesce(json_agg(_pgrst_t), '[]')::text",
        BodyShape::First => "coalesce((json_agg(_pgrst_t)->0)::text, 'null')",
        BodyShape::None => "''",
        BodyShape::GeoJson => {
            "json_build_object('type', 'FeatureCollection', 'features', \
             coalesce(json_agg(ST_AsGeoJSON(_pgrst_t)::json), '[]'))::text"
        }
    };
    let mut with = Vec::new();
    if let Some(ctes) = ctes {
        with.push(ctes);
    }
    with.push(format!("pgrst_source AS ({})", root.render()));
    format!(
        "WITH {} SELECT {count}::bigint AS total, count(_pgrst_t)::bigint AS page, {body_sql} AS body, {} \
         FROM pgrst_source AS _pgrst_t",
        with.join(", "),
        super::RESPONSE_SETTINGS
    )
}

/// `EXPLAIN`-able count for `count=planned|estimated`: the root's FROM and WHERE only.
pub fn count_query(plan: &ReadPlan, sql: &mut Sql) -> String {
    let mut aliases = Aliases::default();
    let root_alias = aliases.root(&plan.source);
    let root = level(plan, &root_alias, sql, &mut aliases, Tie::default());
    let mut q = format!("SELECT 1 FROM {}", root.from);
    if !root.wheres.is_empty() {
        q.push_str(" WHERE ");
        q.push_str(&root.wheres.join(" AND "));
    }
    q
}
