//! Where view columns come from: parses the `_RETURN` rule of each view (its query tree as
//! Postgres prints it) to map view columns to base-table columns, following views of views,
//! so views get the keys and relationships of the tables they show (as PostgREST does).

use std::collections::HashMap;

use super::Table;

/// One output column of a view and the base column it comes from, if it is a plain column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewColumnSource {
    pub name: String,
    pub origin: Option<(u32, i16)>,
}

/// For each view oid: (view column, base table oid, base column) after following views of views.
pub type ViewMap = HashMap<u32, Vec<(String, u32, String)>>;

/// Read the outer query's target list from a rule's node tree text.
pub fn parse_target_list(text: &str) -> Vec<ViewColumnSource> {
    // Find ":targetList" at brace depth 1 (inside the outermost {QUERY ...}).
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    let mut start = None;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b':' if depth == 1 && text[i..].starts_with(":targetList ") => {
                start = Some(i + ":targetList ".len());
                break;
            }
            _ => {}
        }
        i += 1;
    }
    let Some(start) = start else { return Vec::new() };
    // Walk the list: each TARGETENTRY is a `{...}` at depth 2; read its own fields at that depth.
    let mut out = Vec::new();
    let mut depth = 1i32;
    let mut entry_start = None;
    let mut i = start;
    let mut paren = 0i32;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'(' if depth == 1 => paren += 1,
            b')' if depth == 1 => {
                paren -= 1;
                if paren <= 0 {
                    break;
                }
            }
            b'{' => {
                depth += 1;
                if depth == 2 {
                    entry_start = Some(i);
                }
            }
            b'}' => {
                if depth == 2 {
                    if let Some(s) = entry_start.take() {
                        if let Some(entry) = parse_entry(&text[s..=i]) {
                            out.push(entry);
                        }
                    }
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Fields of one `{TARGETENTRY ...}` that sit at its own depth.
fn parse_entry(entry: &str) -> Option<ViewColumnSource> {
    if !entry.starts_with("{TARGETENTRY") {
        return None;
    }
    let mut fields: HashMap<&str, String> = HashMap::new();
    let bytes = entry.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'{' | b'(' => depth += 1,
            b'}' | b')' => depth -= 1,
            b':' if depth == 1 => {
                let rest = &entry[i + 1..];
                let key_end = rest.find(' ').unwrap_or(rest.len());
                let key = &rest[..key_end];
                let value_text = &rest[(key_end + 1).min(rest.len())..];
                let value = read_token(value_text);
                fields.insert(key, value);
            }
            _ => {}
        }
        i += 1;
    }
    if fields.get("resjunk").map(String::as_str) == Some("true") {
        return None;
    }
    let name = fields.get("resname")?.clone();
    let table: u32 = fields.get("resorigtbl").and_then(|v| v.parse().ok()).unwrap_or(0);
    let column: i16 = fields.get("resorigcol").and_then(|v| v.parse().ok()).unwrap_or(0);
    Some(ViewColumnSource { name, origin: (table != 0 && column > 0).then_some((table, column)) })
}

/// A token of the node text: up to the next unescaped space or closing brace, unescaped.
fn read_token(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            }
            ' ' | '}' | ')' => break,
            _ => out.push(c),
        }
    }
    out
}

/// Follow each view column to a base table column (through views of views, 16 levels at most).
pub fn resolve(sources: &HashMap<u32, Vec<ViewColumnSource>>, attnames: &HashMap<(u32, i16), String>) -> ViewMap {
    let mut map = ViewMap::new();
    for (view, columns) in sources {
        let mut resolved = Vec::new();
        for column in columns {
            let mut origin = column.origin;
            let mut hops = 0;
            while let Some((rel, att)) = origin {
                let Some(inner) = sources.get(&rel) else { break };
                let Some(name) = attnames.get(&(rel, att)) else {
                    origin = None;
                    break;
                };
                origin = inner.iter().find(|c| &c.name == name).and_then(|c| c.origin);
                hops += 1;
                if hops > 16 {
                    origin = None;
                }
            }
            if let Some((rel, att)) = origin {
                if let Some(base_col) = attnames.get(&(rel, att)) {
                    resolved.push((column.name.clone(), rel, base_col.clone()));
                }
            }
        }
        map.insert(*view, resolved);
    }
    map
}

/// Map the view columns that show all of `columns` of `base`, in order; None if one is missing.
pub fn view_columns_for(view_map: &ViewMap, view: u32, base: u32, columns: &[String]) -> Option<Vec<String>> {
    let mapping = view_map.get(&view)?;
    columns
        .iter()
        .map(|col| mapping.iter().find(|(_, rel, base_col)| *rel == base && base_col == col).map(|(v, _, _)| v.clone()))
        .collect()
}

/// Give views the primary and unique keys of their base tables when they show all key columns.
pub fn inherit_keys(
    tables: &mut HashMap<u32, Table>,
    keys: &HashMap<u32, (Vec<String>, Vec<Vec<String>>)>,
    view_map: &ViewMap,
) {
    for (view, mapping) in view_map {
        let mut bases: Vec<u32> = mapping.iter().map(|(_, rel, _)| *rel).collect();
        bases.sort_unstable();
        bases.dedup();
        let Some(table) = tables.get_mut(view) else { continue };
        for base in bases {
            let Some((pk, uniques)) = keys.get(&base) else { continue };
            if table.primary_key.is_empty() && !pk.is_empty() {
                if let Some(cols) = view_columns_for(view_map, *view, base, pk) {
                    table.primary_key = cols;
                }
            }
            for unique in uniques {
                if let Some(cols) = view_columns_for(view_map, *view, base, unique) {
                    table.unique_keys.push(cols);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_list_of_a_simple_view_is_read() {
        let text = "({QUERY :commandType 1 :rtable ({RANGETBLENTRY :subquery {QUERY :targetList ({TARGETENTRY :resname inner :resorigtbl 9 :resorigcol 9 :resjunk false})}}) :targetList ({TARGETENTRY :expr {VAR :varno 1 :varattno 1} :resno 1 :resname id :ressortgroupref 0 :resorigtbl 16385 :resorigcol 1 :resjunk false} {TARGETENTRY :expr {FUNCEXPR :args ({VAR :varno 1})} :resno 2 :resname full\\ name :resorigtbl 0 :resorigcol 0 :resjunk false}) :override 0})";
        let list = parse_target_list(text);
        assert_eq!(
            list,
            vec![
                ViewColumnSource { name: "id".into(), origin: Some((16385, 1)) },
                ViewColumnSource { name: "full name".into(), origin: None },
            ]
        );
    }
}
