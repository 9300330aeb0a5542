//! Planning a read: the parsed query string resolved against the schema cache into a tree of
//! `ReadPlan`s (one per embedding level), with filters, logic trees, order and limits moved to
//! the level they name, and every embedding resolved to one relationship (PGRST200/201 when it
//! cannot be). Column names are not checked here: they are quoted into SQL and Postgres
//! reports unknown ones (42703), as with PostgREST. No SQL is written here.

use crate::rest::error::{self as err_schema, RestError};
use crate::rest::parse::{Filter, JoinType, LogicTree, OrderTerm, QueryParams, SelectItem};
use crate::rest::schema::{Cardinality, QualifiedName, Relationship, SchemaCache, Table, TableKind};

/// What a level reads from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A table or view.
    Relation(QualifiedName),
    /// An SQL expression usable in FROM (a CTE name, a function call); trusted text.
    Raw(String),
}

/// One item of a level's output, in request order.
#[derive(Debug, Clone)]
pub enum PlanItem {
    Select(SelectItem),
    /// Index into `ReadPlan::embeds`.
    Embed(usize),
}

/// One level of a read.
#[derive(Debug, Clone)]
pub struct ReadPlan<'c> {
    pub source: Source,
    pub table: Option<&'c Table>,
    pub items: Vec<PlanItem>,
    pub filters: Vec<Filter>,
    pub logic: Vec<LogicTree>,
    pub order: Vec<OrderTerm>,
    pub limit: Option<u64>,
    pub offset: Option<u64>,
    pub embeds: Vec<EmbedPlan<'c>>,
}

/// An embedded resource under a level.
#[derive(Debug, Clone)]
pub struct EmbedPlan<'c> {
    /// Output key (alias, else the relation name as written).
    pub key: String,
    /// The relation name as written in `select`.
    pub written: String,
    pub alias: Option<String>,
    pub relationship: Relationship,
    pub join: JoinType,
    pub spread: bool,
    /// `rel()`: selected for filtering only, not returned.
    pub hidden: bool,
    pub plan: ReadPlan<'c>,
}

/// Options that shape planning.
#[derive(Debug, Clone, Copy)]
pub struct PlanOptions {
    pub aggregates_enabled: bool,
}

impl<'c> ReadPlan<'c> {
    fn new(source: Source, table: Option<&'c Table>) -> ReadPlan<'c> {
        ReadPlan {
            source,
            table,
            items: Vec::new(),
            filters: Vec::new(),
            logic: Vec::new(),
            order: Vec::new(),
            limit: None,
            offset: None,
            embeds: Vec::new(),
        }
    }

    /// Whether any item of this level is an aggregate.
    pub fn has_aggregates(&self) -> bool {
        self.items.iter().any(|item| {
            matches!(
                item,
                PlanItem::Select(SelectItem::CountAll { .. })
                    | PlanItem::Select(SelectItem::Column { aggregate: Some(_), .. })
            )
        })
    }
}

/// Plan a read of `table` (or of `source` shaped like it) for `query`.
pub fn plan_read<'c>(
    cache: &'c SchemaCache,
    table: Option<&'c Table>,
    source: Source,
    query: &QueryParams,
    options: PlanOptions,
) -> Result<ReadPlan<'c>, RestError> {
    let select = if query.select.is_empty() { vec![SelectItem::Star] } else { query.select.clone() };
    let mut root = plan_level(cache, table, source, &select, options, 0)?;
    for (path, filter) in &query.filters {
        level_mut(&mut root, path)?.filters.push(filter.clone());
    }
    for (path, tree) in &query.logic {
        level_mut(&mut root, path)?.logic.push(tree.clone());
    }
    for (path, terms) in &query.order {
        let level = level_mut(&mut root, path)?;
        for term in terms {
            check_related_order(level, term)?;
        }
        level.order.extend(terms.iter().cloned());
    }
    for (path, limit, offset) in &query.limits {
        let level = level_mut(&mut root, path)?;
        if limit.is_some() {
            level.limit = *limit;
        }
        if offset.is_some() {
            level.offset = *offset;
        }
    }
    Ok(root)
}

fn plan_level<'c>(
    cache: &'c SchemaCache,
    table: Option<&'c Table>,
    source: Source,
    select: &[SelectItem],
    options: PlanOptions,
    depth: usize,
) -> Result<ReadPlan<'c>, RestError> {
    let mut plan = ReadPlan::new(source, table);
    // PostgREST names each embed's subquery `<parent>_<alias or name>_<depth>`: the same name
    // embedded twice at one level (`users!a(*), users!b(*)`) makes Postgres refuse the query.
    let mut subqueries = std::collections::HashSet::new();
    for item in select {
        match item {
            SelectItem::Embed { relation, alias, hint, join, spread, select: child_select } => {
                let Some(parent) = table else {
                    return Err(RestError::relationship_not_found(
                        "",
                        relation,
                        hint.as_deref(),
                        cache.schemas.first().map(String::as_str).unwrap_or("public"),
                        None,
                        &[],
                    ));
                };
                let relationship = resolve_relationship(cache, parent, relation, hint.as_deref())?;
                let to_many_spread = *spread && !relationship.is_to_one();
                let Some(target) = cache.tables.get(&relationship.target) else {
                    return Err(RestError::internal(format!(
                        "relationship target {} missing from cache",
                        relationship.target
                    )));
                };
                let child_items = if child_select.is_empty() { Vec::new() } else { child_select.clone() };
                let subquery = format!("{}_{}_{}", parent.name.name, alias.as_deref().unwrap_or(relation), depth + 1);
                if !subqueries.insert(subquery.clone()) {
                    let message = format!("table name \"{subquery}\" specified more than once");
                    return Err(RestError::db("42712", message, None, None, false));
                }
                let child = plan_level(
                    cache,
                    Some(target),
                    Source::Relation(target.name.clone()),
                    &child_items,
                    options,
                    depth + 1,
                )?;
                if to_many_spread && child.has_aggregates() {
                    return Err(RestError::not_implemented(
                        "Aggregates are not implemented for one-to-many or many-to-many spreads.",
                    ));
                }
                let index = plan.embeds.len();
                plan.embeds.push(EmbedPlan {
                    key: alias.clone().unwrap_or_else(|| relation.clone()),
                    written: relation.clone(),
                    alias: alias.clone(),
                    relationship,
                    join: join.unwrap_or(JoinType::Left),
                    spread: *spread,
                    hidden: child_select.is_empty(),
                    plan: child,
                });
                plan.items.push(PlanItem::Embed(index));
            }
            other => {
                let is_aggregate =
                    matches!(other, SelectItem::CountAll { .. } | SelectItem::Column { aggregate: Some(_), .. });
                if is_aggregate && !options.aggregates_enabled {
                    return Err(RestError::AggregatesDisabled);
                }
                plan.items.extend(expand_star(table, other).into_iter().map(PlanItem::Select));
            }
        }
    }
    Ok(plan)
}

/// `*` over a relation with a column shown through its domain's JSON cast, spelled out column
/// by column so that each can be formatted (PostgREST's `expandStars`); any other item as is.
fn expand_star(table: Option<&Table>, item: &SelectItem) -> Vec<SelectItem> {
    match table {
        Some(table)
            if *item == SelectItem::Star && table.columns.iter().any(|c| c.representation.to_json.is_some()) =>
        {
            table
                .columns
                .iter()
                .map(|c| SelectItem::Column {
                    field: crate::rest::parse::Field { column: c.name.clone(), json_path: Vec::new() },
                    alias: None,
                    cast: None,
                    aggregate: None,
                    aggregate_cast: None,
                })
                .collect()
        }
        _ => vec![item.clone()],
    }
}

/// A `rel(col)` order term must name a to-one embed of its level (PostgREST's
/// `addRelatedOrders`): PGRST108 when `rel` is not embedded, PGRST118 when it is to-many (a
/// child table, a many-to-many, a set-returning computed relationship).
fn check_related_order(level: &ReadPlan<'_>, term: &OrderTerm) -> Result<(), RestError> {
    let Some(rel) = &term.relation else { return Ok(()) };
    match level.embeds.iter().find(|e| e.alias.as_deref() == Some(rel) || &e.written == rel) {
        Some(embed) if embed.relationship.is_to_one() => Ok(()),
        Some(embed) => {
            let origin = match (&level.table, &level.source) {
                (Some(table), _) => table.name.name.clone(),
                (None, Source::Relation(name)) => name.name.clone(),
                (None, Source::Raw(_)) => String::new(),
            };
            let target = embed.alias.clone().unwrap_or_else(|| embed.written.clone());
            Err(RestError::related_order_not_to_one(origin, target))
        }
        None => Err(RestError::not_embedded(rel.clone())),
    }
}

/// The level at `path` (relation names or aliases), or PGRST108.
fn level_mut<'p, 'c>(root: &'p mut ReadPlan<'c>, path: &[String]) -> Result<&'p mut ReadPlan<'c>, RestError> {
    let mut level = root;
    for segment in path {
        let Some(index) =
            level.embeds.iter().position(|e| e.alias.as_deref() == Some(segment) || &e.written == segment)
        else {
            return Err(RestError::not_embedded(segment.clone()));
        };
        level = &mut level.embeds[index].plan;
    }
    Ok(level)
}

/// Find the one relationship `relation` (with optional `hint`) names from `parent`.
pub fn resolve_relationship(
    cache: &SchemaCache,
    parent: &Table,
    relation: &str,
    hint: Option<&str>,
) -> Result<Relationship, RestError> {
    let all = cache.relationships_from(&parent.name);
    let candidates: Vec<&Relationship> = all
        .iter()
        .filter(|r| match r.function() {
            // A computed relationship is named by its function only, whatever the hint says.
            Some(function) => function.name == relation && function.schema == parent.name.schema,
            None => {
                (r.target.name == relation && r.target.schema == parent.name.schema)
                    || r.constraint == relation
                    || (r.is_to_one() && r.fk_columns() == [relation])
            }
        })
        .filter(|r| match hint {
            _ if r.function().is_some() => true,
            None => true,
            // A table's foreign key to itself, hinted: only its children, named by the table and
            // hinted by the key's column, as PostgREST's `findRel` has it; the constraint's name
            // finds nothing there (PGRST200), since it names both directions.
            Some(h) if is_self_key(r, parent) => {
                r.target.name == relation
                    && matches!(r.cardinality, Cardinality::OneToMany { .. })
                    && r.fk_columns() == [h]
            }
            Some(h) => {
                r.constraint == h
                    || r.fk_columns() == [h]
                    || r.target.name == h
                    || matches!(&r.cardinality, Cardinality::ManyToMany { junction, target_constraint, .. }
                        if junction.name == h || target_constraint == h)
            }
        })
        .collect();
    // A function named like a foreign-key column or constraint wins over them (PostgREST
    // reports such a clash as an ambiguity it cannot describe).
    if let Some(computed) = candidates.iter().find(|r| r.function().is_some()) {
        return Ok((*computed).clone());
    }
    // A table embedded in itself by its own name is its children, the one-to-many side of a
    // self-referencing foreign key, as in PostgREST; its parent is embedded by the key's column.
    let is_self = |r: &&Relationship| r.target == parent.name;
    let candidates: Vec<&Relationship> =
        if relation == parent.name.name && candidates.iter().any(|r| is_self(r) && !r.is_to_one()) {
            candidates.into_iter().filter(|r| !(is_self(r) && r.is_to_one())).collect()
        } else {
            candidates
        };
    // Among candidates reached through views of a table and the table itself, the table.
    let on_tables: Vec<&&Relationship> = candidates
        .iter()
        .filter(|r| cache.tables.get(&r.target).is_some_and(|t| !matches!(t.kind, TableKind::View)))
        .collect();
    if candidates.len() > 1 && on_tables.len() == 1 {
        return Ok((*on_tables[0]).clone());
    }
    match candidates.as_slice() {
        [one] => Ok((*one).clone()),
        [] => {
            // PostgREST suggests relation names, also for computed relationships.
            let targets: Vec<&str> = all.iter().map(|r| r.target.name.as_str()).collect();
            let schema = parent.name.schema.as_str();
            let parents: Vec<&str> =
                cache.relationships.keys().filter(|q| q.schema == schema).map(|q| q.name.as_str()).collect();
            Err(RestError::relationship_not_found(
                &parent.name.name,
                relation,
                hint,
                schema,
                (!targets.is_empty()).then_some(targets.as_slice()),
                &parents,
            ))
        }
        many => {
            // PostgREST prefers a direct relationship to the same table over one through a view.
            Err(RestError::ambiguous_relationship(
                &parent.name.name,
                relation,
                many.iter().map(|r| error_relationship(r)).collect(),
            ))
        }
    }
}

/// Whether `r` is a foreign key from `parent` to itself (not a many-to-many through a junction).
fn is_self_key(r: &Relationship, parent: &Table) -> bool {
    r.target == parent.name
        && matches!(
            r.cardinality,
            Cardinality::ManyToOne { .. } | Cardinality::OneToMany { .. } | Cardinality::OneToOne { .. }
        )
}

/// The error module's description of a relationship (for PGRST201 details).
fn error_relationship(r: &Relationship) -> err_schema::Relationship {
    let cardinality = match &r.cardinality {
        // Never ambiguous (`resolve_relationship` takes a computed candidate first); described
        // by its function if it ever were.
        Cardinality::Computed { function, to_one: true } => {
            err_schema::Cardinality::ManyToOne { constraint: function.name.clone(), columns: Vec::new() }
        }
        Cardinality::Computed { function, to_one: false } => {
            err_schema::Cardinality::OneToMany { constraint: function.name.clone(), columns: Vec::new() }
        }
        Cardinality::ManyToOne { columns } => {
            err_schema::Cardinality::ManyToOne { constraint: r.constraint.clone(), columns: columns.clone() }
        }
        Cardinality::OneToOne { columns, .. } => {
            err_schema::Cardinality::OneToOne { constraint: r.constraint.clone(), columns: columns.clone() }
        }
        Cardinality::OneToMany { columns } => {
            err_schema::Cardinality::OneToMany { constraint: r.constraint.clone(), columns: columns.clone() }
        }
        Cardinality::ManyToMany { junction, source_columns, target_columns, target_constraint } => {
            err_schema::Cardinality::ManyToMany {
                junction: junction.name.clone(),
                source_constraint: r.constraint.clone(),
                source_columns: source_columns.iter().map(|(_, j)| j.clone()).collect(),
                target_constraint: target_constraint.clone(),
                target_columns: target_columns.iter().map(|(j, _)| j.clone()).collect(),
            }
        }
    };
    err_schema::Relationship { table: r.source.name.clone(), foreign_table: r.target.name.clone(), cardinality }
}
