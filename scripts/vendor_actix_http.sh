#!/bin/sh
# The vendored actix-http (server/vendor/README.md) is the crate published on crates.io plus the
# patch series in server/vendor/patches/actix-http, applied in name order. This script rebuilds
# the copy from those two, checks that the committed copy is exactly that, or pins a new release.
#
#   scripts/vendor_actix_http.sh build          write server/vendor/actix-http again
#   scripts/vendor_actix_http.sh check          fail unless server/vendor/actix-http is byte for byte
#                                               the crate plus the patches (no compilation)
#   scripts/vendor_actix_http.sh pin <version>  record <version> and its crates.io checksum in
#                                               server/vendor/patches/actix-http/crate
#
# The .crate comes from Cargo's own download cache; when it is missing, `cargo fetch` brings it
# from crates.io (the only network used). Its sha256 is checked against the pinned one before
# anything is extracted. Published files that are not part of the crate's sources
# (.cargo_vcs_info.json, .cargo-ok, Cargo.lock, Cargo.toml.orig) are left out of the copy.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
patches="$root/server/vendor/patches/actix-http"
target="$root/server/vendor/actix-http"
pin="$patches/crate"
cargo_home=${CARGO_HOME:-$HOME/.cargo}

pinned() { sed -n "s/^$1=//p" "$pin"; }

# Prints the path of actix-http-<version>.crate in Cargo's download cache, fetching it if absent.
crate_file() {
    version=$1
    found=$(ls "$cargo_home"/registry/cache/index.crates.io-*/"actix-http-$version.crate" 2>/dev/null | head -n 1 || true)
    if [ -z "$found" ]; then
        project=$(mktemp -d)
        mkdir "$project/src" && : >"$project/src/lib.rs"
        printf '[package]\nname = "fetch-actix-http"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[dependencies]\nactix-http = "=%s"\n\n[workspace]\n' \
            "$version" >"$project/Cargo.toml"
        (cd "$project" && cargo fetch --quiet) >&2 || { rm -rf "$project"; exit 1; }
        rm -rf "$project"
        found=$(ls "$cargo_home"/registry/cache/index.crates.io-*/"actix-http-$version.crate" | head -n 1)
    fi
    printf '%s\n' "$found"
}

# Writes the published crate plus the patches into the empty directory $1.
assemble() {
    out=$1
    version=$(pinned version)
    expected=$(pinned sha256)
    file=$(crate_file "$version")
    actual=$(sha256sum "$file" | cut -d' ' -f1)
    if [ "$actual" != "$expected" ]; then
        echo "$file: sha256 $actual, not the pinned $expected" >&2
        exit 1
    fi
    tar -xzf "$file" -C "$out" --strip-components=1
    rm -f "$out/.cargo_vcs_info.json" "$out/.cargo-ok" "$out/Cargo.lock" "$out/Cargo.toml.orig"
    for p in "$patches"/*.patch; do
        patch -d "$out" -p1 --quiet --forward --fuzz=0 --no-backup-if-mismatch <"$p" ||
            { echo "$(basename "$p") does not apply to actix-http $version (rejects: $out)" >&2; exit 1; }
    done
}

case "${1:-}" in
build)
    work=$(mktemp -d)
    assemble "$work"
    rm -rf "$target"
    mv "$work" "$target"
    chmod 755 "$target"
    echo "server/vendor/actix-http: actix-http $(pinned version) plus $(ls "$patches"/*.patch | wc -l) patches"
    ;;
check)
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    assemble "$work"
    if ! diff -r "$work" "$target"; then
        echo "server/vendor/actix-http is not actix-http $(pinned version) plus server/vendor/patches/actix-http:" >&2
        echo "make the change a patch (server/vendor/README.md), or run make vendor-actix-http" >&2
        exit 1
    fi
    echo "server/vendor/actix-http is actix-http $(pinned version) plus $(ls "$patches"/*.patch | wc -l) patches"
    ;;
pin)
    version=${2:?usage: $0 pin <version>}
    sum=$(sha256sum "$(crate_file "$version")" | cut -d' ' -f1)
    sed -i -e "s/^version=.*/version=$version/" -e "s/^sha256=.*/sha256=$sum/" "$pin"
    echo "pinned actix-http $version, sha256 $sum (check it against crates.io's index: Cargo.lock's checksum)"
    ;;
*)
    sed -n '6,9p' "$0" >&2
    exit 2
    ;;
esac
