//! Deploys of eszip bundles, as `supabase functions deploy` sends them by default: the body is
//! an eszip (Deno's module bundle, `format`), usually compressed behind the CLI's `EZBR` prefix,
//! and this module turns it into the source files the store deploys (`layout`): local modules
//! at their paths under the bundle's common root, static files, remote modules vendored with an
//! import map that points their URLs at the copies. The function then runs from those files as
//! any source deploy does.
//!
//! It reads the layouts of Deno's eszip crate (v2 to v2.3) and the entries Supabase's edge
//! runtime adds (`---SUPABASE-ESZIP-VERSION-ESZIP---`, `---EDGE-RUNTIME-METADATA---`, `static:`
//! files, `vfs://` npm contents). It does not carry npm packages over: `npm:` specifiers stay as
//! they are and Deno resolves them from the registry. Bad input is an [`EszipError`], never a
//! panic; nothing here touches the database or the network.

pub mod format;
mod import_map;
mod layout;

pub use format::looks_like_eszip;
pub use layout::Hints;

/// Largest eszip once decompressed, in bytes (source maps and npm contents, which are dropped,
/// count here; the files kept are held to the store's limit).
pub const MAX_ESZIP_BYTES: usize = 64 * 1024 * 1024;

/// Why a bundle could not be deployed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EszipError {
    #[error("{0}")]
    Format(#[from] format::FormatError),
    #[error("the bundle's path {0:?} leaves the function's folder")]
    PathEscapes(String),
    #[error("the bundle mixes absolute file:// modules and relative ones with no entrypoint_path to place them")]
    MixedRoots,
    #[error("the bundle has no local JavaScript or TypeScript module to run")]
    NoEntrypoint,
    #[error("the entrypoint {0} is not in the bundle")]
    EntrypointMissing(String),
}

/// The files of a bundle, ready for `store::Deploy`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    /// Relative paths and contents.
    pub files: Vec<(String, Vec<u8>)>,
    pub entrypoint_path: String,
    /// The import map written for the vendored modules (and the bundle's own map), if any.
    pub import_map_path: Option<String>,
    /// The npm package files the bundle carried (`vfs://`), not kept.
    pub npm_files_dropped: usize,
}

/// Decompress, parse and lay out `body` (an eszip, `EZBR`-compressed or not).
pub fn unpack(body: &[u8], hints: &Hints<'_>) -> Result<Unpacked, EszipError> {
    let eszip = format::decompress(body, MAX_ESZIP_BYTES)?;
    let archive = format::parse(&eszip)?;
    if archive.unverified {
        tracing::info!("functions: an eszip with a checksum this server does not compute (xxHash3) was not verified");
    }
    layout::lay_out(archive, hints)
}
