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
/// The order of the checks is PostgREST's: e.g. 23503 is tested before the
/// (absent) 23* rule, so other class-23 codes such as 23502 fall to 400.
pub fn pg_error_status(
    sqlstate: &str,
    message: &str,
    detail: Option<&str>,
    anonymous: bool,
) -> StatusCode {
    let p = |prefix: &str| sqlstate.starts_with(prefix);
    let code = if p("08") {
        503 // pg connection err
    } else if p("09") {
        500 // triggered action exception
    } else if p("0L") || p("0P") {
        403 // invalid grantor / invalid role specification
    } else if sqlstate == "23503" || sqlstate == "23505" {
        409 // foreign_key_violation / unique_violation
    } else if sqlstate == "25006" {
        405 // read_only_sql_transaction
    } else if sqlstate == "21000" {
        // cardinality_violation: pg-safeupdate's error is a client error
        if message.ends_with("requires a WHERE clause") {
            400
        } else {
            500
        }
    } else if sqlstate == "22023" {
        // invalid_parameter_value; a JWT role that does not exist (PostgREST v13+, #3601)
        if message.starts_with("role") && message.ends_with("does not exist") {
            401
        } else {
            400
        }
    } else if p("25") {
        500 // invalid tx state
    } else if p("28") {
        403 // invalid auth specification
    } else if p("2D") || p("38") || p("39") || p("3B") || p("40") {
        500 // tx termination, external routine, savepoint, rollback
    } else if sqlstate == "53400" {
        500 // config limit exceeded
    } else if p("53") {
        503 // insufficient resources
    } else if p("54") || p("55") {
        500 // too complex, obj not in prerequisite state
    } else if sqlstate == "57P01" {
        503 // terminating connection due to administrator command
    } else if p("57") || p("58") || p("F0") || p("HV") {
        500 // operator intervention (incl. 57014 statement timeout), system, config file, fdw
    } else if sqlstate == "P0001" {
        400 // default code for "raise"
    } else if p("P0") || p("XX") {
        500 // PL/pgSQL error, internal error
    } else if sqlstate == "42883" {
        if message.starts_with("function xmlagg(") {
            406
        } else {
            404 // undefined function
        }
    } else if sqlstate == "42P01" {
        404 // undefined table
    } else if sqlstate == "42P17" {
        500 // infinite recursion
    } else if sqlstate == "42501" {
        if anonymous {
            401
        } else {
            403
        }
    } else if let Some(digits) = sqlstate.strip_prefix("PT") {
        return pt_status(digits);
    } else if sqlstate == "PGRST" {
        return match parse_custom_raise(message, detail) {
            Ok(raise) => raise.status_code(),
            Err(_) => StatusCode::INTERNAL_SERVER_ERROR, // PGRST121
        };
    } else {
        400
    };
    StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// `'P':'T':n -> fromMaybe 500 (mkStatus <$> readMaybe n ...)`. PostgREST
/// would also emit a status below 100 (e.g. `PT099`); HTTP libraries here
/// cannot, so those become 500 too.
fn pt_status(digits: &str) -> StatusCode {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return StatusCode::INTERNAL_SERVER_ERROR;
    }
    digits
        .parse::<u16>()
        .ok()
        .and_then(|n| StatusCode::from_u16(n).ok())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
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
    let headers_obj = det
        .get("headers")
        .and_then(Value::as_object)
        .ok_or_else(invalid_detail)?;
    let mut headers = Vec::with_capacity(headers_obj.len());
    for (name, value) in headers_obj {
        let value = value.as_str().ok_or_else(invalid_detail)?;
        headers.push((name.clone(), value.to_owned()));
    }
    headers.sort_by(|a, b| a.0.cmp(&b.0));

    Ok(CustomRaise {
        code,
        message: text,
        details,
        hint,
        status,
        status_text,
        headers,
    })
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
