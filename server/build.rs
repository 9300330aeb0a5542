//! Rebuild when a migration is added, removed or changed (they are embedded in the binary).
fn main() {
    println!("cargo:rerun-if-changed=../sql/migrations");
}
