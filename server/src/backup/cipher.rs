//! Encryption of the repository's stored files and secrets (`REPO/files`) when
//! `BACKUP_CIPHER_PASS` is set, as pgBackRest encrypts its own part of the repository.
//!
//! The key is derived from the passphrase with PBKDF2-HMAC-SHA256 and a random salt kept in
//! `files/cipher.json`, beside a sealed check value that tells a wrong passphrase from damaged
//! files before anything is read. A file is sealed as a stream of AES-256-GCM chunks (ring's
//! AEAD): a magic header, a random 7-byte nonce prefix, then chunks of `CHUNK` bytes each with
//! its tag; a chunk's nonce is the prefix, its 32-bit counter and a last-chunk flag, so a
//! truncated, reordered or extended file does not open. The associated data is the file's place
//! in the repository (an object's version, a secret's name): a sealed file moved elsewhere does
//! not open either. Files copied before a passphrase was set stay readable in clear.

use std::io::{Read, Write};
use std::num::NonZeroU32;
use std::path::Path;

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM, NONCE_LEN};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

/// The first bytes of a sealed file.
pub const MAGIC: &[u8; 8] = b"SBRSENC1";
/// Plaintext bytes per chunk.
const CHUNK: usize = 64 * 1024;
const TAG: usize = 16;
const PREFIX: usize = 7;
/// PBKDF2 rounds: about a tenth of a second, once per process.
const ROUNDS: u32 = 210_000;
/// The file beside the stored files that holds the salt and the check value.
pub const KEY_FILE: &str = "cipher.json";
const CHECK: &[u8] = b"stored files of this repository";

/// Why a sealed file or the passphrase does not open.
#[derive(Debug, thiserror::Error)]
pub enum CipherError {
    #[error("the repository's stored files are encrypted: set BACKUP_CIPHER_PASS to its passphrase")]
    NoKey,
    #[error("BACKUP_CIPHER_PASS does not open the repository's stored files (another passphrase sealed them)")]
    WrongKey,
    #[error("a sealed file does not open: it was altered, truncated or moved")]
    Damaged,
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The salt and check value of `files/cipher.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeyFile {
    pub salt: String,
    pub check: String,
}

/// The key of the repository's stored files.
pub struct Cipher {
    key: LessSafeKey,
}

impl std::fmt::Debug for Cipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cipher(..)")
    }
}

impl Cipher {
    /// The key `pass` gives with `salt`.
    pub fn derive(pass: &SecretString, salt: &[u8]) -> Cipher {
        let mut bytes = [0u8; 32];
        let rounds = NonZeroU32::new(ROUNDS).unwrap_or(NonZeroU32::MIN);
        ring::pbkdf2::derive(
            ring::pbkdf2::PBKDF2_HMAC_SHA256,
            rounds,
            salt,
            pass.expose_secret().as_bytes(),
            &mut bytes,
        );
        // 32 bytes: AES-256's key length, so this cannot fail.
        let key = UnboundKey::new(&AES_256_GCM, &bytes).unwrap_or_else(|_| unreachable!("a 32-byte key"));
        Cipher { key: LessSafeKey::new(key) }
    }

    /// A new salt and the key file that goes with `pass`.
    pub fn create(pass: &SecretString) -> (Cipher, KeyFile) {
        let mut salt = [0u8; 16];
        rand::RngCore::fill_bytes(&mut rand::thread_rng(), &mut salt);
        let cipher = Cipher::derive(pass, &salt);
        let mut check = Vec::new();
        cipher.seal(KEY_FILE, &mut &CHECK[..], &mut check).unwrap_or_else(|_| unreachable!("writes to memory"));
        (cipher, KeyFile { salt: hex::encode(salt), check: hex::encode(check) })
    }

    /// The key of an existing key file, refused when `pass` is not the one that wrote it.
    pub fn open_key_file(pass: &SecretString, file: &KeyFile) -> Result<Cipher, CipherError> {
        let salt = hex::decode(&file.salt).map_err(|_| CipherError::Damaged)?;
        let check = hex::decode(&file.check).map_err(|_| CipherError::Damaged)?;
        let cipher = Cipher::derive(pass, &salt);
        let mut plain = Vec::new();
        match cipher.open(KEY_FILE, &mut &check[..], &mut plain) {
            Ok(_) if plain == CHECK => Ok(cipher),
            _ => Err(CipherError::WrongKey),
        }
    }

    fn nonce(prefix: &[u8; PREFIX], counter: u32, last: bool) -> Nonce {
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..PREFIX].copy_from_slice(prefix);
        nonce[PREFIX..PREFIX + 4].copy_from_slice(&counter.to_be_bytes());
        nonce[NONCE_LEN - 1] = u8::from(last);
        Nonce::assume_unique_for_key(nonce)
    }

    /// Seal everything `input` gives into `output`, bound to `place`; the plaintext's length.
    pub fn seal(&self, place: &str, input: &mut dyn Read, output: &mut dyn Write) -> Result<u64, CipherError> {
        let mut prefix = [0u8; PREFIX];
        rand::RngCore::fill_bytes(&mut rand::thread_rng(), &mut prefix);
        output.write_all(MAGIC)?;
        output.write_all(&prefix)?;
        let mut current = read_full(input, CHUNK)?;
        let mut counter = 0u32;
        let mut total = 0u64;
        loop {
            let next = if current.len() == CHUNK { read_full(input, CHUNK)? } else { Vec::new() };
            let last = next.is_empty();
            total += current.len() as u64;
            let mut chunk = current;
            self.key
                .seal_in_place_append_tag(Self::nonce(&prefix, counter, last), Aad::from(place.as_bytes()), &mut chunk)
                .map_err(|_| CipherError::Damaged)?;
            output.write_all(&chunk)?;
            if last {
                return Ok(total);
            }
            current = next;
            counter = counter.checked_add(1).ok_or(CipherError::Damaged)?;
        }
    }

    /// Open what `seal` wrote for `place` (`input` past nothing: the magic included) into
    /// `output`; the plaintext's length.
    pub fn open(&self, place: &str, input: &mut dyn Read, output: &mut dyn Write) -> Result<u64, CipherError> {
        let head = read_full(input, MAGIC.len() + PREFIX)?;
        if head.len() != MAGIC.len() + PREFIX || &head[..MAGIC.len()] != MAGIC {
            return Err(CipherError::Damaged);
        }
        let mut prefix = [0u8; PREFIX];
        prefix.copy_from_slice(&head[MAGIC.len()..]);
        let mut current = read_full(input, CHUNK + TAG)?;
        let mut counter = 0u32;
        let mut total = 0u64;
        loop {
            let next = if current.len() == CHUNK + TAG { read_full(input, CHUNK + TAG)? } else { Vec::new() };
            let last = next.is_empty();
            let plain = self
                .key
                .open_in_place(Self::nonce(&prefix, counter, last), Aad::from(place.as_bytes()), &mut current)
                .map_err(|_| CipherError::Damaged)?;
            output.write_all(plain)?;
            total += plain.len() as u64;
            if last {
                return Ok(total);
            }
            current = next;
            counter = counter.checked_add(1).ok_or(CipherError::Damaged)?;
        }
    }
}

/// The length in clear of a file `seal` wrote as `sealed` bytes (the header, then each chunk
/// with its tag); `None` for a length no sealed file has.
pub fn plain_len(sealed: u64) -> Option<u64> {
    let body = sealed.checked_sub((MAGIC.len() + PREFIX) as u64)?;
    let chunks = body.div_ceil((CHUNK + TAG) as u64).max(1);
    body.checked_sub(chunks * TAG as u64)
}

/// The length `seal` makes of `plain` bytes in clear.
pub fn sealed_len(plain: u64) -> u64 {
    let chunks = plain.div_ceil(CHUNK as u64).max(1);
    (MAGIC.len() + PREFIX) as u64 + plain + chunks * TAG as u64
}

/// The key of a repository whose key file is `existing` (if it has one) for the passphrase
/// `pass`, and the key file to write when the passphrase is new. Without a passphrase, a
/// repository that has a key file is refused: its files cannot be read, and new ones must not
/// go in clear.
pub fn key_for(
    existing: Option<KeyFile>,
    pass: Option<&SecretString>,
) -> Result<(Option<Cipher>, Option<KeyFile>), CipherError> {
    match (existing, pass) {
        (Some(file), Some(pass)) => Ok((Some(Cipher::open_key_file(pass, &file)?), None)),
        (Some(_), None) => Err(CipherError::NoKey),
        (None, Some(pass)) => {
            let (cipher, file) = Cipher::create(pass);
            Ok((Some(cipher), Some(file)))
        }
        (None, None) => Ok((None, None)),
    }
}

/// `text` sealed for `place` with `cipher`, or as it is without one.
pub fn seal_bytes(cipher: Option<&Cipher>, place: &str, text: Vec<u8>) -> Result<Vec<u8>, CipherError> {
    let Some(cipher) = cipher else { return Ok(text) };
    let mut sealed = Vec::with_capacity(sealed_len(text.len() as u64) as usize);
    cipher.seal(place, &mut &text[..], &mut sealed)?;
    Ok(sealed)
}

/// What `seal_bytes` wrote, in clear: opened with `cipher` when sealed, as it is when not.
pub fn open_bytes(cipher: Option<&Cipher>, place: &str, bytes: &[u8]) -> Result<Vec<u8>, CipherError> {
    if !bytes.starts_with(MAGIC) {
        return Ok(bytes.to_vec());
    }
    let cipher = cipher.ok_or(CipherError::NoKey)?;
    let mut plain = Vec::with_capacity(bytes.len());
    cipher.open(place, &mut &bytes[..], &mut plain)?;
    Ok(plain)
}

/// Whether the file at `path` is sealed (starts with `MAGIC`).
pub fn is_sealed(path: &Path) -> std::io::Result<bool> {
    let mut file = std::fs::File::open(path)?;
    let head = read_full(&mut file, MAGIC.len())?;
    Ok(head == MAGIC)
}

/// Copy a stored file's bytes in clear to `output`: opened with `cipher` when sealed, as they
/// are when not; a sealed file without a key is `NoKey`.
pub fn read_plain(
    cipher: Option<&Cipher>,
    place: &str,
    path: &Path,
    output: &mut dyn Write,
) -> Result<u64, CipherError> {
    let sealed = is_sealed(path)?;
    let mut file = std::io::BufReader::new(std::fs::File::open(path)?);
    match (sealed, cipher) {
        (true, Some(cipher)) => cipher.open(place, &mut file, output),
        (true, None) => Err(CipherError::NoKey),
        (false, _) => Ok(std::io::copy(&mut file, output)?),
    }
}

/// Up to `n` bytes: fewer only at the end of `input`.
fn read_full(input: &mut dyn Read, n: usize) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    let mut filled = 0;
    while filled < n {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(k) => filled += k,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    buf.truncate(filled);
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(text: &str) -> SecretString {
        SecretString::from(text.to_string())
    }

    fn round_trip(cipher: &Cipher, plain: &[u8]) -> Vec<u8> {
        let mut sealed = Vec::new();
        assert_eq!(cipher.seal("objects/ab/abc", &mut &plain[..], &mut sealed).unwrap(), plain.len() as u64);
        let mut opened = Vec::new();
        cipher.open("objects/ab/abc", &mut &sealed[..], &mut opened).unwrap();
        assert_eq!(opened, plain);
        sealed
    }

    #[test]
    fn sealed_files_open_to_the_same_bytes_at_every_length() {
        let (cipher, _) = Cipher::create(&pass("horse"));
        for len in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK] {
            let plain: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let sealed = round_trip(&cipher, &plain);
            assert_eq!(&sealed[..8], MAGIC);
            if len >= 16 {
                assert!(!sealed.windows(16).any(|w| w == &plain[..16]), "no plaintext shows");
            }
        }
    }

    #[test]
    fn the_length_in_clear_follows_from_the_sealed_length() {
        let (cipher, _) = Cipher::create(&pass("horse"));
        for len in [0, 1, 15, 16, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 7] {
            let sealed = round_trip(&cipher, &vec![1u8; len]).len() as u64;
            assert_eq!(sealed, sealed_len(len as u64), "sealed length of {len}");
            assert_eq!(plain_len(sealed), Some(len as u64), "plain length of {len}");
        }
        assert_eq!(plain_len(3), None);
    }

    #[test]
    fn a_wrong_key_a_moved_truncated_or_altered_file_does_not_open() {
        let (cipher, file) = Cipher::create(&pass("horse"));
        let plain = vec![7u8; 2 * CHUNK + 10];
        let sealed = round_trip(&cipher, &plain);
        let mut out = Vec::new();
        assert!(matches!(Cipher::open_key_file(&pass("h0rse"), &file), Err(CipherError::WrongKey)));
        let again = Cipher::open_key_file(&pass("horse"), &file).expect("the right passphrase opens");
        assert!(again.open("objects/ab/abc", &mut &sealed[..], &mut out).is_ok());
        assert!(matches!(cipher.open("objects/cd/cde", &mut &sealed[..], &mut Vec::new()), Err(CipherError::Damaged)));
        let cut = &sealed[..MAGIC.len() + PREFIX + CHUNK + TAG];
        assert!(cipher.open("objects/ab/abc", &mut &cut[..], &mut Vec::new()).is_err(), "a truncated file");
        let mut altered = sealed.clone();
        altered[40] ^= 1;
        assert!(cipher.open("objects/ab/abc", &mut &altered[..], &mut Vec::new()).is_err(), "an altered byte");
    }
}
