//! Rebuild when a migration is added, removed or changed (they are embedded in the binary), and
//! give the studio's embedding (`src/studio/assets.rs`) its folder: `studio/dist` when the app is
//! built, else a placeholder page (written here) that says how to build it, so a fresh clone's
//! `cargo build` works before `make studio` has run.
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=../sql/migrations");
    println!("cargo:rerun-if-changed=../studio/dist");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dist = manifest.join("../studio/dist");
    let dir = if dist.join("index.html").is_file() {
        dist.canonicalize().unwrap_or(dist)
    } else {
        let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("studio-placeholder");
        let _ = std::fs::create_dir_all(&out);
        let page = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Studio</title></head>\
                    <body><main><h1>Studio is not built</h1><p>This server was compiled before the dashboard \
                    was built: run <code>make studio</code>, then build the server again.</p></main></body></html>\n";
        let _ = std::fs::write(out.join("index.html"), page);
        out
    };
    // The page names the build's hashed assets: a new build changes it, and so this stamp.
    let stamp = std::fs::read(dir.join("index.html"))
        .map(|b| b.iter().fold(0u64, |h, &x| h.wrapping_mul(31).wrapping_add(x as u64)));
    println!("cargo:rustc-env=STUDIO_DIST={}", dir.display());
    println!("cargo:rustc-env=STUDIO_DIST_STAMP={}", stamp.unwrap_or(0));
}
