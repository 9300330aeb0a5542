//! The foreign-key picker: for a column with a one-column foreign key, the rows of the
//! referenced table, searched on the server (`ilike` over the key and a few text columns, the
//! pattern bound) and paged by keyset on the referenced column, a few columns each.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use super::catalog::relation;
use super::error::StudioError;
use super::query::Relation;
use crate::db::quote_ident;
use crate::state::AppState;

/// Rows per page of the picker.
pub const PICK_LIMIT: i64 = 20;
/// Columns shown beside the key.
const SHOWN: usize = 3;

/// The one-column foreign key of `column` on `schema.table`: the referenced schema, table, column.
const FOREIGN_KEY: &str = "select rn.nspname::text, rc.relname::text, ra.attname::text \
  from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace \
  join pg_attribute a on a.attrelid = k.conrelid and a.attnum = k.conkey[1] \
  join pg_class rc on rc.oid = k.confrelid join pg_namespace rn on rn.oid = rc.relnamespace \
  join pg_attribute ra on ra.attrelid = k.confrelid and ra.attnum = k.confkey[1] \
  where k.contype = 'f' and cardinality(k.conkey) = 1 and n.nspname = $1 and c.relname = $2 and a.attname = $3 \
  order by k.conname limit 1";

/// The columns shown: the key, then text columns, then others, `SHOWN` in all.
pub fn shown_columns(rel: &Relation, key: &str) -> Vec<String> {
    let mut cols = vec![key.to_string()];
    let others = rel.columns.iter().filter(|c| c.name != key);
    let (text, rest): (Vec<_>, Vec<_>) = others.partition(|c| c.category == "S" || c.category == "E");
    for c in text.into_iter().chain(rest.into_iter().filter(|c| c.category != "A" && c.category != "U")) {
        if cols.len() > SHOWN {
            break;
        }
        cols.push(c.name.clone());
    }
    cols
}

/// The picker's statement: `$1` the `ilike` pattern (or null), `$2` the last key (or null),
/// `$3` the limit.
pub fn pick_sql(rel: &Relation, key: &str, shown: &[String]) -> String {
    let k = format!("t.{}", quote_ident(key));
    let searched: Vec<String> = shown.iter().map(|c| format!("t.{}::text ilike $1", quote_ident(c))).collect();
    let object: Vec<String> =
        shown.iter().map(|c| format!("{}, t.{}", crate::db::quote_literal(c), quote_ident(c))).collect();
    format!(
        "select json_build_object({})::text from {} t where ($1::text is null or {}) \
         and ($2::text is null or {k}::text > $2::text) order by {k}::text limit $3",
        object.join(", "),
        rel.qualified(),
        searched.join(" or ")
    )
}

#[derive(Deserialize)]
pub struct PickQuery {
    column: String,
    #[serde(default)]
    q: Option<String>,
    /// The last key of the previous page (as text).
    #[serde(default)]
    after: Option<String>,
}

/// `GET /studio/api/tables/{schema}/{table}/references?column=&q=&after=`:
/// `{schema, table, column, columns, rows, next}`.
pub async fn pick(
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    q: web::Query<PickQuery>,
) -> Result<HttpResponse, StudioError> {
    let (schema, name) = path.into_inner();
    let client = state.pools.admin.get().await?;
    relation(&client, &schema, &name).await?;
    let fk = client
        .query_opt(FOREIGN_KEY, &[&schema, &name, &q.column])
        .await?
        .ok_or_else(|| StudioError::NotFound(format!("{} has no one-column foreign key", q.column)))?;
    let (rs, rt, rc): (String, String, String) = (fk.get(0), fk.get(1), fk.get(2));
    let referenced = relation(&client, &rs, &rt).await?;
    let shown = shown_columns(&referenced, &rc);
    let pattern = q.q.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(|s| {
        let escaped = s.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
        format!("%{escaped}%")
    });
    let rows = client.query(&pick_sql(&referenced, &rc, &shown), &[&pattern, &q.after, &(PICK_LIMIT + 1)]).await?;
    let mut rows: Vec<Value> = rows
        .iter()
        .map(|r| serde_json::from_str::<Value>(r.get::<_, &str>(0)).map_err(StudioError::internal))
        .collect::<Result<_, _>>()?;
    let more = rows.len() as i64 > PICK_LIMIT;
    rows.truncate(PICK_LIMIT as usize);
    let next = match rows.last() {
        Some(last) if more => match &last[&rc] {
            Value::String(s) => json!(s),
            other => json!(other.to_string()),
        },
        _ => Value::Null,
    };
    Ok(HttpResponse::Ok().json(json!({
        "schema": rs, "table": rt, "column": rc, "columns": shown, "rows": rows, "next": next,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::studio::query::Column;

    fn col(name: &str, category: &str) -> Column {
        Column {
            name: name.into(),
            type_name: "x".into(),
            udt: "x".into(),
            category: category.into(),
            nullable: true,
            default: None,
            read_only: false,
            identity: false,
            enum_values: None,
        }
    }

    #[test]
    fn the_picker_shows_the_key_and_text_columns_and_binds_the_search() {
        let rel = Relation {
            schema: "public".into(),
            name: "vehi\"cles".into(),
            kind: "r".into(),
            columns: vec![col("id", "U"), col("price", "N"), col("model", "S"), col("tags", "A"), col("make", "S")],
            primary_key: vec!["id".into()],
        };
        let shown = shown_columns(&rel, "id");
        assert_eq!(shown, vec!["id", "model", "make", "price"]);
        assert_eq!(
            pick_sql(&rel, "id", &shown[..2]),
            "select json_build_object('id', t.\"id\", 'model', t.\"model\")::text from \"public\".\"vehi\"\"cles\" t \
             where ($1::text is null or t.\"id\"::text ilike $1 or t.\"model\"::text ilike $1) \
             and ($2::text is null or t.\"id\"::text > $2::text) order by t.\"id\"::text limit $3"
        );
    }
}
