//! `server functions new <name>`: a function's folder with a first `index.ts`, as
//! `supabase functions new` lays it out. Writes files only; refuses a name the router could not
//! serve and a folder that exists.

use std::path::{Path, PathBuf};

use super::registry::valid_name;

/// The first `index.ts` of a function (`{{name}}` is the function's name).
const TEMPLATE: &str = r#"// The function `{{name}}`, served at /functions/v1/{{name}} (docs/functions.md).
//
// Try it with the server running (`make run`):
//   curl -i http://127.0.0.1:54321/functions/v1/{{name}} \
//     -H "Authorization: Bearer $ANON_KEY" -H "Content-Type: application/json" -d '{"name":"Functions"}'

Deno.serve(async (req) => {
  const { name } = await req.json().catch(() => ({ name: "world" }));
  return Response.json({ message: `Hello ${name}!` });
});
"#;

/// Create `<project>/functions/<name>/index.ts`; the path created.
pub fn create(project: &Path, name: &str) -> Result<PathBuf, String> {
    if !valid_name(name) {
        return Err(format!("{name:?} is not a function name: letters, digits, - and _ only, not starting with _"));
    }
    let folder = project.join("functions").join(name);
    if folder.exists() {
        return Err(format!("{} already exists", folder.display()));
    }
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let path = folder.join("index.ts");
    std::fs::write(&path, TEMPLATE.replace("{{name}}", name)).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> PathBuf {
        std::env::temp_dir().join(format!("functions-scaffold-{}", crate::keys::random_secret()))
    }

    #[test]
    fn a_new_function_gets_its_folder_and_an_index_that_serves() {
        let dir = project();
        let path = create(&dir, "send-mail").unwrap();
        assert_eq!(path, dir.join("functions/send-mail/index.ts"));
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains("Deno.serve(") && text.contains("/functions/v1/send-mail"));
    }

    #[test]
    fn an_existing_function_and_a_bad_name_are_refused() {
        let dir = project();
        create(&dir, "twice").unwrap();
        assert!(create(&dir, "twice").unwrap_err().ends_with("functions/twice already exists"));
        for name in ["_shared", "a/b", "..", ""] {
            assert!(create(&dir, name).is_err(), "{name}");
        }
    }
}
