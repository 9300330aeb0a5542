//! Bounds on how much one request may ask of the database, checked on the parsed request before
//! any SQL is built: URL length, embedded resources (count and depth), select-list items,
//! `in.(...)` values and logic-tree size. A request past a bound gets a 400 in PostgREST's
//! shape (`PGRST100`, the setting to raise named in `details`), so a 30 KB URL with 1,600
//! embeds costs a parse, not a plan of 1,600 joins. Pure functions over the AST; no I/O.

use crate::config::RestConfig;
use crate::rest::error::RestError;
use crate::rest::parse::ast::{LogicTree, Operation, QueryParams, SelectItem};

/// The bounds, from configuration.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub url_bytes: usize,
    pub embeds: usize,
    pub embed_depth: usize,
    pub select_items: usize,
    pub in_values: usize,
    pub logic_nodes: usize,
}

impl Limits {
    pub fn from_config(config: &RestConfig) -> Limits {
        Limits {
            url_bytes: config.max_url_bytes,
            embeds: config.max_embeds,
            embed_depth: config.max_embed_depth,
            select_items: config.max_select_items,
            in_values: config.max_in_values,
            logic_nodes: config.max_logic_nodes,
        }
    }
}

fn too_much(what: &str, found: usize, limit: usize, setting: &str) -> RestError {
    RestError::query_param(
        format!("The request has too many {what}: {found}, at most {limit}"),
        format!("the limit is set by {setting}"),
    )
}

/// Check the query string's length.
pub fn check_url(query: &str, limits: &Limits) -> Result<(), RestError> {
    if query.len() > limits.url_bytes {
        return Err(too_much("bytes in its query string", query.len(), limits.url_bytes, "REST_MAX_URL_BYTES"));
    }
    Ok(())
}

#[derive(Default)]
struct Counts {
    embeds: usize,
    depth: usize,
    items: usize,
}

fn walk(items: &[SelectItem], depth: usize, counts: &mut Counts) {
    counts.depth = counts.depth.max(depth);
    for item in items {
        counts.items += 1;
        if let SelectItem::Embed { select, .. } = item {
            counts.embeds += 1;
            walk(select, depth + 1, counts);
        }
    }
}

fn in_values(op: &Operation) -> usize {
    match op {
        Operation::In(values) => values.len(),
        _ => 0,
    }
}

fn tree(t: &LogicTree, nodes: &mut usize, largest_in: &mut usize) {
    *nodes += 1;
    match t {
        LogicTree::Node { children, .. } => children.iter().for_each(|c| tree(c, nodes, largest_in)),
        LogicTree::Leaf(filter) => *largest_in = (*largest_in).max(in_values(&filter.op)),
    }
}

/// Check the parsed query.
pub fn check_query(query: &QueryParams, limits: &Limits) -> Result<(), RestError> {
    let mut counts = Counts::default();
    walk(&query.select, 0, &mut counts);
    if counts.embeds > limits.embeds {
        return Err(too_much("embedded resources", counts.embeds, limits.embeds, "REST_MAX_EMBEDS"));
    }
    if counts.depth > limits.embed_depth {
        return Err(too_much("levels of embedding", counts.depth, limits.embed_depth, "REST_MAX_EMBED_DEPTH"));
    }
    if counts.items > limits.select_items {
        return Err(too_much("selected items", counts.items, limits.select_items, "REST_MAX_SELECT_ITEMS"));
    }
    let mut largest_in = query.filters.iter().map(|(_, f)| in_values(&f.op)).max().unwrap_or(0);
    let mut nodes = 0;
    for (_, t) in &query.logic {
        tree(t, &mut nodes, &mut largest_in);
    }
    if largest_in > limits.in_values {
        return Err(too_much("values in one in.() filter", largest_in, limits.in_values, "REST_MAX_IN_VALUES"));
    }
    let filters = nodes + query.filters.len();
    if filters > limits.logic_nodes {
        return Err(too_much("filter conditions", filters, limits.logic_nodes, "REST_MAX_FILTERS"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::parse::parse_query;

    fn limits() -> Limits {
        Limits { url_bytes: 100, embeds: 3, embed_depth: 2, select_items: 10, in_values: 4, logic_nodes: 6 }
    }

    fn check(q: &str) -> Result<(), RestError> {
        let pairs: Vec<(String, String)> =
            url::form_urlencoded::parse(q.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        check_query(&parse_query(&pairs).unwrap(), &limits())
    }

    #[test]
    fn requests_within_the_bounds_pass() {
        assert!(check("select=id,a(id,b(id)),c(id)&id=in.(1,2,3,4)&or=(a.eq.1,b.eq.2)").is_ok());
    }

    #[test]
    fn each_bound_refuses_with_a_400_naming_its_setting() {
        let cases = [
            ("select=a(id),b(id),c(id),d(id)", "embedded resources: 4, at most 3"),
            ("select=a(b(c(id)))", "levels of embedding: 3, at most 2"),
            ("select=a,b,c,d,e,f,g,h,i,j,k", "selected items: 11, at most 10"),
            ("id=in.(1,2,3,4,5)", "values in one in.() filter: 5"),
            ("or=(id.in.(1,2,3,4,5),a.eq.1)", "values in one in.() filter: 5"),
            ("or=(a.eq.1,b.eq.2,c.eq.3,d.eq.4,e.eq.5,f.eq.6)", "filter conditions: 7, at most 6"),
        ];
        for (q, expected) in cases {
            let err = check(q).unwrap_err();
            assert_eq!(actix_web::ResponseError::status_code(&err).as_u16(), 400, "{q}");
            assert!(err.to_string().contains(expected), "{q}: {err}");
        }
    }

    #[test]
    fn a_long_query_string_is_refused_before_parsing() {
        assert!(check_url(&"a".repeat(100), &limits()).is_ok());
        let err = check_url(&"a".repeat(101), &limits()).unwrap_err();
        assert!(err.to_string().contains("bytes in its query string: 101"));
    }
}
