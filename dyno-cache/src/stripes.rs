//! Striped counters: per-key versions for items and generations for query partitions, in a
//! fixed amount of memory.
//!
//! A key maps to one of `N` counters by hash. Two keys sharing a counter only ever cost a
//! spurious miss or a rejected fill, never a stale answer: every check is "has this counter
//! moved since I looked, or is a write in flight on it", and a foreign write can only make that
//! answer "yes".
//!
//! A counter's state packs two numbers: the writes in flight on it (the low [`PENDING_BITS`]
//! bits) and a sequence that moves on every write's start and end and on every bump (the rest).
//! A state read with no write in flight, and read again unchanged, proves that no write began,
//! ran or ended in between.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bits of a state counting the writes in flight (up to 65,535 at once per counter).
const PENDING_BITS: u32 = 16;
const PENDING_MASK: u64 = (1 << PENDING_BITS) - 1;
/// One step of the sequence.
const SEQ: u64 = 1 << PENDING_BITS;

/// The writes in flight in a state read from [`Stripes::load`].
pub(crate) fn pending(state: u64) -> u64 {
    state & PENDING_MASK
}

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

    /// Moves the sequence (no write in flight changes); returns the state before.
    pub(crate) fn bump(&self, slot: usize) -> u64 {
        self.counters[slot].fetch_add(SEQ, Ordering::SeqCst)
    }

    /// A write begins: one more in flight, and the sequence moves. Returns the state after.
    pub(crate) fn begin(&self, slot: usize) -> u64 {
        self.counters[slot].fetch_add(SEQ + 1, Ordering::SeqCst) + SEQ + 1
    }

    /// A write that [`Stripes::begin`] registered ends without having changed anything under
    /// this counter (it definitely failed, or changed other partitions): its own start is taken
    /// back, so what was valid before it began is valid again. Safe because every state read
    /// while it was in flight counts it as in flight, and such a state never validates a fill.
    pub(crate) fn unwind(&self, slot: usize) {
        self.counters[slot].fetch_sub(SEQ + 1, Ordering::SeqCst);
    }

    /// A write that [`Stripes::begin`] registered ends: one fewer in flight, and the sequence
    /// moves. Returns the state before.
    pub(crate) fn end(&self, slot: usize) -> u64 {
        self.counters[slot].fetch_add(SEQ - 1, Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_and_end_count_writes_in_flight_and_always_move_the_sequence() {
        let s = Stripes::new(4);
        let a = s.begin(3);
        assert_eq!(pending(a), 1);
        let b = s.begin(3);
        assert_eq!(pending(b), 2);
        assert_eq!(s.end(3), b);
        let c = s.load(3);
        assert_eq!(pending(c), 1);
        assert_ne!(c, a);
        s.end(3);
        let d = s.load(3);
        assert_eq!(pending(d), 0);
        assert_eq!(s.bump(3), d);
        assert_eq!(pending(s.load(3)), 0);
        assert_ne!(s.load(3), d);
        let e = s.load(3);
        s.begin(3);
        s.unwind(3);
        assert_eq!(s.load(3), e);
    }
}
