//! The key that seals pagination cursors (an HMAC key): the store's, shared by every process
//! that hands cursors to the same clients, or one per process.

use std::fmt;
use std::sync::{Arc, OnceLock};

use hmac::{KeyInit, Mac};

use crate::error::{Error, Result};

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The environment variable the process's default [`CursorKey`] is read from, when set.
pub const CURSOR_KEY_ENV: &str = "DYNO_CURSOR_KEY";

/// The secret a [`Cursor`](crate::ops::Cursor) is sealed with (HMAC-SHA-256), so that a client holding a cursor
/// cannot edit it into one the server accepts: not the position, not the count of results
/// already returned (which is what keeps a query's `limit` across pages).
///
/// Which key a page uses: the store's ([`crate::store::Store::cursor_key`]; MemoryStore and
/// DynamoStore take one with `with_cursor_key`), else the process's default: the value of the
/// `DYNO_CURSOR_KEY` environment variable when it is set, else random bytes drawn once per
/// process. So by default a cursor is valid only in the process that minted it (a restart
/// invalidates open cursors, with [`Error::InvalidCursor`]). **Several instances** behind one
/// endpoint, whose clients may bring a cursor minted by one to another, share a key: set
/// `DYNO_CURSOR_KEY` (at least 16 bytes, from your secret store) on every instance, or pass the
/// same key to each store. Rotating it invalidates the cursors in flight, nothing more.
///
/// ```
/// use dyno_core::ops::CursorKey;
///
/// let shared = CursorKey::new(b"a secret of at least sixteen bytes").unwrap();
/// assert!(CursorKey::new(b"short").is_err());
/// # let _ = shared;
/// ```
#[derive(Clone)]
pub struct CursorKey(Arc<[u8]>);

impl CursorKey {
    /// The fewest secret bytes a key takes.
    pub const MIN_BYTES: usize = 16;

    /// A key from secret bytes (at least [`CursorKey::MIN_BYTES`]; a configuration error
    /// otherwise).
    pub fn new(secret: impl AsRef<[u8]>) -> Result<CursorKey> {
        let secret = secret.as_ref();
        if secret.len() < Self::MIN_BYTES {
            return Err(Error::Configuration {
                message: format!(
                    "a cursor key of {} bytes is too short to keep cursors from being forged: \
                     give at least {} secret bytes",
                    secret.len(),
                    Self::MIN_BYTES
                ),
                source: None,
            });
        }
        Ok(CursorKey(secret.into()))
    }

    /// 32 random bytes from the operating system.
    pub fn random() -> CursorKey {
        let mut bytes = [0u8; 32];
        if getrandom::fill(&mut bytes).is_err() {
            // No OS randomness (exotic targets): std's randomly keyed hasher still gives a key
            // no client can know.
            use std::hash::BuildHasher;
            for (i, chunk) in bytes.chunks_mut(8).enumerate() {
                let word = std::collections::hash_map::RandomState::new().hash_one(i);
                chunk.copy_from_slice(&word.to_le_bytes());
            }
        }
        CursorKey(bytes.into())
    }

    /// The process's default key: `DYNO_CURSOR_KEY` when set (its bytes; too short a value is
    /// refused and a random key used, with a warning logged), else a random key drawn once.
    pub fn process_default() -> &'static CursorKey {
        static DEFAULT: OnceLock<CursorKey> = OnceLock::new();
        DEFAULT.get_or_init(|| match std::env::var_os(CURSOR_KEY_ENV) {
            Some(v) if !v.is_empty() => CursorKey::new(v.as_encoded_bytes()).unwrap_or_else(|e| {
                tracing::warn!("{CURSOR_KEY_ENV} is not used: {e}; cursors get a random key");
                CursorKey::random()
            }),
            _ => CursorKey::random(),
        })
    }

    pub(crate) fn mac(&self, body: &[u8]) -> HmacSha256 {
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(&self.0)
            .expect("HMAC takes keys of any length");
        mac.update(body);
        mac
    }
}

impl fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CursorKey(..)")
    }
}
