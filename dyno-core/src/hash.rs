//! FNV-1a (64-bit): the one hash dyno uses where a value must stay the same across processes,
//! platforms and releases (shard numbers of sharded index keys, cursor checksums and query
//! fingerprints, the compile-time ids of index names). `std`'s hashers are randomly seeded or
//! unspecified, so they cannot be used for values that are stored or sent.
//!
//! Not public API: shared with dyno-cache and generated code; it may change in any release.
//!
//! ```
//! use dyno_core::hash::{fnv1a, Fnv1a};
//!
//! let mut h = Fnv1a::new();
//! h.write(b"USER#");
//! h.write(b"42");
//! assert_eq!(h.finish(), fnv1a(b"USER#42"));
//! ```

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// The FNV-1a hash of `bytes`; usable in constants.
pub const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash = OFFSET;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(PRIME);
        i += 1;
    }
    hash
}

/// An FNV-1a hash fed in pieces: `write(a); write(b)` hashes as `fnv1a(a + b)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Fnv1a {
    /// The hash of nothing.
    pub const fn new() -> Self {
        Fnv1a(OFFSET)
    }

    /// Feeds `bytes`.
    pub fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }

    /// The hash of everything fed.
    pub const fn finish(self) -> u64 {
        self.0
    }
}

impl Default for Fnv1a {
    fn default() -> Self {
        Self::new()
    }
}

/// As a `std` hasher, for maps keyed by names the application chooses (MemoryStore's table
/// catalog): a few instructions per byte, where SipHash's resistance to chosen keys buys nothing.
impl std::hash::Hasher for Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        Fnv1a::write(self, bytes);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values of the FNV-1a 64-bit test suite.
    #[test]
    fn known_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        let mut h = Fnv1a::new();
        h.write(b"foo");
        h.write(b"bar");
        assert_eq!(h.finish(), fnv1a(b"foobar"));
    }
}
