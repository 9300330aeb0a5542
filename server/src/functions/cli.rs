//! The pieces of `server functions list|deploy|delete|invoke|logs` and `server secrets
//! set|list|unset` that are not plumbing: the bundle a deploy reads from the project folder (the
//! function's folder and `_shared/`, paths relative to the functions folder, as the router serves
//! them), the tables printed, and the `NAME=VALUE` pairs read. The commands talk to the database
//! (as `server keys signing` does, so they work with or without a running server); `invoke` talks
//! to the running server over HTTP.

use std::path::{Path, PathBuf};

use secrecy::SecretString;

use super::registry::FunctionSettings;
use super::store::{Deploy, Deployed, ListedSecret, LogLine, MAX_BUNDLE_BYTES, MAX_FILES};

/// The deploy of `functions_dir/<name>`: its files and `_shared/`'s (hidden files and
/// `node_modules` left out), its entry file (`config.toml`'s `entrypoint`, relative to the
/// project folder, else `index.ts` and the other names the folder serves).
pub fn bundle(
    functions_dir: &Path,
    project_dir: Option<&Path>,
    name: &str,
    settings: &FunctionSettings,
    no_verify_jwt: bool,
) -> Result<Deploy, String> {
    let folder = functions_dir.join(name);
    if !folder.is_dir() {
        return Err(format!("{} is not a folder: create it with `server functions new {name}`", folder.display()));
    }
    let mut files = Vec::new();
    let mut total = 0;
    for root in [folder.clone(), functions_dir.join("_shared")] {
        collect(functions_dir, &root, &mut files, &mut total)?;
    }
    let entry = match (&settings.entrypoint, project_dir) {
        (Some(entry), Some(project)) => {
            let path = std::fs::canonicalize(project.join(entry)).map_err(|e| format!("{entry}: {e}"))?;
            let base = std::fs::canonicalize(functions_dir).map_err(|e| e.to_string())?;
            path.strip_prefix(&base)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .map_err(|_| format!("the entrypoint {entry} is outside the functions folder; it cannot be deployed"))?
        }
        _ => ["index.ts", "index.js", "index.mts", "index.mjs", "index.tsx", "index.jsx"]
            .iter()
            .map(|f| format!("{name}/{f}"))
            .find(|p| files.iter().any(|(path, _)| path == p))
            .ok_or_else(|| format!("{} has no index.ts", folder.display()))?,
    };
    Ok(Deploy {
        slug: name.to_string(),
        name: Some(name.to_string()),
        entrypoint_path: entry,
        import_map_path: None,
        verify_jwt: settings.verify_jwt && !no_verify_jwt,
        files,
    })
}

fn collect(base: &Path, root: &Path, files: &mut Vec<(String, Vec<u8>)>, total: &mut usize) -> Result<(), String> {
    let mut pending: Vec<PathBuf> = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let file_name = file_name.to_string_lossy();
            if file_name.starts_with('.') || file_name == "node_modules" {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let content = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            *total += content.len();
            if *total > MAX_BUNDLE_BYTES || files.len() >= MAX_FILES {
                return Err(format!("the function is larger than {MAX_BUNDLE_BYTES} bytes or {MAX_FILES} files"));
            }
            let relative = path.strip_prefix(base).map_err(|e| e.to_string())?;
            files.push((relative.to_string_lossy().replace('\\', "/"), content));
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(())
}

/// `functions list`, as a table.
pub fn list_table(functions: &[Deployed]) -> String {
    let mut out = format!("{:<32}{:<9}{:<12}{:<27}{}\n", "SLUG", "VERSION", "VERIFY_JWT", "UPDATED (UTC)", "SHA256");
    for f in functions {
        out.push_str(&format!(
            "{:<32}{:<9}{:<12}{:<27}{}\n",
            f.slug,
            f.version,
            f.verify_jwt,
            f.updated_at.format("%Y-%m-%d %H:%M:%S"),
            &f.sha256[..12.min(f.sha256.len())]
        ));
    }
    out
}

/// `secrets list`, as a table (digests, never values).
pub fn secrets_table(secrets: &[ListedSecret]) -> String {
    let mut out = format!("{:<40}{}\n", "NAME", "DIGEST");
    for s in secrets {
        out.push_str(&format!("{:<40}{}\n", s.name, s.digest));
    }
    out
}

/// `functions logs`, one line each.
pub fn log_lines(lines: &[LogLine]) -> String {
    lines
        .iter()
        .map(|l| {
            format!(
                "{} {:<5} [request {} execution {}] {}\n",
                l.timestamp.map(|t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()).unwrap_or_default(),
                l.level,
                l.request_id.as_deref().unwrap_or("-"),
                l.execution_id.as_deref().unwrap_or("-"),
                l.message
            )
        })
        .collect()
}

/// `secrets set`'s pairs and env file, in order (a later name wins).
pub fn secret_pairs(pairs: &[String], env_file: Option<&Path>) -> Result<Vec<(String, SecretString)>, String> {
    let mut secrets = Vec::new();
    if let Some(path) = env_file {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (vars, warnings) = super::env::parse_dotenv(&text);
        if let Some(warning) = warnings.first() {
            return Err(format!("{}: {warning}", path.display()));
        }
        secrets.extend(vars.into_iter().map(|(n, v)| (n, SecretString::from(v))));
    }
    for pair in pairs {
        // The error names the argument's position only: it may hold a value.
        let (name, value) = pair.split_once('=').ok_or_else(|| "each secret is NAME=VALUE".to_string())?;
        secrets.push((name.trim().to_string(), SecretString::from(value.to_string())));
    }
    if secrets.is_empty() {
        return Err("no secret given: NAME=VALUE … or --env-file FILE".into());
    }
    Ok(secrets)
}

/// `functions invoke`: the status and body of the function's answer.
pub async fn invoke(base_url: &str, anon_key: &str, name: &str, body: Option<&str>) -> Result<(u16, String), String> {
    let url = format!("{}/functions/v1/{name}", base_url.trim_end_matches('/'));
    let client = reqwest::Client::new();
    let request = match body {
        Some(body) => {
            serde_json::from_str::<serde_json::Value>(body).map_err(|e| format!("--body is not JSON: {e}"))?;
            client.post(&url).header("content-type", "application/json").body(body.to_string())
        }
        None => client.get(&url),
    };
    let answer =
        request.bearer_auth(anon_key).header("apikey", anon_key).send().await.map_err(|e| format!("{url}: {e}"))?;
    let status = answer.status().as_u16();
    Ok((status, answer.text().await.unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use secrecy::ExposeSecret;

    fn functions_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("functions-cli-{}", crate::keys::random_secret()));
        for (path, text) in [
            ("hello/index.ts", "import { cors } from '../_shared/cors.ts';"),
            ("hello/lib/util.ts", "export const x = 1;"),
            ("hello/node_modules/x/index.js", ""),
            ("hello/.env", "SECRET=1"),
            ("_shared/cors.ts", "export const cors = {};"),
            ("other/index.ts", ""),
        ] {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn a_bundle_holds_the_function_and_the_shared_code_only() {
        let dir = functions_dir();
        let deploy = bundle(&dir, None, "hello", &FunctionSettings::default(), false).unwrap();
        let paths: Vec<&str> = deploy.files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["_shared/cors.ts", "hello/index.ts", "hello/lib/util.ts"]);
        assert_eq!(deploy.entrypoint_path, "hello/index.ts");
        assert!(deploy.verify_jwt);
        assert!(!bundle(&dir, None, "hello", &FunctionSettings::default(), true).unwrap().verify_jwt);
        assert!(bundle(&dir, None, "missing", &FunctionSettings::default(), false).is_err());
    }

    #[test]
    fn secret_pairs_come_from_arguments_and_an_env_file() {
        let dir = functions_dir();
        let file = dir.join("secrets.env");
        std::fs::write(&file, "A=from-file\nB='b'\n").unwrap();
        let pairs = secret_pairs(&["C=c=d".into(), "A=again".into()], Some(&file)).unwrap();
        let pairs: Vec<(String, String)> = pairs.into_iter().map(|(n, v)| (n, v.expose_secret().to_string())).collect();
        let expected = [("A", "from-file"), ("B", "b"), ("C", "c=d"), ("A", "again")];
        assert_eq!(pairs, expected.map(|(n, v)| (n.to_string(), v.to_string())).to_vec());
        assert!(secret_pairs(&["NOVALUE".into()], None).is_err());
        assert!(secret_pairs(&[], None).is_err());
    }
}
