//! A part of an open file that a body hands to the HTTP/1 dispatcher to send with `sendfile(2)`
//! (patched in for supabase-rs; see [`MessageBody::take_file_region`]).

use std::{fs::File, sync::Arc};

#[cfg(doc)]
use super::MessageBody;

/// `len` bytes of `file` from `offset`, to be written to the connection without passing through
/// user space.
///
/// The file is shared (`Arc`) and read at explicit offsets, so its position is never moved and
/// the body that handed the region out may still hold it.
#[derive(Debug, Clone)]
pub struct FileRegion {
    file: Arc<File>,
    offset: u64,
    len: u64,
}

impl FileRegion {
    /// The region of `file` that starts at `offset` and is `len` bytes long.
    pub fn new(file: Arc<File>, offset: u64, len: u64) -> Self {
        Self { file, offset, len }
    }

    /// The open file the bytes come from.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Where the bytes not yet written start in the file.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// How many bytes are left to write.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether every byte has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Counts `n` bytes as written.
    pub fn advance(&mut self, n: u64) {
        let n = n.min(self.len);
        self.offset += n;
        self.len -= n;
    }

    /// Cuts the region to at most `len` bytes.
    pub fn truncate(&mut self, len: u64) {
        self.len = self.len.min(len);
    }
}
