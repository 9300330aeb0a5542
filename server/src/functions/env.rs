//! The environment a function sees: `SUPABASE_URL` (this server, reached over loopback), the
//! anon and service-role keys, the new publishable and secret keys, `SUPABASE_DB_URL` (given by
//! `startup`), and the project's secrets
//! from `functions/.env` (as `supabase functions serve` loads it). Names starting with
//! `SUPABASE_` are reserved and skipped in the file. Values are secrets: never logged.

use std::path::Path;

use secrecy::SecretString;

/// `KEY=VALUE` lines of a dotenv file: `#` comments, an optional `export `, values optionally in
/// single or double quotes (double-quoted `\n` is a newline). Malformed lines are skipped and
/// named (by line number only) in the returned warnings.
pub fn parse_dotenv(text: &str) -> (Vec<(String, String)>, Vec<String>) {
    let mut vars = Vec::new();
    let mut warnings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((name, value)) = line.split_once('=') else {
            warnings.push(format!("line {}: not NAME=VALUE", index + 1));
            continue;
        };
        let name = name.trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            warnings.push(format!("line {}: not a variable name", index + 1));
            continue;
        }
        let value = value.trim();
        let value = if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            inner.replace("\\n", "\n").replace("\\\"", "\"")
        } else if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
            inner.to_string()
        } else {
            value.split(" #").next().unwrap_or_default().trim_end().to_string()
        };
        vars.push((name.to_string(), value));
    }
    (vars, warnings)
}

/// The variables of the functions: the platform's, then `config.toml`'s `[edge_runtime.secrets]`,
/// then the functions folder's `.env` (a later one wins, as the CLI merges them; reserved names
/// skipped).
pub fn function_env(
    functions_dir: Option<&Path>,
    platform: Vec<(String, SecretString)>,
    config_secrets: &[(String, String)],
) -> Vec<(String, SecretString)> {
    let mut env = platform;
    for (name, value) in config_secrets {
        if name.starts_with("SUPABASE_") {
            tracing::warn!(
                name,
                "functions: [edge_runtime.secrets]: names starting with SUPABASE_ are reserved; skipped"
            );
        } else {
            env.retain(|(known, _)| known != name);
            env.push((name.clone(), SecretString::from(value.clone())));
        }
    }
    let Some(functions_dir) = functions_dir else { return env };
    let path = functions_dir.join(".env");
    let Ok(text) = std::fs::read_to_string(&path) else { return env };
    let (vars, warnings) = parse_dotenv(&text);
    for warning in warnings {
        tracing::warn!(file = %path.display(), "functions: {warning}");
    }
    for (name, value) in vars {
        if name.starts_with("SUPABASE_") {
            tracing::warn!(file = %path.display(), name, "functions: names starting with SUPABASE_ are reserved; skipped");
        } else {
            env.retain(|(known, _)| *known != name);
            env.push((name, SecretString::from(value)));
        }
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotenv_lines_comments_quotes_and_export() {
        let (vars, warnings) = parse_dotenv(
            "# a comment\nPLAIN=value\nexport EXPORTED=1\nDOUBLE=\"a b\\nc\"\nSINGLE='x # y'\nTRAIL=v # note\n\nbad line\n9-x=1\n",
        );
        let expected =
            [("PLAIN", "value"), ("EXPORTED", "1"), ("DOUBLE", "a b\nc"), ("SINGLE", "x # y"), ("TRAIL", "v")];
        assert_eq!(vars, expected.map(|(n, v)| (n.to_string(), v.to_string())).to_vec());
        assert_eq!(warnings, vec!["line 8: not NAME=VALUE", "line 9: not a variable name"]);
    }

    #[test]
    fn reserved_names_are_skipped_and_the_file_wins_over_the_config_secrets() {
        use secrecy::ExposeSecret;
        let dir = std::env::temp_dir().join(format!("functions-env-{}", crate::keys::random_secret()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(".env"), "SUPABASE_URL=http://evil\nSTRIPE_KEY=sk_test\n").unwrap();
        let config = [("STRIPE_KEY", "from-config"), ("API_KEY", "a"), ("SUPABASE_ANON_KEY", "no")]
            .map(|(n, v)| (n.to_string(), v.to_string()));
        let platform = vec![("SUPABASE_URL".into(), SecretString::from("http://127.0.0.1:1".to_string()))];
        let env = function_env(Some(&dir), platform, &config);
        let pairs: Vec<(String, String)> =
            env.iter().map(|(n, v)| (n.clone(), v.expose_secret().to_string())).collect();
        let expected = [("SUPABASE_URL", "http://127.0.0.1:1"), ("API_KEY", "a"), ("STRIPE_KEY", "sk_test")];
        assert_eq!(pairs, expected.map(|(n, v)| (n.to_string(), v.to_string())).to_vec());
        assert_eq!(function_env(None, Vec::new(), &config).len(), 2, "without a folder: the config's secrets");
    }
}
