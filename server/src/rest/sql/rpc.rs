//! Function calls for `/rpc/<name>`: the arguments arrive as one JSON object bound once and
//! unpacked by Postgres with `json_to_record` using the argument types from the catalog (an
//! array of objects with `json_to_recordset`, for one call per object).

use crate::rest::schema::Function;

use super::{ident, Sql};

/// The call expression `"s"."f"("a" := ..., ...)` for `args` (names present in the request),
/// with the CTE that unpacks them; `None` CTE when the function takes no named arguments.
///
/// With `bulk`, `body` is a JSON array of argument objects: the CTE `pgrst_args` has one row
/// per object and the call reads `pgrst_args`'s columns, for the caller to run once per row.
pub fn call(
    function: &Function,
    args: &[String],
    body: String,
    single_unnamed: bool,
    bulk: bool,
    sql: &mut Sql,
) -> (String, Option<String>) {
    let name = function.name.sql();
    if single_unnamed {
        let param = sql.bind(body);
        let ty = function.args.first().map(|a| a.data_type.as_str()).unwrap_or("json");
        return (format!("{name}({param}::{ty})"), None);
    }
    if let [only] = function.args.as_slice() {
        if only.name.is_empty() && args.iter().any(String::is_empty) {
            // The single unnamed parameter takes the value of the key `""`, positionally.
            let param = sql.bind(body);
            let op = if matches!(only.data_type.as_str(), "json" | "jsonb") { "->" } else { "->>" };
            return (format!("{name}(({param}::json {op} '')::{})", only.data_type), None);
        }
    }
    let used: Vec<&crate::rest::schema::FunctionArg> =
        function.args.iter().filter(|a| args.iter().any(|n| n == &a.name)).collect();
    if used.is_empty() && !bulk {
        return (format!("{name}()"), None);
    }
    let param = sql.bind(body);
    if used.is_empty() {
        // One call per object of `[{}, {}]`.
        let cte = format!("pgrst_args AS (SELECT FROM json_array_elements({param}::json))");
        return (format!("{name}()"), Some(cte));
    }
    let defs: Vec<String> = used.iter().map(|a| format!("{} {}", ident(&a.name), a.data_type)).collect();
    let unpack = if bulk { "json_to_recordset" } else { "json_to_record" };
    let cte = format!("pgrst_args AS (SELECT * FROM {unpack}({param}::json) AS _({}))", defs.join(", "));
    let named: Vec<String> = used
        .iter()
        .map(|a| {
            let variadic = if a.variadic { "VARIADIC " } else { "" };
            let arg = ident(&a.name);
            // A bulk call reads the row it runs for; a single call its one row.
            let value = if bulk { format!("pgrst_args.{arg}") } else { format!("(SELECT {arg} FROM pgrst_args)") };
            format!("{variadic}{arg} := {value}")
        })
        .collect();
    (format!("{name}({})", named.join(", ")), Some(cte))
}
