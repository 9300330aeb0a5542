//! Settings of `/storage/v1`, under Supabase Storage's environment names.
//!
//! Only describes and parses settings; `backend` turns them into an object store.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use secrecy::SecretString;

/// Where bytes are kept and how large uploads may be.
#[derive(Debug, Clone, Args)]
pub struct StorageConfig {
    /// Where object bytes live: `file` (a local directory) or `s3` (S3 or any S3-compatible store).
    #[arg(long = "storage-backend", env = "STORAGE_BACKEND", default_value = "file")]
    pub backend: String,

    /// Directory of the `file` backend (default: DATA_DIR/storage).
    #[arg(long = "file-storage-backend-path", env = "FILE_STORAGE_BACKEND_PATH")]
    pub file_path: Option<PathBuf>,

    /// S3 bucket holding every storage bucket's objects (`s3` backend).
    #[arg(long = "global-s3-bucket", env = "GLOBAL_S3_BUCKET")]
    pub s3_bucket: Option<String>,

    /// S3 endpoint URL, for S3-compatible stores (MinIO, R2, ...); unset: AWS.
    #[arg(long = "global-s3-endpoint", env = "GLOBAL_S3_ENDPOINT")]
    pub s3_endpoint: Option<String>,

    /// Address buckets by path (`endpoint/bucket/key`) rather than by virtual host.
    #[arg(long = "global-s3-force-path-style", env = "GLOBAL_S3_FORCE_PATH_STYLE", default_value_t = false, action = clap::ArgAction::Set)]
    pub s3_force_path_style: bool,

    /// S3 region.
    #[arg(long = "region", env = "REGION", default_value = "us-east-1")]
    pub region: String,

    /// S3 access key id (unset: the usual AWS credential chain).
    #[arg(long = "aws-access-key-id", env = "AWS_ACCESS_KEY_ID", hide_env_values = true)]
    pub access_key_id: Option<String>,

    /// S3 secret access key.
    #[arg(long = "aws-secret-access-key", env = "AWS_SECRET_ACCESS_KEY", hide_env_values = true, value_parser = secret)]
    pub secret_access_key: Option<SecretString>,

    /// How the `file` backend makes an object's ETag, as Supabase Storage's setting of the same
    /// name: `md5` of the bytes (S3's ETag of a single-part upload; costs a hash of every byte
    /// uploaded) or `mtime` (the file's modification time and size in hex, no hash). The `s3`
    /// backend always sends MD5.
    #[arg(long = "storage-file-etag-algorithm", env = "STORAGE_FILE_ETAG_ALGORITHM", value_enum, default_value_t = EtagAlgorithm::Md5)]
    pub etag_algorithm: EtagAlgorithm,

    /// Largest upload accepted, in bytes, whatever the bucket says (Supabase's default: 50 MB).
    #[arg(long = "file-size-limit", env = "FILE_SIZE_LIMIT", default_value_t = 52_428_800)]
    pub file_size_limit: u64,

    /// Memory image transformations may use at once, in megabytes: each takes its source plus
    /// twice its decoded size (width × height × bytes per pixel) while it runs; the others wait
    /// their turn, and an image that needs more than all of it is refused.
    #[arg(long = "image-transform-memory-mb", env = "IMAGE_TRANSFORM_MEMORY_MB", default_value_t = 512)]
    pub image_transform_memory_mb: u64,
}

/// The two ETag algorithms of Supabase Storage's `file` backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EtagAlgorithm {
    Md5,
    Mtime,
}

fn secret(value: &str) -> Result<SecretString, std::convert::Infallible> {
    Ok(SecretString::from(value))
}
