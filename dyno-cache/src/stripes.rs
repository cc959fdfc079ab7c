//! Striped counters: per-key versions for items and generations for query partitions, in a
//! fixed amount of memory.
//!
//! A key maps to one of `N` counters by hash. Two keys sharing a counter only ever cost a
//! spurious miss or a rejected fill, never a stale answer: every check is "has this counter
//! moved since I looked", and a foreign bump can only make that answer "yes".

use std::sync::atomic::{AtomicU64, Ordering};

pub(crate) struct Stripes {
    counters: Box<[AtomicU64]>,
    mask: u64,
}

impl Stripes {
    /// `2^bits` counters.
    pub(crate) fn new(bits: u32) -> Self {
        let n = 1usize << bits;
        Stripes {
            counters: (0..n).map(|_| AtomicU64::new(0)).collect(),
            mask: (n - 1) as u64,
        }
    }

    pub(crate) fn slot(&self, hash: u64) -> usize {
        // The low bits of either hash (the seeded key hash, `stable_hash`) are as good as any.
        (hash & self.mask) as usize
    }

    pub(crate) fn load(&self, slot: usize) -> u64 {
        self.counters[slot].load(Ordering::SeqCst)
    }

    /// Bumps the counter; returns its value before the bump.
    pub(crate) fn bump(&self, slot: usize) -> u64 {
        self.counters[slot].fetch_add(1, Ordering::SeqCst)
    }
}
