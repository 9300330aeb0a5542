//! Domain representations (PostgREST's "data representations"): a domain whose implicit casts
//! to or from `json` / `text` are made with a function tells how a column of that domain is
//! shown and read. `CREATE CAST (dom AS json) WITH FUNCTION f(dom) AS IMPLICIT` formats the
//! column in JSON output, `(text AS dom)` reads a filter value of the query string, `(json AS
//! dom)` reads a field of a request body. Postgres itself ignores casts to or from a domain, so
//! the functions are called by name where the value is written or read.
//!
//! Only the catalog part lives here: which functions apply to which type. The SQL that calls
//! them is written by `rest::sql`; nothing here knows requests.

use std::collections::HashMap;

use crate::db::cached::Db;

/// The implicit, function-made casts between a domain and `json` or `text` that the caller
/// may execute (PostgREST's `dataRepresentations`): the domain's oid, the direction, and the
/// function's schema-qualified, quoted name.
const CASTS: &str = "
select case when src.typtype = 'd' then c.castsource else c.casttarget end,
       case when src.typtype = 'd' then 'to_' else 'from_' end ||
         case when src.typtype = 'd' then c.casttarget else c.castsource end::regtype::text,
       quote_ident(pn.nspname) || '.' || quote_ident(p.proname)
from pg_cast c
join pg_type src on src.oid = c.castsource
join pg_type dst on dst.oid = c.casttarget
join pg_proc p on p.oid = c.castfunc
join pg_namespace pn on pn.oid = p.pronamespace
where c.castcontext = 'i' and c.castmethod = 'f' and has_function_privilege(c.castfunc, 'execute')
  and ((src.typtype = 'd' and c.casttarget in ('json'::regtype, 'text'::regtype))
    or (dst.typtype = 'd' and c.castsource in ('json'::regtype, 'text'::regtype)))";

/// How values of one column's type are shown and read, each a function's quoted, qualified
/// name (`"public"."json"`), called with the value as its only argument.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Representation {
    /// `CREATE CAST (domain AS json)`: the column's value in JSON output.
    pub to_json: Option<String>,
    /// `CREATE CAST (text AS domain)`: a filter value of the query string as the domain.
    pub from_text: Option<String>,
    /// `CREATE CAST (json AS domain)`: a field of a request body as the domain.
    pub from_json: Option<String>,
}

impl Representation {
    /// Whether any function applies (a domain without such casts is its base type).
    pub fn is_empty(&self) -> bool {
        self.to_json.is_none() && self.from_text.is_none() && self.from_json.is_none()
    }
}

/// The representations of every domain that has one, by the domain's type oid.
pub async fn load(client: &impl Db) -> Result<HashMap<u32, Representation>, tokio_postgres::Error> {
    let rows = client.cached_query(CASTS, &[]).await?;
    Ok(collect(rows.iter().map(|row| (row.get(0), row.get(1), row.get(2)))))
}

/// Group `(domain oid, direction, function)` rows by domain. `to_text` is read by PostgREST
/// for output formats other than JSON, which it does not have yet; it is not kept.
fn collect(rows: impl Iterator<Item = (u32, String, String)>) -> HashMap<u32, Representation> {
    let mut out: HashMap<u32, Representation> = HashMap::new();
    for (domain, direction, function) in rows {
        let slot = match direction.as_str() {
            "to_json" => &mut out.entry(domain).or_default().to_json,
            "from_text" => &mut out.entry(domain).or_default().from_text,
            "from_json" => &mut out.entry(domain).or_default().from_json,
            _ => continue,
        };
        *slot = Some(function);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_are_grouped_by_domain_and_direction() {
        let rows = [
            (10, "to_json", "\"public\".\"json\""),
            (10, "from_text", "\"public\".\"color\""),
            (11, "from_json", "\"app\".\"money\""),
            (12, "to_text", "\"public\".\"shown\""),
        ];
        let reps = collect(rows.iter().map(|(o, d, f)| (*o, d.to_string(), f.to_string())));
        assert_eq!(reps[&10].to_json.as_deref(), Some("\"public\".\"json\""));
        assert_eq!(reps[&10].from_text.as_deref(), Some("\"public\".\"color\""));
        assert_eq!(reps[&10].from_json, None);
        assert_eq!(reps[&11].from_json.as_deref(), Some("\"app\".\"money\""));
        assert!(!reps.contains_key(&12), "a cast to text alone is no representation we use");
    }
}
