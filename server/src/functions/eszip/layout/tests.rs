use serde_json::Value;

use super::*;
use crate::functions::eszip::format::Version;

fn js(specifier: &str, source: &str) -> Entry {
    Entry::Module { specifier: specifier.into(), kind: ModuleKind::JavaScript, source: source.as_bytes().to_vec() }
}

fn data(specifier: &str, kind: ModuleKind, source: &str) -> Entry {
    Entry::Module { specifier: specifier.into(), kind, source: source.as_bytes().to_vec() }
}

fn archive(entries: Vec<Entry>) -> Archive {
    Archive { version: Version::V2_3, entries, unverified: false }
}

fn file<'a>(unpacked: &'a Unpacked, path: &str) -> Option<&'a str> {
    unpacked.files.iter().find(|(p, _)| p == path).and_then(|(_, c)| std::str::from_utf8(c).ok())
}

fn map_of(unpacked: &Unpacked) -> Value {
    let path = unpacked.import_map_path.as_deref().unwrap_or("none");
    file(unpacked, path).and_then(|text| serde_json::from_str(text).ok()).unwrap_or(Value::Null)
}

#[test]
fn file_modules_are_written_under_their_common_folder_and_remote_ones_vendored() {
    let unpacked = lay_out(
        archive(vec![
            js("file:///home/me/app/supabase/functions/hello/index.ts", "import '../_shared/cors.ts'"),
            js("file:///home/me/app/supabase/functions/_shared/cors.ts", "export const cors = {}"),
            js("https://deno.land/x/mod@1.0/mod.ts", "export const m = 1"),
            Entry::Redirect {
                specifier: "https://deno.land/x/mod/mod.ts".into(),
                target: "https://deno.land/x/mod@1.0/mod.ts".into(),
            },
            Entry::Npm { specifier: "left-pad@1.3.0".into() },
            js("npm:/left-pad@1.3.0/index.js", "module.exports = 1"),
        ]),
        &Hints::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let paths: Vec<&str> = unpacked.files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["hello/index.ts", "_shared/cors.ts", "vendor/deno.land/x/mod@1.0/mod.ts", "import_map.json"]);
    assert_eq!(unpacked.entrypoint_path, "hello/index.ts", "the first local module");
    assert_eq!(file(&unpacked, "hello/index.ts"), Some("import '../_shared/cors.ts'"));
    assert_eq!(unpacked.import_map_path.as_deref(), Some("import_map.json"));
    assert_eq!(
        map_of(&unpacked),
        serde_json::json!({ "imports": {
            "https://deno.land/x/mod@1.0/mod.ts": "./vendor/deno.land/x/mod@1.0/mod.ts",
            "https://deno.land/x/mod/mod.ts": "./vendor/deno.land/x/mod@1.0/mod.ts",
        }})
    );
}

#[test]
fn a_bundle_without_remote_modules_or_import_map_has_no_import_map() {
    let unpacked =
        lay_out(archive(vec![js("file:///f/index.ts", "1")]), &Hints::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(unpacked.files, vec![("index.ts".to_string(), b"1".to_vec())]);
    assert_eq!(unpacked.import_map_path, None);
}

#[test]
fn the_entrypoint_hint_picks_the_module_and_one_not_in_the_bundle_is_an_error() {
    let entries = || {
        archive(vec![js("file:///app/functions/_shared/a.ts", "a"), js("file:///app/functions/hello/index.ts", "b")])
    };
    for hint in [
        "file:///app/functions/hello/index.ts",
        "/app/functions/hello/index.ts",
        "hello/index.ts",
        "./supabase/functions/hello/index.ts",
    ] {
        let hints = Hints { entrypoint: Some(hint), import_map: None };
        assert_eq!(lay_out(entries(), &hints).map(|u| u.entrypoint_path), Ok("hello/index.ts".into()), "{hint}");
    }
    let hints = Hints { entrypoint: Some("file:///app/functions/bye/index.ts"), import_map: None };
    assert_eq!(
        lay_out(entries(), &hints).map(|u| u.entrypoint_path),
        Err(EszipError::EntrypointMissing("file:///app/functions/bye/index.ts".into()))
    );
    assert_eq!(lay_out(archive(vec![]), &Hints::default()).map(|u| u.files.len()), Err(EszipError::NoEntrypoint));
    let only_data = archive(vec![data("file:///a/x.json", ModuleKind::Json, "{}")]);
    assert_eq!(lay_out(only_data, &Hints::default()).map(|u| u.files.len()), Err(EszipError::NoEntrypoint));
}

#[test]
fn the_edge_runtime_layout_is_read_with_its_static_files_and_import_map() {
    // Keys relative to the bundle's root, the version marker, a static file, npm VFS contents and
    // the metadata (rkyv bytes around the workspace resolver's JSON).
    let resolver = serde_json::json!({
        "import_map": {
            "specifier": "supabase/functions/hello/deno.json",
            "json": r#"{"imports":{"cors":"../_shared/cors.ts","pad":"npm:left-pad@1.3.0","std/":"https://deno.land/std@0.1/"}}"#,
        },
        "jsr_pkgs": [], "package_jsons": {}, "pkg_json_resolution": "enabled",
    });
    let mut metadata = vec![1u8, 0, 0, 0, 7];
    metadata.extend(serde_json::to_vec(&resolver).unwrap_or_default());
    metadata.extend([0u8, 0, 3, 9]);
    let unpacked = lay_out(
        archive(vec![
            js("supabase/functions/hello/index.ts", "import 'cors'"),
            js("supabase/functions/_shared/cors.ts", "export {}"),
            js("https://deno.land/std@0.1/http/server.ts", "export {}"),
            data("---SUPABASE-ESZIP-VERSION-ESZIP---", ModuleKind::OpaqueData, "2.0"),
            data("static:supabase/functions/hello/page.html", ModuleKind::OpaqueData, "<p>hi</p>"),
            data("vfs://0", ModuleKind::OpaqueData, "npm package file"),
            Entry::Module { specifier: METADATA_KEY.into(), kind: ModuleKind::OpaqueData, source: metadata },
        ]),
        &Hints { entrypoint: Some("file:///work/supabase/functions/hello/index.ts"), import_map: None },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(unpacked.entrypoint_path, "hello/index.ts");
    assert_eq!(file(&unpacked, "hello/page.html"), Some("<p>hi</p>"));
    assert_eq!(unpacked.npm_files_dropped, 1);
    assert!(file(&unpacked, "vfs://0").is_none() && file(&unpacked, "---SUPABASE-ESZIP-VERSION-ESZIP---").is_none());
    assert_eq!(
        map_of(&unpacked),
        serde_json::json!({ "imports": {
            "cors": "./_shared/cors.ts",
            "pad": "npm:left-pad@1.3.0",
            "std/": "./vendor/deno.land/std@0.1/",
            "https://deno.land/std@0.1/http/server.ts": "./vendor/deno.land/std@0.1/http/server.ts",
        }})
    );
}

#[test]
fn the_import_map_the_eszip_crate_puts_first_is_merged_with_its_addresses_moved() {
    let unpacked = lay_out(
        archive(vec![
            data("file:///p/functions/import_map.json", ModuleKind::Json, r#"{"imports":{"shared/":"./_shared/","abs":"file:///p/functions/_shared/a.ts"},"scopes":{"./hello/":{"x":"../outside/x.ts"}}}"#),
            js("file:///p/functions/hello/index.ts", "import 'shared/a.ts'"),
            js("file:///p/functions/_shared/a.ts", "export {}"),
        ]),
        &Hints::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(unpacked.entrypoint_path, "hello/index.ts", "the import map is not the entrypoint");
    assert_eq!(unpacked.import_map_path.as_deref(), Some("import_map.json"), "written over the bundle's own");
    assert_eq!(unpacked.files.iter().filter(|(p, _)| p == "import_map.json").count(), 1);
    assert_eq!(
        map_of(&unpacked),
        serde_json::json!({
            "imports": { "shared/": "./_shared/", "abs": "./_shared/a.ts" },
            "scopes": { "./hello/": { "x": "../outside/x.ts" } },
        })
    );
}

#[test]
fn a_path_that_leaves_the_folder_is_refused() {
    for key in ["../etc/passwd", "a/%2E%2E/b.ts", "a/./b.ts", "a\\..\\b.ts", "static:../x"] {
        let result = lay_out(archive(vec![js("file:///f/index.ts", "1"), js(key, "x")]), &Hints::default());
        assert!(matches!(result, Err(EszipError::PathEscapes(_)) | Err(EszipError::MixedRoots)), "{key}: {result:?}");
    }
    let relative_only = lay_out(archive(vec![js("fn/index.ts", "1"), js("fn/../../x.ts", "x")]), &Hints::default());
    assert!(matches!(relative_only, Err(EszipError::PathEscapes(_))), "{relative_only:?}");
}

#[test]
fn absolute_and_relative_keys_need_the_entrypoint_to_be_placed_together() {
    let entries = || {
        archive(vec![
            js("functions/hello/index.ts", "1"),
            data("static:file:///srv/f/functions/x.txt", ModuleKind::OpaqueData, "x"),
        ])
    };
    assert_eq!(lay_out(entries(), &Hints::default()).map(|u| u.files.len()), Err(EszipError::MixedRoots));
    let hints = Hints { entrypoint: Some("file:///srv/f/functions/hello/index.ts"), import_map: None };
    let unpacked = lay_out(entries(), &hints).unwrap_or_else(|e| panic!("{e}"));
    let paths: Vec<&str> = unpacked.files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["hello/index.ts", "x.txt"]);
}

#[test]
fn vendored_names_keep_their_extension_and_never_collide() {
    let mut used = HashSet::new();
    let url = |s: &str| Url::parse(s).unwrap_or_else(|e| panic!("{e}"));
    let js = ModuleKind::JavaScript;
    assert_eq!(vendor_path(&url("https://esm.sh/preact@10"), js, &mut used), "vendor/esm.sh/preact@10.js");
    assert_eq!(vendor_path(&url("http://localhost:8000/a/"), js, &mut used), "vendor/localhost_8000/a/index.js");
    assert_eq!(vendor_path(&url("https://x.test/mod.ts"), js, &mut used), "vendor/x.test/mod.ts");
    assert_eq!(vendor_path(&url("https://x.test/data"), ModuleKind::Json, &mut used), "vendor/x.test/data.json");
    let with_query = vendor_path(&url("https://esm.sh/preact@10?target=deno"), js, &mut used);
    assert!(with_query.starts_with("vendor/esm.sh/preact@10_") && with_query.ends_with(".js"), "{with_query}");
    let again = vendor_path(&url("https://x.test/mod.ts#frag"), js, &mut used);
    assert!(
        again != "vendor/x.test/mod.ts" && again.ends_with("_mod.ts") && again.starts_with("vendor/x.test/"),
        "{again}"
    );
}

#[test]
fn a_bundle_built_by_denos_eszip_crate_is_laid_out_with_its_jsr_and_remote_modules_vendored() {
    // Built by server/tests/fixtures/eszip/build.mjs with @deno/eszip (ESZIP2.3, no checksum).
    let path = format!("{}/tests/fixtures/eszip/hello.ezbr", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let hints = Hints { entrypoint: Some("file:///home/dev/app/supabase/functions/hello/index.ts"), import_map: None };
    let unpacked = crate::functions::eszip::unpack(&bytes, &hints).unwrap_or_else(|e| panic!("{e}"));
    let mut paths: Vec<&str> = unpacked.files.iter().map(|(p, _)| p.as_str()).collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "_shared/cors.ts",
            "hello/data.json",
            "hello/index.ts",
            "import_map.json",
            "vendor/deno.land/x/greet@1.0.0/mod.ts",
            "vendor/deno.land/x/greet@1.0.0/util.ts",
            "vendor/jsr.io/@fixture/math/1.0.0/mod.ts",
        ]
    );
    assert_eq!(unpacked.entrypoint_path, "hello/index.ts");
    let index = file(&unpacked, "hello/index.ts").unwrap_or_default();
    assert!(
        index.contains(r#"from "../_shared/cors.ts""#) && index.contains(r#"import("npm:left-pad@1.3.0")"#),
        "{index}"
    );
    assert!(!index.contains("interface Answer"), "stored transpiled");
    let map = map_of(&unpacked);
    assert_eq!(map["imports"]["jsr:@fixture/math@^1"], "./vendor/jsr.io/@fixture/math/1.0.0/mod.ts");
    assert_eq!(map["imports"]["https://deno.land/x/greet/mod.ts"], "./vendor/deno.land/x/greet@1.0.0/mod.ts");
    assert_eq!(map["imports"].as_object().map(|m| m.len()), Some(5), "{map}");
}

#[test]
fn odd_specifiers_are_an_error_or_ignored_never_a_panic() {
    let odd = [
        "",
        ":",
        "/",
        "file://",
        "file:///",
        "file:///%ff%fe",
        "static:",
        "static:file:///",
        "https://",
        "https:///x",
        "http://[::1]:8/a?b#c",
        "jsr:",
        "npm:",
        "vfs://",
        "------",
        "a:b/c",
        "C:/x.ts",
        "data:text/javascript,1",
    ];
    for specifier in odd {
        let entries = vec![
            js("file:///f/index.ts", "1"),
            js(specifier, "x"),
            Entry::Redirect { specifier: specifier.into(), target: specifier.into() },
        ];
        let _ = lay_out(archive(entries), &Hints { entrypoint: Some(specifier), import_map: Some(specifier) });
        let _ = lay_out(archive(vec![js(specifier, "x")]), &Hints::default());
    }
}
