//! Pins every error body/status against PostgREST v13/v14 (`Error.hs` and the
//! expectations of PostgREST's own test suite, including its Content-Length
//! values, which pin the exact serialisation).

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::ResponseError;
use serde_json::{json, Value};

use super::*;

fn check(err: &RestError, status: u16, body: Value) {
    assert_eq!(err.status().as_u16(), status, "status of {err:?}");
    assert_eq!(err.body(), body, "body of {err:?}");
    assert_eq!(err.code(), body["code"].as_str().unwrap());
}

fn wire_len(err: &RestError) -> usize {
    serde_json::to_vec(&err.body()).unwrap().len()
}

fn db(sqlstate: &str, message: &str) -> RestError {
    RestError::db(sqlstate, message, None, None, false)
}

fn st(sqlstate: &str) -> u16 {
    db(sqlstate, "boom").status().as_u16()
}

fn header(resp: &actix_web::HttpResponse, name: &str) -> Option<String> {
    resp.headers().get(name).map(|v| v.to_str().unwrap().to_owned())
}

fn response_body(resp: actix_web::HttpResponse) -> Value {
    let bytes = resp.into_body().try_into_bytes().unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

// ---------------------------------------------------------------- group 0

#[test]
fn connection_errors() {
    check(
        &RestError::ConnectionFailed,
        503,
        json!({"code":"PGRST000","details":null,"hint":null,"message":"Database connection error."}),
    );
    check(
        &RestError::ConnectionLost,
        503,
        json!({"code":"PGRST001","details":null,"hint":null,"message":"Database client error. Retrying the connection."}),
    );
    check(
        &RestError::SchemaCacheNotReady,
        503,
        json!({"code":"PGRST002","details":null,"hint":null,"message":"Could not query the database for the schema cache. Retrying."}),
    );
    check(
        &RestError::PoolTimeout,
        504,
        json!({"code":"PGRST003","details":null,"hint":null,"message":"Timed out acquiring connection from connection pool."}),
    );
}

// ---------------------------------------------------------------- group 1

#[test]
fn pgrst100_query_param() {
    check(
        &RestError::query_param(
            "\"failed to parse filter (eqx.1)\" (line 1, column 4)",
            "unexpected \"x\" expecting \".\"",
        ),
        400,
        json!({"code":"PGRST100","details":"unexpected \"x\" expecting \".\"","hint":null,"message":"\"failed to parse filter (eqx.1)\" (line 1, column 4)"}),
    );
}

#[test]
fn pgrst101_rpc_method() {
    check(
        &RestError::rpc_method_not_allowed("PUT"),
        405,
        json!({"code":"PGRST101","details":null,"hint":null,"message":"Cannot use the PUT method on RPC"}),
    );
}

#[test]
fn pgrst102_invalid_body() {
    check(
        &RestError::invalid_json_body(),
        400,
        json!({"code":"PGRST102","details":null,"hint":null,"message":"Empty or invalid json"}),
    );
    check(
        &RestError::body_keys_mismatch(),
        400,
        json!({"code":"PGRST102","details":null,"hint":null,"message":"All object keys must match"}),
    );
    check(
        &RestError::csv_fields_mismatch(),
        400,
        json!({"code":"PGRST102","details":null,"hint":null,"message":"All lines must have same number of fields"}),
    );
    check(
        &RestError::content_type_not_acceptable("application/xml"),
        400,
        json!({"code":"PGRST102","details":null,"hint":null,"message":"Content-Type not acceptable: application/xml"}),
    );
}

#[test]
fn pgrst103_range() {
    check(
        &RestError::range_negative_limit(),
        416,
        json!({"code":"PGRST103","details":"Limit should be greater than or equal to zero.","hint":null,"message":"Requested range not satisfiable"}),
    );
    check(
        &RestError::range_lower_gt_upper(),
        416,
        json!({"code":"PGRST103","details":"The lower boundary must be lower than or equal to the upper boundary in the Range header.","hint":null,"message":"Requested range not satisfiable"}),
    );
    check(
        &RestError::range_out_of_bounds(100, Some(15)),
        416,
        json!({"code":"PGRST103","details":"An offset of 100 was requested, but there are only 15 rows.","hint":null,"message":"Requested range not satisfiable"}),
    );
    check(
        &RestError::range_out_of_bounds(1, None),
        416,
        json!({"code":"PGRST103","details":"An offset of 1 was requested, but there are only 0 rows.","hint":null,"message":"Requested range not satisfiable"}),
    );
    check(&RestError::invalid_range("m", "d"), 416, json!({"code":"PGRST103","details":"d","hint":null,"message":"m"}));
}

#[test]
fn pgrst105_to_pgrst108() {
    check(
        &RestError::invalid_put_filters(),
        405,
        json!({"code":"PGRST105","details":null,"hint":null,"message":"Filters must include all and only primary key columns with 'eq' operators"}),
    );
    check(
        &RestError::schema_not_exposed("unknown", &["v1", "v2", "SPECIAL \"@/\\#~_-"]),
        406,
        json!({"code":"PGRST106","details":null,"hint":"Only the following schemas are exposed: v1, v2, SPECIAL \"@/\\#~_-","message":"Invalid schema: unknown"}),
    );
    let e = RestError::media_type_unavailable(&["text/plain"]);
    check(
        &e,
        406,
        json!({"code":"PGRST107","details":null,"hint":null,"message":"None of these media types are available: text/plain"}),
    );
    assert_eq!(wire_len(&e), 110); // CustomMediaSpec
    assert_eq!(wire_len(&RestError::media_type_unavailable(&["text/unknowntype"])), 116); // QuerySpec
    check(
        &RestError::media_type_unavailable(&["application/json", "text/csv"]),
        406,
        json!({"code":"PGRST107","details":null,"hint":null,"message":"None of these media types are available: application/json, text/csv"}),
    );
    check(
        &RestError::not_embedded("clients"),
        400,
        json!({"code":"PGRST108","details":null,"hint":"Verify that 'clients' is included in the 'select' query parameter.","message":"'clients' is not an embedded resource in this request"}),
    );
}

#[test]
fn pgrst111_to_pgrst118() {
    check(
        &RestError::InvalidResponseHeadersGuc,
        500,
        json!({"code":"PGRST111","details":null,"hint":null,"message":"response.headers guc must be a JSON array composed of objects with a single key and a string value"}),
    );
    check(
        &RestError::InvalidResponseStatusGuc,
        500,
        json!({"code":"PGRST112","details":null,"hint":null,"message":"response.status guc must be a valid status code"}),
    );
    check(
        &RestError::PutLimitNotAllowed,
        400,
        json!({"code":"PGRST114","details":null,"hint":null,"message":"limit/offset querystring parameters are not allowed for PUT"}),
    );
    check(
        &RestError::PutPrimaryKeyMismatch,
        400,
        json!({"code":"PGRST115","details":null,"hint":null,"message":"Payload values do not match URL in primary key column(s)"}),
    );
    check(
        &RestError::singular(0),
        406,
        json!({"code":"PGRST116","details":"The result contains 0 rows","hint":null,"message":"Cannot coerce the result to a single JSON object"}),
    );
    check(
        &RestError::singular(3),
        406,
        json!({"code":"PGRST116","details":"The result contains 3 rows","hint":null,"message":"Cannot coerce the result to a single JSON object"}),
    );
    check(
        &RestError::unsupported_method("TRACE"),
        405,
        json!({"code":"PGRST117","details":null,"hint":null,"message":"Unsupported HTTP method: TRACE"}),
    );
    check(
        &RestError::related_order_not_to_one("clients", "projects"),
        400,
        json!({"code":"PGRST118","details":"'clients' and 'projects' do not form a many-to-one or one-to-one relationship","hint":null,"message":"A related order on 'projects' is not possible"}),
    );
}

#[test]
fn pgrst120_to_pgrst128() {
    check(
        &RestError::unacceptable_embed_filter("clients"),
        400,
        json!({"code":"PGRST120","details":"Only is null or not is null filters are allowed on embedded resources","hint":null,"message":"Bad operator on the 'clients' embedded resource"}),
    );
    check(
        &RestError::raise_parse(RaiseParseError::InvalidMessage("INVALID".into())),
        500,
        json!({"code":"PGRST121","details":"Invalid JSON value for MESSAGE: 'INVALID'","hint":"MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.","message":"Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error"}),
    );
    check(
        &RestError::invalid_preferences(&["anything", "else=1"]),
        400,
        json!({"code":"PGRST122","details":"Invalid preferences: anything, else=1","hint":null,"message":"Invalid preferences given with handling=strict"}),
    );
    check(
        &RestError::invalid_preferences_text("m", "d"),
        400,
        json!({"code":"PGRST122","details":"d","hint":null,"message":"m"}),
    );
    check(
        &RestError::AggregatesDisabled,
        400,
        json!({"code":"PGRST123","details":null,"hint":null,"message":"Use of aggregate functions is not allowed"}),
    );
    check(
        &RestError::max_affected_exceeded(14),
        400,
        json!({"code":"PGRST124","details":"The query affects 14 rows","hint":null,"message":"Query result exceeds max-affected preference constraint"}),
    );
    let e = RestError::InvalidResourcePath;
    check(
        &e,
        404,
        json!({"code":"PGRST125","details":null,"hint":null,"message":"Invalid path specified in request URL"}),
    );
    assert_eq!(wire_len(&e), 96); // ErrorSpec
    check(
        &RestError::OpenApiDisabled,
        404,
        json!({"code":"PGRST126","details":null,"hint":null,"message":"Root endpoint metadata is disabled"}),
    );
    check(
        &RestError::not_implemented("Aggregates are not implemented for one-to-many or many-to-many spreads."),
        400,
        json!({"code":"PGRST127","details":"Aggregates are not implemented for one-to-many or many-to-many spreads.","hint":null,"message":"Feature not implemented"}),
    );
    check(
        &RestError::MaxAffectedRpcNotSetof,
        400,
        json!({"code":"PGRST128","details":null,"hint":null,"message":"Function must return SETOF or TABLE when max-affected preference is used with handling=strict"}),
    );
}

// ---------------------------------------------------------------- group 2

#[test]
fn pgrst200_relationship_not_found() {
    // EmbedDisambiguationSpec: with an embed hint, nothing to suggest.
    check(
        &RestError::relationship_not_found(
            "message",
            "person",
            Some("space"),
            "test",
            Some(&["person"]),
            &["message", "person"],
        ),
        400,
        json!({"code":"PGRST200","details":"Searched for a foreign key relationship between 'message' and 'person' using the hint 'space' in the schema 'test', but no matches were found.","hint":null,"message":"Could not find a relationship between 'message' and 'person' in the schema cache"}),
    );
    // Child suggestion.
    check(
        &RestError::relationship_not_found(
            "car_models",
            "car_model_sales_202101",
            None,
            "test",
            Some(&["car_model_sales", "car_brands"]),
            &["car_models"],
        ),
        400,
        json!({"code":"PGRST200","details":"Searched for a foreign key relationship between 'car_models' and 'car_model_sales_202101' in the schema 'test', but no matches were found.","hint":"Perhaps you meant 'car_model_sales' instead of 'car_model_sales_202101'.","message":"Could not find a relationship between 'car_models' and 'car_model_sales_202101' in the schema cache"}),
    );
    // Parent suggestion (noRelBetweenHint doctest).
    check(
        &RestError::relationship_not_found("film", "directors", None, "api", None, &["films"]),
        400,
        json!({"code":"PGRST200","details":"Searched for a foreign key relationship between 'film' and 'directors' in the schema 'api', but no matches were found.","hint":"Perhaps you meant 'films' instead of 'film'.","message":"Could not find a relationship between 'film' and 'directors' in the schema cache"}),
    );
}

#[test]
fn relationship_hint_doctests() {
    let children = ["directors", "roles", "actors"];
    let parents = ["films"];
    assert_eq!(
        relationship_hint("film", "directors", None, &parents).as_deref(),
        Some("Perhaps you meant 'films' instead of 'film'.")
    );
    assert_eq!(
        relationship_hint("films", "role", Some(&children), &parents).as_deref(),
        Some("Perhaps you meant 'roles' instead of 'role'.")
    );
    assert_eq!(relationship_hint("films", "actors", Some(&children), &parents), None);
    assert_eq!(relationship_hint("noclosealternative", "roles", None, &parents), None);
    assert_eq!(relationship_hint("films", "noclosealternative", Some(&children), &parents), None);
}

fn sites_big_projects() -> Vec<Relationship> {
    let m2m = |junction: &str| Relationship {
        table: "sites".into(),
        foreign_table: "big_projects".into(),
        cardinality: Cardinality::ManyToMany {
            junction: junction.into(),
            source_constraint: "jobs_site_id_fkey".into(),
            source_columns: vec!["site_id".into()],
            target_constraint: "jobs_big_project_id_fkey".into(),
            target_columns: vec!["big_project_id".into()],
        },
    };
    vec![
        Relationship {
            table: "sites".into(),
            foreign_table: "big_projects".into(),
            cardinality: Cardinality::ManyToOne {
                constraint: "main_project".into(),
                columns: vec![("main_project_id".into(), "big_project_id".into())],
            },
        },
        m2m("jobs"),
        m2m("main_jobs"),
    ]
}

#[test]
fn pgrst201_ambiguous_relationship() {
    // EmbedDisambiguationSpec "errs when there are o2m and m2m cardinalities to the target table".
    let e = RestError::ambiguous_relationship("sites", "big_projects", sites_big_projects());
    check(
        &e,
        300,
        json!({
            "details": [
                {"cardinality": "many-to-one", "relationship": "main_project using sites(main_project_id) and big_projects(big_project_id)", "embedding": "sites with big_projects"},
                {"cardinality": "many-to-many", "relationship": "jobs using jobs_site_id_fkey(site_id) and jobs_big_project_id_fkey(big_project_id)", "embedding": "sites with big_projects"},
                {"cardinality": "many-to-many", "relationship": "main_jobs using jobs_site_id_fkey(site_id) and jobs_big_project_id_fkey(big_project_id)", "embedding": "sites with big_projects"}
            ],
            "hint": "Try changing 'big_projects' to one of the following: 'big_projects!main_project', 'big_projects!jobs', 'big_projects!main_jobs'. Find the desired relationship in the 'details' key.",
            "message": "Could not embed because more than one relationship was found for 'sites' and 'big_projects'",
            "code": "PGRST201"
        }),
    );
    assert_eq!(wire_len(&e), 828); // the Content-Length PostgREST's spec expects

    let o2x =
        |card: fn(String, Vec<(String, String)>) -> Cardinality, cons: &str, col: &str, fcol: &str| Relationship {
            table: "agents".into(),
            foreign_table: "departments".into(),
            cardinality: card(cons.into(), vec![(col.into(), fcol.into())]),
        };
    let e = RestError::ambiguous_relationship(
        "agents",
        "departments",
        vec![
            o2x(
                |constraint, columns| Cardinality::OneToMany { constraint, columns },
                "departments_head_id_fkey",
                "id",
                "head_id",
            ),
            o2x(
                |constraint, columns| Cardinality::ManyToOne { constraint, columns },
                "agents_department_id_fkey",
                "department_id",
                "id",
            ),
            o2x(|constraint, columns| Cardinality::OneToOne { constraint, columns }, "agents_x_fkey", "x", "id"),
        ],
    );
    assert_eq!(
        e.details(),
        json!([
            {"cardinality":"one-to-many","relationship":"departments_head_id_fkey using agents(id) and departments(head_id)","embedding":"agents with departments"},
            {"cardinality":"many-to-one","relationship":"agents_department_id_fkey using agents(department_id) and departments(id)","embedding":"agents with departments"},
            {"cardinality":"one-to-one","relationship":"agents_x_fkey using agents(x) and departments(id)","embedding":"agents with departments"}
        ])
    );
    assert_eq!(
        e.hint(),
        json!("Try changing 'departments' to one of the following: 'departments!departments_head_id_fkey', 'departments!agents_department_id_fkey', 'departments!agents_x_fkey'. Find the desired relationship in the 'details' key.")
    );
}

#[test]
fn pgrst202_function_not_found() {
    // RpcSpec: GET /rpc/sayhell
    let e =
        RestError::function_not_found("test", "sayhell", &[], RpcPayload::Json, false, &["sayhello", "add_them"], &[]);
    check(
        &e,
        404,
        json!({"code":"PGRST202","details":"Searched for the function test.sayhell without parameters, but no matches were found in the schema cache.","hint":"Perhaps you meant to call the function test.sayhello","message":"Could not find the function test.sayhell without parameters in the schema cache"}),
    );
    assert_eq!(wire_len(&e), 291);
    // GET /rpc/sayhello?nam=Peter
    check(
        &RestError::function_not_found(
            "test",
            "sayhello",
            &["nam"],
            RpcPayload::Json,
            false,
            &["sayhello"],
            &[vec!["name"]],
        ),
        404,
        json!({"code":"PGRST202","details":"Searched for the function test.sayhello with parameter nam, but no matches were found in the schema cache.","hint":"Perhaps you meant to call the function test.sayhello(name)","message":"Could not find the function test.sayhello(nam) in the schema cache"}),
    );
    // GET /rpc/add_them?a=1&b=2&smthelse=blabla
    check(
        &RestError::function_not_found(
            "test",
            "add_them",
            &["a", "b", "smthelse"],
            RpcPayload::Json,
            false,
            &["add_them"],
            &[vec!["a", "b"]],
        ),
        404,
        json!({"code":"PGRST202","details":"Searched for the function test.add_them with parameters a, b, smthelse, but no matches were found in the schema cache.","hint":"Perhaps you meant to call the function test.add_them(a, b)","message":"Could not find the function test.add_them(a, b, smthelse) in the schema cache"}),
    );
    // POST /rpc/named_json_param {"A":1,"B":2,"C":3}
    check(
        &RestError::function_not_found(
            "test",
            "named_json_param",
            &["A", "B", "C"],
            RpcPayload::Json,
            true,
            &["named_json_param"],
            &[vec!["a", "b", "c"]],
        ),
        404,
        json!({"code":"PGRST202","details":"Searched for the function test.named_json_param with parameters A, B, C or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.","hint":"Perhaps you meant to call the function test.named_json_param(a, b, c)","message":"Could not find the function test.named_json_param(A, B, C) in the schema cache"}),
    );
    // POST with text/plain body: no parameter list, no hint.
    check(
        &RestError::function_not_found(
            "test",
            "unnamed_text_param",
            &[],
            RpcPayload::TextPlain,
            true,
            &["unnamed_text_param"],
            &[],
        ),
        404,
        json!({"code":"PGRST202","details":"Searched for the function test.unnamed_text_param with a single unnamed text parameter, but no matches were found in the schema cache.","hint":null,"message":"Could not find the function test.unnamed_text_param in the schema cache"}),
    );
    assert_eq!(
        RestError::function_not_found("s", "f", &[], RpcPayload::TextXml, true, &[], &[]).details(),
        json!("Searched for the function s.f with a single unnamed xml parameter, but no matches were found in the schema cache.")
    );
    assert_eq!(
        RestError::function_not_found("s", "f", &[], RpcPayload::OctetStream, true, &[], &[]).details(),
        json!("Searched for the function s.f with a single unnamed bytea parameter, but no matches were found in the schema cache.")
    );
    assert_eq!(
        RestError::function_not_found("s", "f", &[], RpcPayload::Json, true, &[], &[]).details(),
        json!("Searched for the function s.f without parameters or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.")
    );
    // GET with text/plain Content-Type is not "single unnamed".
    assert_eq!(
        RestError::function_not_found("s", "f", &["x"], RpcPayload::TextPlain, false, &[], &[]).message(),
        "Could not find the function s.f(x) in the schema cache"
    );
    // overloaded?wrong_arg=value -> no hint
    assert_eq!(
        RestError::function_not_found(
            "test",
            "overloaded",
            &["wrong_arg"],
            RpcPayload::Json,
            false,
            &["overloaded"],
            &[vec![], vec!["a", "b"], vec!["a", "b", "c"]]
        )
        .hint(),
        Value::Null
    );
    // overloaded?a=1&b=2&wrong_arg=value
    assert_eq!(
        RestError::function_not_found(
            "test",
            "overloaded",
            &["a", "b", "wrong_arg"],
            RpcPayload::Json,
            false,
            &["overloaded"],
            &[vec![], vec!["a", "b"], vec!["a", "b", "c"]]
        )
        .hint(),
        json!("Perhaps you meant to call the function test.overloaded(a, b, c)")
    );
}

#[test]
fn function_hint_doctests() {
    let procs = ["test", "another"]; // api.test, api.another (private.other filtered out)
    assert_eq!(
        function_hint("api", "testt", &["val", "param", "name"], &procs, &[]).as_deref(),
        Some("Perhaps you meant to call the function api.test")
    );
    assert_eq!(function_hint("api", "other", &[], &procs, &[]), None); // v14: < 0.75
    assert_eq!(function_hint("api", "noclosealternative", &[], &procs, &[]), None);
    let overloads = [vec!["val", "param", "name"], vec!["id", "attr"]];
    assert_eq!(
        function_hint("api", "test", &["vall", "pqaram", "nam"], &procs, &overloads).as_deref(),
        Some("Perhaps you meant to call the function api.test(name, param, val)")
    );
    assert_eq!(
        function_hint("api", "test", &["val", "param"], &procs, &overloads).as_deref(),
        Some("Perhaps you meant to call the function api.test(name, param, val)")
    );
    assert_eq!(
        function_hint("api", "test", &["id", "attrs"], &procs, &overloads).as_deref(),
        Some("Perhaps you meant to call the function api.test(attr, id)")
    );
    assert_eq!(
        function_hint("api", "test", &["id"], &procs, &overloads).as_deref(),
        Some("Perhaps you meant to call the function api.test(attr, id)")
    );
    assert_eq!(function_hint("api", "test", &["noclosealternative"], &procs, &overloads), None);
}

#[test]
fn pgrst203_ambiguous_function() {
    let sig = |params: &[(&str, &str)]| FunctionSignature {
        schema: "test".into(),
        name: "overloaded_same_args".into(),
        params: params.iter().map(|(n, t)| ((*n).into(), (*t).into())).collect(),
    };
    let e = RestError::ambiguous_function(vec![
        sig(&[("arg", "integer")]),
        sig(&[("arg", "xml")]),
        sig(&[("arg", "text"), ("num", "integer")]),
    ]);
    check(
        &e,
        300,
        json!({"code":"PGRST203","details":null,"hint":"Try renaming the parameters or the function itself in the database so function overloading can be resolved","message":"Could not choose the best candidate function between: test.overloaded_same_args(arg => integer), test.overloaded_same_args(arg => xml), test.overloaded_same_args(arg => text, num => integer)"}),
    );
    assert_eq!(wire_len(&e), 353);
    let unnamed = RestError::ambiguous_function(vec![FunctionSignature {
        schema: "test".into(),
        name: "overloaded_unnamed_json_jsonb_param".into(),
        params: vec![(String::new(), "json".into())],
    }]);
    assert_eq!(
        unnamed.message(),
        "Could not choose the best candidate function between: test.overloaded_unnamed_json_jsonb_param( => json)"
    );
}

#[test]
fn pgrst204_and_pgrst205() {
    check(
        &RestError::column_not_found("articles", "helicopter"),
        400,
        json!({"code":"PGRST204","details":null,"hint":null,"message":"Could not find the 'helicopter' column of 'articles' in the schema cache"}),
    );
    let tables = ["projects", "clients", "tasks"];
    let e = RestError::table_not_found("test", "non_existent_table", &tables);
    check(
        &e,
        404,
        json!({"code":"PGRST205","details":null,"hint":null,"message":"Could not find the table 'test.non_existent_table' in the schema cache"}),
    );
    assert_eq!(wire_len(&e), 129);
    for typo in ["projectx", "projecxx"] {
        let e = RestError::table_not_found("test", typo, &tables);
        check(
            &e,
            404,
            json!({"code":"PGRST205","details":null,"hint":"Perhaps you meant the table 'test.projects'","message":format!("Could not find the table 'test.{typo}' in the schema cache")}),
        );
        assert_eq!(wire_len(&e), 160);
    }
    let e = RestError::table_not_found("test", "projxxxx", &tables);
    assert_eq!(e.hint(), Value::Null);
    assert_eq!(wire_len(&e), 119);
    // No fuzzy index for schemas with 500+ tables.
    let many: Vec<String> = (0..500).map(|i| format!("t{i}")).collect();
    let mut refs: Vec<&str> = many.iter().map(String::as_str).collect();
    refs.push("projects");
    assert_eq!(RestError::table_not_found("test", "projectx", &refs).hint(), Value::Null);
}

// ---------------------------------------------------------------- group 3

#[test]
fn jwt_errors() {
    check(
        &RestError::JwtSecretMissing,
        500,
        json!({"code":"PGRST300","details":null,"hint":null,"message":"Server lacks JWT secret"}),
    );
    let cases: Vec<(JwtDecodeError, Value, &str)> = vec![
        (JwtDecodeError::EmptyAuthHeader, Value::Null, "Empty JWT is sent in Authorization header"),
        (JwtDecodeError::UnexpectedParts(2), Value::Null, "Expected 3 parts in JWT; got 2"),
        (
            JwtDecodeError::KeyError(JwtDecodeError::NO_MATCHING_KEY.into()),
            json!("None of the keys was able to decode the JWT"),
            "No suitable key or wrong key type",
        ),
        (JwtDecodeError::BadAlgorithm("alg".into()), json!("alg"), "Wrong or unsupported encoding algorithm"),
        (JwtDecodeError::BadCrypto, Value::Null, "JWT cryptographic operation failed"),
        (JwtDecodeError::UnsupportedTokenType, Value::Null, "Unsupported token type"),
        (JwtDecodeError::Undecodable, Value::Null, "JWT couldn't be decoded"),
    ];
    for (e, details, message) in cases {
        check(
            &RestError::jwt_decode(e),
            401,
            json!({"code":"PGRST301","details":details,"hint":null,"message":message}),
        );
    }
    assert_eq!(wire_len(&RestError::jwt_decode(JwtDecodeError::EmptyAuthHeader)), 100);
    assert_eq!(wire_len(&RestError::jwt_decode(JwtDecodeError::UnexpectedParts(2))), 89);
    assert_eq!(RestError::from(JwtClaimsError::Expired), RestError::JwtClaims(JwtClaimsError::Expired));
    assert_eq!(RestError::from(JwtDecodeError::BadCrypto).code(), "PGRST301");
    check(
        &RestError::AnonymousAccessDisabled,
        401,
        json!({"code":"PGRST302","details":null,"hint":null,"message":"Anonymous access is disabled"}),
    );
    let claims = [
        (JwtClaimsError::Expired, "JWT expired"),
        (JwtClaimsError::NotYetValid, "JWT not yet valid"),
        (JwtClaimsError::IssuedAtFuture, "JWT issued at future"),
        (JwtClaimsError::NotInAudience, "JWT not in audience"),
        (JwtClaimsError::ParsingClaimsFailed, "Parsing claims failed"),
        (JwtClaimsError::ExpNotNumber, "The JWT 'exp' claim must be a number"),
        (JwtClaimsError::NbfNotNumber, "The JWT 'nbf' claim must be a number"),
        (JwtClaimsError::IatNotNumber, "The JWT 'iat' claim must be a number"),
        (JwtClaimsError::AudNotStringOrArray, "The JWT 'aud' claim must be a string or an array of strings"),
    ];
    for (e, message) in claims {
        check(&RestError::jwt_claims(e), 401, json!({"code":"PGRST303","details":null,"hint":null,"message":message}));
    }
}

#[test]
fn jwt_www_authenticate() {
    let resp = RestError::jwt_claims(JwtClaimsError::Expired).error_response();
    assert_eq!(resp.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        header(&resp, "www-authenticate").as_deref(),
        Some("Bearer error=\"invalid_token\", error_description=\"JWT expired\"")
    );
    assert_eq!(header(&resp, "proxy-status").as_deref(), Some("PostgREST; error=PGRST303"));
    let resp = RestError::jwt_decode(JwtDecodeError::UnexpectedParts(2)).error_response();
    assert_eq!(
        header(&resp, "www-authenticate").as_deref(),
        Some("Bearer error=\"invalid_token\", error_description=\"Expected 3 parts in JWT; got 2\"")
    );
    let resp = RestError::jwt_decode(JwtDecodeError::EmptyAuthHeader).error_response();
    assert_eq!(
        header(&resp, "www-authenticate").as_deref(),
        Some("Bearer error=\"invalid_token\", error_description=\"Empty JWT is sent in Authorization header\"")
    );
    let resp = RestError::AnonymousAccessDisabled.error_response();
    assert_eq!(header(&resp, "www-authenticate").as_deref(), Some("Bearer"));
    let resp = RestError::JwtSecretMissing.error_response();
    assert_eq!(header(&resp, "www-authenticate"), None);
}

// ---------------------------------------------------------------- postgres

#[test]
fn db_error_body_passes_fields_through() {
    // docs/references/errors.rst example (23502 -> 400).
    let e = RestError::db(
        "23502",
        "null value in column \"id\" of relation \"projects\" violates not-null constraint",
        Some("Failing row contains (null, foo, null).".into()),
        None,
        false,
    );
    check(
        &e,
        400,
        json!({"code":"23502","details":"Failing row contains (null, foo, null).","hint":null,"message":"null value in column \"id\" of relation \"projects\" violates not-null constraint"}),
    );
    // ErrorSpec: 54001 -> 500, Content-Length 217.
    let e = RestError::db(
        "54001",
        "stack depth limit exceeded",
        None,
        Some("Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.".into()),
        false,
    );
    check(
        &e,
        500,
        json!({"code":"54001","details":null,"hint":"Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.","message":"stack depth limit exceeded"}),
    );
    assert_eq!(wire_len(&e), 217);
    // Supabase's classic duplicate key.
    let e = RestError::db(
        "23505",
        "duplicate key value violates unique constraint \"t_pkey\"",
        Some("Key (id)=(1) already exists.".into()),
        None,
        true,
    );
    check(
        &e,
        409,
        json!({"code":"23505","details":"Key (id)=(1) already exists.","hint":null,"message":"duplicate key value violates unique constraint \"t_pkey\""}),
    );
}

#[test]
fn sqlstate_status_table() {
    // One assertion per class / special code of pgErrorStatus.
    assert_eq!(st("08000"), 503); // 08*
    assert_eq!(st("08006"), 503);
    assert_eq!(st("09000"), 500); // 09*
    assert_eq!(st("0L000"), 403); // 0L*
    assert_eq!(st("0LP01"), 403);
    assert_eq!(st("0P000"), 403); // 0P*
    assert_eq!(st("23503"), 409); // foreign_key_violation
    assert_eq!(st("23505"), 409); // unique_violation
    assert_eq!(st("23502"), 400); // other 23* -> default 400
    assert_eq!(st("23514"), 400);
    assert_eq!(st("23P01"), 400);
    assert_eq!(st("25006"), 405); // read_only_sql_transaction
    assert_eq!(st("25001"), 500); // 25*
    assert_eq!(st("25P02"), 500);
    assert_eq!(st("21000"), 500); // cardinality_violation
    assert_eq!(db("21000", "DELETE requires a WHERE clause").status().as_u16(), 400); // pg-safeupdate
    assert_eq!(db("22023", "role \"nobody\" does not exist").status().as_u16(), 401);
    assert_eq!(db("22023", "invalid value for parameter").status().as_u16(), 400);
    assert_eq!(st("22P02"), 400); // 22* -> default
    assert_eq!(st("22012"), 400);
    assert_eq!(st("28000"), 403); // 28*
    assert_eq!(st("28P01"), 403);
    assert_eq!(st("2D000"), 500); // 2D*
    assert_eq!(st("38000"), 500); // 38*
    assert_eq!(st("39000"), 500); // 39*
    assert_eq!(st("3B000"), 500); // 3B*
    assert_eq!(st("40001"), 409); // what still conflicts after the retries
    assert_eq!(st("40P01"), 409);
    assert_eq!(st("40003"), 500); // 40*
    assert_eq!(st("53400"), 500); // configuration_limit_exceeded
    assert_eq!(st("53100"), 503); // 53*
    assert_eq!(st("53300"), 503);
    assert_eq!(st("54000"), 500); // 54*
    assert_eq!(st("54001"), 500);
    assert_eq!(st("55000"), 500); // 55*
    assert_eq!(st("55P03"), 500);
    assert_eq!(st("57P01"), 503); // admin_shutdown
    assert_eq!(st("57014"), 500); // query_canceled (statement timeout)
    assert_eq!(st("57P03"), 500); // 57*
    assert_eq!(st("58000"), 500); // 58*
    assert_eq!(st("58030"), 500);
    assert_eq!(st("F0000"), 500); // F0*
    assert_eq!(st("HV000"), 500); // HV*
    assert_eq!(st("P0001"), 400); // raise_exception
    assert_eq!(st("P0002"), 500); // P0*
    assert_eq!(st("P0004"), 500);
    assert_eq!(st("XX000"), 500); // XX*
    assert_eq!(st("XX001"), 500);
    assert_eq!(st("42883"), 404); // undefined_function
    assert_eq!(db("42883", "function xmlagg(integer) does not exist").status().as_u16(), 406);
    assert_eq!(st("42P01"), 404); // undefined_table
    assert_eq!(st("42P17"), 500); // invalid_object_definition (infinite recursion)
    assert_eq!(st("42703"), 400); // other 42* -> default
    assert_eq!(st("42601"), 400);
    for other in [
        "00000", "01000", "02000", "03000", "0A000", "0B000", "0F000", "0Z000", "20000", "24000", "26000", "27000",
        "2B000", "2F000", "34000", "3D000", "3F000", "44000",
    ] {
        assert_eq!(st(other), 400, "{other}");
    }
    // the function form agrees
    assert_eq!(pg_error_status("23505", "", None, true), StatusCode::CONFLICT);
}

#[test]
fn insufficient_privilege_401_or_403() {
    let anon = RestError::db("42501", "permission denied for table authors_only", None, None, true);
    check(
        &anon,
        401,
        json!({"hint":null,"details":null,"code":"42501","message":"permission denied for table authors_only"}),
    );
    assert_eq!(wire_len(&anon), 96); // AuthSpec
    let resp = anon.error_response();
    assert_eq!(header(&resp, "www-authenticate").as_deref(), Some("Bearer"));
    let authed = RestError::db("42501", "permission denied for table authors_only", None, None, false);
    assert_eq!(authed.status(), StatusCode::FORBIDDEN);
    assert_eq!(header(&authed.error_response(), "www-authenticate"), None);
    // The jwt role that does not exist is a 401 too, with the challenge.
    let resp = db("22023", "role \"nobody\" does not exist").error_response();
    assert_eq!(header(&resp, "www-authenticate").as_deref(), Some("Bearer"));
}

#[test]
fn pt_raise_codes() {
    // raise sqlstate 'PT402' using message = 'Payment Required', detail = 'Quota exceeded', hint = 'Upgrade your plan'
    let e = RestError::db(
        "PT402",
        "Payment Required",
        Some("Quota exceeded".into()),
        Some("Upgrade your plan".into()),
        true,
    );
    check(
        &e,
        402,
        json!({"code":"PT402","details":"Quota exceeded","hint":"Upgrade your plan","message":"Payment Required"}),
    );
    assert_eq!(wire_len(&e), 99);
    assert_eq!(e.reason_phrase().as_deref(), Some("Payment Required"));
    let resp = e.error_response();
    assert_eq!(resp.status().as_u16(), 402);
    assert_eq!(header(&resp, "proxy-status").as_deref(), Some("PostgREST; error=PT402"));
    assert_eq!(resp.head().reason(), "Payment Required");
    // raise sqlstate 'PT40A' using message = 'Wrong' -> 500
    let e = db("PT40A", "Wrong");
    check(&e, 500, json!({"hint": null, "details": null, "code": "PT40A", "message": "Wrong"}));
    assert_eq!(wire_len(&e), 61);
    assert_eq!(e.reason_phrase(), None);
    // A 401 from PT401 gets the Bearer challenge; custom phrases work for any status.
    let e = db("PT401", "Who are you");
    assert_eq!(e.status().as_u16(), 401);
    let resp = e.error_response();
    assert_eq!(header(&resp, "www-authenticate").as_deref(), Some("Bearer"));
    assert_eq!(resp.head().reason(), "Who are you");
    assert_eq!(st("PT418"), 418);
    assert_eq!(st("PT599"), 599);
    assert_eq!(st("PT099"), 500); // not sendable by actix
}

fn pgrst(message: &str, detail: Option<&str>) -> RestError {
    RestError::db("PGRST", message, detail.map(str::to_owned), None, false)
}

#[test]
fn pgrst_custom_raise() {
    // raise_sqlstate_test1
    let e = pgrst(
        r#"{"code":"123","message":"ABC","details":"DEF","hint":"XYZ"}"#,
        Some(r#"{"status":332,"status_text":"My Custom Status","headers":{"X-Header":"str"}}"#),
    );
    check(&e, 332, json!({"code":"123","details":"DEF","hint":"XYZ","message":"ABC"}));
    assert_eq!(wire_len(&e), 59);
    let resp = e.error_response();
    assert_eq!(resp.status().as_u16(), 332);
    assert_eq!(resp.head().reason(), "My Custom Status");
    assert_eq!(header(&resp, "x-header").as_deref(), Some("str"));
    assert_eq!(header(&resp, "proxy-status").as_deref(), Some("PostgREST; error=123"));
    assert_eq!(header(&resp, "content-type").as_deref(), Some("application/json; charset=utf-8"));
    assert_eq!(response_body(resp), json!({"code":"123","details":"DEF","hint":"XYZ","message":"ABC"}));
    // raise_sqlstate_test2: optional keys absent -> null; unknown status -> empty phrase
    let e = pgrst(r#"{"code":"123","message":"ABC"}"#, Some(r#"{"status":332,"headers":{"X-Header":"str"}}"#));
    check(&e, 332, json!({"code":"123","message":"ABC","details":null,"hint":null}));
    assert_eq!(e.reason_phrase().as_deref(), Some(""));
    // raise_sqlstate_test3: standard status keeps its phrase
    let e = pgrst(r#"{"code":"123","message":"ABC"}"#, Some(r#"{"status":404,"headers":{"X-Header":"str"}}"#));
    let resp = e.error_response();
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert_eq!(resp.head().reason(), "Not Found");
    // raise_sqlstate_test4: custom phrase for a standard status
    let e = pgrst(
        r#"{"code":"123","message":"ABC"}"#,
        Some(r#"{"status":404,"status_text":"My Not Found","headers":{"X-Header":"str"}}"#),
    );
    assert_eq!(e.error_response().head().reason(), "My Not Found");
    // A custom 401 gets its own headers only (no Bearer challenge).
    let e =
        pgrst(r#"{"code":"x","message":"m","details":null}"#, Some(r#"{"status":401.0,"headers":{"B":"2","A":"1"}}"#));
    assert_eq!(e.status().as_u16(), 401);
    assert_eq!(
        e.headers(),
        vec![
            ("Proxy-Status".to_owned(), "PostgREST; error=x".to_owned()),
            ("A".to_owned(), "1".to_owned()),
            ("B".to_owned(), "2".to_owned()),
        ]
    );
}

#[test]
fn pgrst_custom_raise_parse_failures_are_pgrst121() {
    // raise_sqlstate_invalid_json_message
    let e = pgrst("INVALID", Some(r#"{"status":332,"headers":{"X-Header":"str"}}"#));
    check(
        &e,
        500,
        json!({"code":"PGRST121","message":"Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error","details":"Invalid JSON value for MESSAGE: 'INVALID'","hint":"MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."}),
    );
    assert_eq!(e.headers(), vec![("Proxy-Status".to_owned(), "PostgREST; error=PGRST121".to_owned())]);
    // raise_sqlstate_invalid_json_details
    let e = pgrst(r#"{"code":"123","message":"ABC","details":"DEF"}"#, Some("INVALID"));
    check(
        &e,
        500,
        json!({"code":"PGRST121","message":"Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error","details":"Invalid JSON value for DETAIL: 'INVALID'","hint":"DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."}),
    );
    // raise_sqlstate_missing_details
    let e = pgrst(r#"{"code":"123","message":"ABC","details":"DEF"}"#, None);
    check(
        &e,
        500,
        json!({"code":"PGRST121","message":"Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error","details":"DETAIL is missing in the RAISE statement","hint":"DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."}),
    );
    // MESSAGE is checked before DETAIL; wrong types fail like unparsable JSON.
    assert_eq!(pgrst("INVALID", None).details(), json!("Invalid JSON value for MESSAGE: 'INVALID'"));
    assert_eq!(pgrst(r#"{"code":123,"message":"ABC"}"#, Some(r#"{"status":400,"headers":{}}"#)).code(), "PGRST121");
    assert_eq!(
        pgrst(r#"{"code":"1","message":"ABC","hint":5}"#, Some(r#"{"status":400,"headers":{}}"#)).code(),
        "PGRST121"
    );
    assert_eq!(
        pgrst(r#"{"code":"1","message":"m"}"#, Some(r#"{"status":"400","headers":{}}"#)).details(),
        json!("Invalid JSON value for DETAIL: '{\"status\":\"400\",\"headers\":{}}'")
    );
    assert_eq!(pgrst(r#"{"code":"1","message":"m"}"#, Some(r#"{"status":400}"#)).code(), "PGRST121");
    assert_eq!(pgrst(r#"{"code":"1","message":"m"}"#, Some(r#"{"status":400,"headers":{"a":1}}"#)).code(), "PGRST121");
    assert_eq!(pgrst(r#"{"code":"1","message":"m"}"#, Some(r#"{"status":400.5,"headers":{}}"#)).code(), "PGRST121");
    // parse_custom_raise itself
    assert_eq!(parse_custom_raise("[]", Some("{}")), Err(RaiseParseError::InvalidMessage("[]".into())));
    assert_eq!(parse_custom_raise(r#"{"code":"1","message":"m"}"#, None), Err(RaiseParseError::MissingDetail));
}

// ---------------------------------------------------------------- actix response

#[test]
fn response_carries_status_body_and_headers() {
    let e = RestError::singular(2);
    let resp = e.error_response();
    assert_eq!(resp.status(), StatusCode::NOT_ACCEPTABLE);
    assert_eq!(header(&resp, "content-type").as_deref(), Some(ERROR_CONTENT_TYPE));
    assert_eq!(header(&resp, "proxy-status").as_deref(), Some("PostgREST; error=PGRST116"));
    assert_eq!(header(&resp, "www-authenticate"), None);
    assert_eq!(
        response_body(resp),
        json!({"code":"PGRST116","details":"The result contains 2 rows","hint":null,"message":"Cannot coerce the result to a single JSON object"})
    );
    assert_eq!(ResponseError::status_code(&e), StatusCode::NOT_ACCEPTABLE);
    // Serialize == body
    assert_eq!(serde_json::to_value(&e).unwrap(), e.body());
}

#[test]
fn internal_errors_never_leak_the_cause() {
    let e = RestError::internal("secret dsn postgres://user:pw@host/db");
    check(&e, 500, json!({"code":"PGRSTX00","details":null,"hint":null,"message":"Internal server error"}));
    let text = serde_json::to_string(&response_body(e.error_response())).unwrap();
    assert!(!text.contains("secret"));
    // Display (for logs) does include it.
    assert!(e.to_string().contains("secret dsn"));
    assert_eq!(RestError::singular(1).to_string(), "PGRST116: Cannot coerce the result to a single JSON object");
}

#[test]
fn from_pg_non_db_errors() {
    let timeout = tokio_postgres::Error::__private_api_timeout();
    assert_eq!(RestError::from_pg(&timeout, true), RestError::ConnectionFailed);
    let bad_config = "host=/tmp port=notaport".parse::<tokio_postgres::Config>().unwrap_err();
    let e = RestError::from_pg(&bad_config, false);
    assert_eq!(e, RestError::ConnectionFailed);
    assert_eq!(e.status().as_u16(), 503);
    assert_eq!(e.details(), Value::Null);
}

// ---------------------------------------------------------------- suggest

#[test]
fn suggest_finds_close_names() {
    assert_eq!(suggest("film", ["films", "directors"]), Some("films"));
    assert_eq!(suggest("role", ["directors", "roles", "actors"]), Some("roles"));
    assert_eq!(suggest("Projectx", ["clients", "projects"]), Some("projects"));
    // exact (case-insensitive) match returns the stored spelling
    assert_eq!(suggest("CLIENTS", ["clients", "projects"]), Some("clients"));
    assert_eq!(fuzzy_matches("clients", ["Clients"], 0.33), vec![(1.0, "Clients")]);
}

#[test]
fn suggest_none_when_nothing_close() {
    assert_eq!(suggest("noclosealternative", ["films", "directors", "roles"]), None);
    assert_eq!(suggest("anything", std::iter::empty::<&str>()), None);
    assert_eq!(suggest_with_min_score("projxxxx", ["projects"], 0.75), None);
    assert_eq!(suggest_with_min_score("projecxx", ["projects"], 0.75), Some("projects"));
    assert_eq!(suggest_with_min_score("other", ["test", "another"], 0.75), None);
    assert_eq!(suggest("other", ["test", "another"]), Some("another")); // v13 behaviour (0.33)
}
