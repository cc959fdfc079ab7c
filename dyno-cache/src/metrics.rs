//! Counters, updated with relaxed atomics on the hot paths, and their snapshot [`CacheMetrics`].

use std::sync::atomic::{AtomicU64, Ordering};

use moka::notification::RemovalCause;

/// Entries removed from one cache, by cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Evictions {
    /// Evicted to stay within the byte budget.
    pub size: u64,
    /// Removed or replaced after their TTL had passed.
    pub expired: u64,
    /// Replaced by a newer value (a write-through or a refill) while still fresh.
    pub replaced: u64,
    /// Removed by an invalidation while still fresh.
    pub explicit: u64,
}

/// One cache's numbers: the item cache or the query cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TierMetrics {
    /// Reads answered from the cache with a value.
    pub hits: u64,
    /// Reads answered from the cache with "not found" (item cache only).
    pub negative_hits: u64,
    /// Reads the cache could not answer (absent, expired, or from an older generation).
    pub misses: u64,
    /// Backend reads made to fill the cache (a coalesced miss shares one load).
    pub loads: u64,
    /// Reads that went to the backend without using the cache (strongly consistent reads,
    /// transactional reads, nested projections); they still refresh it.
    pub bypasses: u64,
    /// Entries removed, by cause.
    pub evictions: Evictions,
    /// Bytes of entries evicted for size or expiry.
    pub evicted_bytes: u64,
    /// Current weighted size in bytes (exact after [`crate::CachedStore::run_pending_tasks`]).
    pub current_bytes: u64,
    /// Current number of entries (exact after [`crate::CachedStore::run_pending_tasks`]).
    pub entries: u64,
}

/// A snapshot of a [`crate::CachedStore`]'s counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheMetrics {
    /// The item cache (get, batch get).
    pub item: TierMetrics,
    /// The query cache (query and scan pages).
    pub query: TierMetrics,
    /// Concurrent misses that waited for another caller's load instead of loading.
    pub coalesced_waiters: u64,
    /// Item entries set by a successful write (new image or tombstone).
    pub write_through_updates: u64,
    /// Item entries removed because a write's result could not be known exactly (unknown
    /// outcome, cancelled transaction, unprocessed batch write, update without the new image,
    /// concurrent writes to one key).
    pub invalidations: u64,
    /// Query-partition generations bumped by writes (each makes older cached pages unservable).
    pub generation_bumps: u64,
    /// Fills refused because a write had changed the key or partition since the read began.
    pub rejected_stale_fills: u64,
}

/// Lanes of a [`HitCounter`].
const LANES: usize = 8;

/// One lane on its own cache line (128 bytes: adjacent-line prefetch pairs 64-byte lines).
#[derive(Default)]
#[repr(align(128))]
struct Lane(AtomicU64);

/// A counter bumped by every hit, from any thread: split into lanes by key hash, so that threads
/// hitting different keys do not fight over one cache line (a hit is otherwise read-only here).
#[derive(Default)]
pub(crate) struct HitCounter {
    lanes: [Lane; LANES],
}

impl HitCounter {
    /// `+= 1` in the lane of `hash`, relaxed.
    pub(crate) fn add(&self, hash: u64) {
        self.lanes[(hash >> 61) as usize % LANES]
            .0
            .fetch_add(1, Ordering::Relaxed);
    }

    fn sum(&self) -> u64 {
        self.lanes.iter().map(|l| l.0.load(Ordering::Relaxed)).sum()
    }
}

#[derive(Default)]
pub(crate) struct TierCounters {
    pub(crate) hits: HitCounter,
    pub(crate) negative_hits: HitCounter,
    pub(crate) misses: AtomicU64,
    pub(crate) loads: AtomicU64,
    pub(crate) bypasses: AtomicU64,
    size: AtomicU64,
    expired: AtomicU64,
    replaced: AtomicU64,
    explicit: AtomicU64,
    evicted_bytes: AtomicU64,
}

impl TierCounters {
    /// Records one removal reported by moka's eviction listener. `expired` says whether the
    /// entry's own expiry (by the injected clock) had passed: a stale entry replaced by a refill
    /// or dropped on invalidation counts as expired, not as replaced or explicit.
    pub(crate) fn removed(&self, cause: RemovalCause, expired: bool, weight: u32) {
        let counter = match cause {
            RemovalCause::Size => &self.size,
            _ if expired => &self.expired,
            RemovalCause::Expired => &self.expired,
            RemovalCause::Replaced => &self.replaced,
            RemovalCause::Explicit => &self.explicit,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        if matches!(cause, RemovalCause::Size | RemovalCause::Expired) || expired {
            self.evicted_bytes
                .fetch_add(u64::from(weight), Ordering::Relaxed);
        }
    }

    pub(crate) fn snapshot(&self, current_bytes: u64, entries: u64) -> TierMetrics {
        let l = |c: &AtomicU64| c.load(Ordering::Relaxed);
        TierMetrics {
            hits: self.hits.sum(),
            negative_hits: self.negative_hits.sum(),
            misses: l(&self.misses),
            loads: l(&self.loads),
            bypasses: l(&self.bypasses),
            evictions: Evictions {
                size: l(&self.size),
                expired: l(&self.expired),
                replaced: l(&self.replaced),
                explicit: l(&self.explicit),
            },
            evicted_bytes: l(&self.evicted_bytes),
            current_bytes,
            entries,
        }
    }
}

#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) item: TierCounters,
    pub(crate) query: TierCounters,
    pub(crate) coalesced_waiters: AtomicU64,
    pub(crate) write_through_updates: AtomicU64,
    pub(crate) invalidations: AtomicU64,
    pub(crate) generation_bumps: AtomicU64,
    pub(crate) rejected_stale_fills: AtomicU64,
}

/// `counter += 1`, relaxed.
pub(crate) fn inc(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

impl Counters {
    pub(crate) fn snapshot(&self, item: TierMetrics, query: TierMetrics) -> CacheMetrics {
        let l = |c: &AtomicU64| c.load(Ordering::Relaxed);
        CacheMetrics {
            item,
            query,
            coalesced_waiters: l(&self.coalesced_waiters),
            write_through_updates: l(&self.write_through_updates),
            invalidations: l(&self.invalidations),
            generation_bumps: l(&self.generation_bumps),
            rejected_stale_fills: l(&self.rejected_stale_fills),
        }
    }
}
