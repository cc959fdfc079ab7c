//! FNV-1a, the engine's stable hash of short names and keys.

use std::hash::Hasher;

/// A stable 64-bit hash (FNV-1a) of a partition key, to assign partitions to scan segments.
pub(super) fn segment_hash(pk: &[u8]) -> u64 {
    let mut h = Fnv::default();
    h.write(pk);
    h.finish()
}

/// FNV-1a: stable and a few instructions per byte, for short names and keys the application
/// chooses (scan segments, the table catalog).
pub(super) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
