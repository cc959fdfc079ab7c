//! Two guards against serving an older state than the instance has seen:
//!
//! - [`Touched`]: when each key counter (and each query generation) last moved, so that a fill
//!   made soon after a change to what it reads (a record applied, a write through this
//!   instance, a gap) does not install a replica's older image: item fills read strongly
//!   consistently then, and eventually consistent pages are checked against [`Images`], the
//!   newest image seen of each changed item.
//! - [`Leases`]: how long the entries of a followed table may be served, renewed by its
//!   follower each time it has caught up; once a lease lapses (a stuck feed) the table's
//!   entries are not served until the follower catches up again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dyno_core::value::SharedItem;

use crate::key::CacheKey;

fn nanos(t: Duration) -> u64 {
    u64::try_from(t.as_nanos()).unwrap_or(u64::MAX - 1)
}

/// When each counter last moved, by the cache's clock (0: never). Shares the slots of the
/// counters it shadows; keys sharing a slot only cost an extra consistent read or an
/// uninstalled page.
pub(crate) struct Touched {
    at: Box<[AtomicU64]>,
}

impl Touched {
    pub(crate) fn new(bits: u32) -> Self {
        Touched {
            at: (0..1usize << bits).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The counter at `slot` moved at `now`.
    pub(crate) fn touch(&self, slot: usize, now: Duration) {
        self.at[slot].fetch_max(nanos(now).saturating_add(1), Ordering::SeqCst);
    }

    /// The counter at `slot` moved less than `window` before `now`.
    pub(crate) fn within(&self, slot: usize, now: Duration, window: Duration) -> bool {
        let at = self.at[slot].load(Ordering::SeqCst);
        at != 0 && nanos(now).saturating_add(1).saturating_sub(at) < nanos(window)
    }
}

/// What this instance last learned of an item: its image after a change it applied or wrote
/// (`Some(None)`: deleted), or `None` when the change's result is not known.
#[derive(Clone)]
pub(crate) struct Seen {
    pub(crate) at: Duration,
    pub(crate) table_slot: usize,
    pub(crate) image: Option<Option<SharedItem>>,
}

/// The newest image seen per key, for as long as a replica may lag behind it: an eventually
/// consistent page is cached only if it agrees with every one of them.
pub(crate) struct Images {
    seen: Mutex<HashMap<CacheKey, Seen>>,
}

/// Entries past the window are dropped once the map holds this many.
const PRUNE_AT: usize = 4096;

impl Images {
    pub(crate) fn new() -> Self {
        Images {
            seen: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<CacheKey, Seen>> {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The key's newest image is `image` (`None`: not known), seen at `now`.
    pub(crate) fn note(&self, key: CacheKey, seen: Seen, window: Duration) {
        let mut map = self.lock();
        if map.len() >= PRUNE_AT {
            let now = seen.at;
            map.retain(|_, s| now.saturating_sub(s.at) < window);
        }
        map.insert(key, seen);
    }

    /// The images of the table at `table_slot` seen less than `window` before `now`.
    pub(crate) fn recent(
        &self,
        table_slot: usize,
        now: Duration,
        window: Duration,
    ) -> Vec<(CacheKey, Seen)> {
        self.lock()
            .iter()
            .filter(|(_, s)| s.table_slot == table_slot && now.saturating_sub(s.at) < window)
            .map(|(k, s)| (k.clone(), s.clone()))
            .collect()
    }
}

/// Leases are kept per table slot modulo this many (tables sharing one only cost misses).
const LEASE_SLOTS: usize = 256;

/// Per table (by its item-generation slot): until when its entries may be served, by the
/// cache's clock. 0: no lease (no follower with a lag budget), served until their TTL.
pub(crate) struct Leases {
    until: Box<[AtomicU64]>,
    /// Leases held: while none is, reads skip the check.
    held: AtomicUsize,
}

impl Leases {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Leases {
            until: (0..LEASE_SLOTS).map(|_| AtomicU64::new(0)).collect(),
            held: AtomicUsize::new(0),
        })
    }

    /// Entries of the table at `table_slot` may be served at `now`.
    pub(crate) fn serves(&self, table_slot: usize, now: Duration) -> bool {
        if self.held.load(Ordering::Relaxed) == 0 {
            return true;
        }
        let until = self.until[table_slot % LEASE_SLOTS].load(Ordering::SeqCst);
        until == 0 || nanos(now) < until
    }
}

/// A follower's hold on its table's lease: renewed while it keeps up, released when dropped
/// (the table's entries are then served until their TTL, as without a follower).
pub(crate) struct Lease {
    leases: Arc<Leases>,
    slot: usize,
}

impl Lease {
    pub(crate) fn take(leases: &Arc<Leases>, table_slot: usize, until: Duration) -> Lease {
        let slot = table_slot % LEASE_SLOTS;
        leases.held.fetch_add(1, Ordering::SeqCst);
        leases.until[slot].store(nanos(until).max(1), Ordering::SeqCst);
        Lease {
            leases: leases.clone(),
            slot,
        }
    }

    /// Entries may be served until `until` (never moves back).
    pub(crate) fn renew(&self, until: Duration) {
        self.leases.until[self.slot].fetch_max(nanos(until).max(1), Ordering::SeqCst);
    }

    /// The entries may be served at `now`.
    pub(crate) fn serves(&self, now: Duration) -> bool {
        nanos(now) < self.leases.until[self.slot].load(Ordering::SeqCst)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.leases.until[self.slot].store(0, Ordering::SeqCst);
        self.leases.held.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touched_is_within_its_window_only() {
        let t = Touched::new(4);
        let s = |x: u64| Duration::from_secs(x);
        assert!(!t.within(3, s(10), s(5)), "never touched");
        t.touch(3, s(10));
        assert!(t.within(3, s(10), s(5)));
        assert!(t.within(3, s(14), s(5)));
        assert!(!t.within(3, s(15), s(5)));
        assert!(
            !t.within(3, s(11), Duration::ZERO),
            "a zero window disables it"
        );
        assert!(!t.within(2, s(10), s(5)), "other slots untouched");
    }

    #[test]
    fn a_lease_serves_until_it_lapses_and_a_released_one_serves_again() {
        let leases = Leases::new();
        let s = |x: u64| Duration::from_secs(x);
        assert!(leases.serves(7, s(100)), "no lease: served");
        let lease = Lease::take(&leases, 7, s(5));
        assert!(leases.serves(7, s(4)) && lease.serves(s(4)));
        assert!(!leases.serves(7, s(5)), "lapsed");
        assert!(leases.serves(8, s(5)), "another table");
        lease.renew(s(9));
        lease.renew(s(6));
        assert!(leases.serves(7, s(8)), "renewed, never back");
        drop(lease);
        assert!(leases.serves(7, s(100)));
    }
}
