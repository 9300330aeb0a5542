//! Postgres errors: the SQLSTATE -> HTTP status table and the custom
//! `RAISE SQLSTATE 'PGRST'` / `'PTxyz'` protocols, as in PostgREST v12-v14
//! `src/PostgREST/Error.hs` (`pgErrorStatus`, `parseRaisePGRST`) and the docs
//! page "Errors" (`docs/references/errors.rst`, "HTTP Status Codes").

use actix_web::http::StatusCode;
use serde_json::Value;

/// HTTP status PostgREST answers for a Postgres error with this SQLSTATE.
///
/// `message` matters for three codes (21000 from pg-safeupdate, 22023 for a
/// JWT role that does not exist, 42883 for a missing `xmlagg`), `detail` for
/// `PGRST` (custom raise), `anonymous` for 42501.
///
/// | SQLSTATE | status | | SQLSTATE | status |
/// |---|---|---|---|---|
/// | 08* | 503 | | 53400 | 500 |
/// | 09* | 500 | | 53* | 503 |
/// | 0L*, 0P* | 403 | | 54*, 55* | 500 |
/// | 23503, 23505 | 409 | | 57P01 | 503 |
/// | 25006 | 405 | | 57*, 58*, F0*, HV* | 500 |
/// | 21000 | 400 if the message ends "requires a WHERE clause", else 500 | | P0001 | 400 |
/// | 22023 | 401 if the message is "role ... does not exist", else 400 | | P0*, XX* | 500 |
/// | 25* | 500 | | 42883 | 406 for `function xmlagg(...`, else 404 |
/// | 28* | 403 | | 42P01 | 404 |
/// | 2D*, 38*, 39*, 3B*, 40* | 500 | | 42P17 | 500 |
/// | 42501 | 401 anonymous / 403 authenticated | | PTxyz | xyz (500 if not a number) |
/// | PGRST | `status` from the JSON detail (PGRST121 -> 500 if unparsable) | | other | 400 |
///
/// Checks run in PostgREST's order; codes matching no rule, such as 23502
/// (not-null), 23514 (check), 22P02 (bad input) or 42703 (undefined column),
/// get 400. Classes 23, 22 and 42 have no blanket rule.
pub fn pg_error_status(sqlstate: &str, message: &str, detail: Option<&str>, anonymous: bool) -> StatusCode {
    let rule = STATUS_RULES
        .iter()
        .find(|(pattern, _)| match pattern.strip_suffix('*') {
            Some(prefix) => sqlstate.starts_with(prefix),
            None => sqlstate == *pattern,
        })
        .map(|(_, rule)| *rule);
    let code = match rule {
        None => 400,
        Some(Rule::Fixed(code)) => code,
        // pg-safeupdate's error is a client error; other cardinality
        // violations ("more than one row returned by a subquery") are 500.
        Some(Rule::SafeUpdate) if message.ends_with("requires a WHERE clause") => 400,
        Some(Rule::SafeUpdate) => 500,
        // A JWT role that does not exist (PostgREST v13+, issue #3601).
        Some(Rule::MissingRole) if message.starts_with("role") && message.ends_with("does not exist") => 401,
        Some(Rule::MissingRole) => 400,
        Some(Rule::Xmlagg) if message.starts_with("function xmlagg(") => 406,
        Some(Rule::Xmlagg) => 404,
        Some(Rule::Privilege) if anonymous => 401,
        Some(Rule::Privilege) => 403,
        Some(Rule::Pt) => return pt_status(sqlstate.get(2..).unwrap_or_default()),
        Some(Rule::Custom) => {
            return match parse_custom_raise(message, detail) {
                Ok(raise) => raise.status_code(),
                Err(_) => StatusCode::INTERNAL_SERVER_ERROR, // PGRST121
            };
        }
    };
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

#[derive(Debug, Clone, Copy)]
enum Rule {
    Fixed(u16),
    SafeUpdate,
    MissingRole,
    Xmlagg,
    Privilege,
    Pt,
    Custom,
}

/// `pgErrorStatus`'s cases in PostgREST's order (first match wins; a
/// trailing `*` matches a prefix). No match: 400.
const STATUS_RULES: &[(&str, Rule)] = &[
    ("08*", Rule::Fixed(503)),    // pg connection err
    ("09*", Rule::Fixed(500)),    // triggered action exception
    ("0L*", Rule::Fixed(403)),    // invalid grantor
    ("0P*", Rule::Fixed(403)),    // invalid role specification
    ("23503", Rule::Fixed(409)),  // foreign_key_violation
    ("23505", Rule::Fixed(409)),  // unique_violation
    ("25006", Rule::Fixed(405)),  // read_only_sql_transaction
    ("21000", Rule::SafeUpdate),  // cardinality_violation
    ("22023", Rule::MissingRole), // invalid_parameter_value
    ("25*", Rule::Fixed(500)),    // invalid tx state
    ("28*", Rule::Fixed(403)),    // invalid auth specification
    ("2D*", Rule::Fixed(500)),    // invalid tx termination
    ("38*", Rule::Fixed(500)),    // external routine exception
    ("39*", Rule::Fixed(500)),    // external routine invocation
    ("3B*", Rule::Fixed(500)),    // savepoint exception
    ("40001", Rule::Fixed(409)),  // serialization_failure, still there after retries (PostgREST: 500)
    ("40P01", Rule::Fixed(409)),  // deadlock_detected, still there after retries (PostgREST: 500)
    ("40*", Rule::Fixed(500)),    // tx rollback
    ("53400", Rule::Fixed(500)),  // config limit exceeded
    ("53*", Rule::Fixed(503)),    // insufficient resources
    ("54*", Rule::Fixed(500)),    // too complex
    ("55*", Rule::Fixed(500)),    // obj not in prerequisite state
    ("57P01", Rule::Fixed(503)),  // terminating connection due to administrator command
    ("57*", Rule::Fixed(500)),    // operator intervention (incl. 57014 statement timeout)
    ("58*", Rule::Fixed(500)),    // system error
    ("F0*", Rule::Fixed(500)),    // config file error
    ("HV*", Rule::Fixed(500)),    // foreign data wrapper error
    ("P0001", Rule::Fixed(400)),  // default code for "raise"
    ("P0*", Rule::Fixed(500)),    // PL/pgSQL error
    ("XX*", Rule::Fixed(500)),    // internal error
    ("42883", Rule::Xmlagg),      // undefined function
    ("42P01", Rule::Fixed(404)),  // undefined table
    ("42P17", Rule::Fixed(500)),  // infinite recursion
    ("42501", Rule::Privilege),   // insufficient privilege
    ("PT*", Rule::Pt),            // RAISE SQLSTATE 'PTxyz'
    ("PGRST", Rule::Custom),      // RAISE SQLSTATE 'PGRST'
];

/// `'P':'T':n -> fromMaybe 500 (mkStatus <$> readMaybe n ...)`. PostgREST
/// would also emit a status below 100 (e.g. `PT099`); HTTP libraries here
/// cannot, so those become 500 too.
fn pt_status(digits: &str) -> StatusCode {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return StatusCode::INTERNAL_SERVER_ERROR;
    }
    digits.parse::<u16>().ok().and_then(|n| StatusCode::from_u16(n).ok()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// A parsed `RAISE SQLSTATE 'PGRST' USING MESSAGE = '{json}', DETAIL = '{json}'`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomRaise {
    /// MESSAGE `code` (any string, sent as the body's `code`).
    pub code: String,
    /// MESSAGE `message`.
    pub message: String,
    /// MESSAGE `details` (optional; `null` counts as absent).
    pub details: Option<String>,
    /// MESSAGE `hint` (optional; `null` counts as absent).
    pub hint: Option<String>,
    /// DETAIL `status`.
    pub status: i64,
    /// DETAIL `status_text`: the HTTP reason phrase, when given.
    pub status_text: Option<String>,
    /// DETAIL `headers`, sorted by name (PostgREST keeps them in a `Map`).
    pub headers: Vec<(String, String)>,
}

impl CustomRaise {
    /// The status to send; one outside 100..=999 cannot be sent by actix and
    /// becomes 500 (PostgREST would send it as is).
    pub fn status_code(&self) -> StatusCode {
        u16::try_from(self.status)
            .ok()
            .and_then(|n| StatusCode::from_u16(n).ok())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }
}

/// Why a `PGRST` raise could not be used (PGRST121). Each carries the raw text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RaiseParseError {
    /// MESSAGE is not a JSON object with string `code` and `message`.
    InvalidMessage(String),
    /// DETAIL is not a JSON object with integer `status` and string-valued `headers`.
    InvalidDetail(String),
    /// No DETAIL in the RAISE.
    MissingDetail,
}

impl RaiseParseError {
    /// PGRST121 `details`.
    pub fn details(&self) -> String {
        match self {
            RaiseParseError::InvalidMessage(m) => format!("Invalid JSON value for MESSAGE: '{m}'"),
            RaiseParseError::InvalidDetail(d) => format!("Invalid JSON value for DETAIL: '{d}'"),
            RaiseParseError::MissingDetail => "DETAIL is missing in the RAISE statement".to_owned(),
        }
    }

    /// PGRST121 `hint`.
    pub fn hint(&self) -> &'static str {
        match self {
            RaiseParseError::InvalidMessage(_) => {
                "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."
            }
            _ => "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.",
        }
    }
}

/// `parseRaisePGRST`: MESSAGE first, then the presence of DETAIL, then DETAIL.
pub fn parse_custom_raise(message: &str, detail: Option<&str>) -> Result<CustomRaise, RaiseParseError> {
    let invalid_message = || RaiseParseError::InvalidMessage(message.to_owned());
    let msg: Value = serde_json::from_str(message).map_err(|_| invalid_message())?;
    let msg = msg.as_object().ok_or_else(invalid_message)?;
    let code = required_string(msg.get("code")).ok_or_else(invalid_message)?;
    let text = required_string(msg.get("message")).ok_or_else(invalid_message)?;
    let details = optional_string(msg.get("details")).ok_or_else(invalid_message)?;
    let hint = optional_string(msg.get("hint")).ok_or_else(invalid_message)?;

    let detail = detail.ok_or(RaiseParseError::MissingDetail)?;
    let invalid_detail = || RaiseParseError::InvalidDetail(detail.to_owned());
    let det: Value = serde_json::from_str(detail).map_err(|_| invalid_detail())?;
    let det = det.as_object().ok_or_else(invalid_detail)?;
    let status = det.get("status").and_then(json_int).ok_or_else(invalid_detail)?;
    let status_text = optional_string(det.get("status_text")).ok_or_else(invalid_detail)?;
    let headers_obj = det.get("headers").and_then(Value::as_object).ok_or_else(invalid_detail)?;
    let mut headers = Vec::with_capacity(headers_obj.len());
    for (name, value) in headers_obj {
        let value = value.as_str().ok_or_else(invalid_detail)?;
        headers.push((name.clone(), value.to_owned()));
    }
    headers.sort_by(|a, b| a.0.cmp(&b.0));

    Ok(CustomRaise { code, message: text, details, hint, status, status_text, headers })
}

/// Aeson `.:` for `Text`.
fn required_string(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned)
}

/// Aeson `.:?` for `Text`: absent or `null` is `Some(None)`, a non-string is a failure.
fn optional_string(v: Option<&Value>) -> Option<Option<String>> {
    match v {
        None | Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    }
}

/// Aeson's `Int` parser: any integral JSON number in range (`402`, `402.0`, `4.02e2`).
fn json_int(v: &Value) -> Option<i64> {
    if let Some(i) = v.as_i64() {
        return Some(i);
    }
    let f = v.as_f64()?;
    if f.fract() == 0.0 && f >= i64::MIN as f64 && f <= i64::MAX as f64 {
        Some(f as i64)
    } else {
        None
    }
}
