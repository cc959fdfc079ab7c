//! [`CachedStoreBuilder`]: TTLs, budgets, overrides, clock and known tables.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use dyno_core::store::Store;
use dyno_core::table::TableDef;

use crate::clock::{Clock, SystemClock};
use crate::store::CachedStore;

/// The longest TTL an entry gets (a century: past any process's life, so "cache until evicted");
/// a longer one (`Duration::MAX`) is saturated to it, so that no expiry time overflows.
pub(crate) const LONGEST_TTL: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// The TTL policy: how long entries live.
#[derive(Debug, Clone)]
pub(crate) struct Ttls {
    pub(crate) item: Duration,
    pub(crate) query: Duration,
    pub(crate) negative: Duration,
    pub(crate) entity_attribute: String,
    pub(crate) entity: HashMap<String, Duration>,
    pub(crate) jitter: f64,
}

impl Ttls {
    /// `ttl` shortened by a random fraction up to `jitter`, so entries filled together do not all
    /// expire (and reload) together.
    ///
    /// Every TTL an entry gets passes here, the per-entity and per-write overrides included, so
    /// this is where a TTL is bounded: one longer than `LONGEST_TTL` (`Duration::MAX`, say)
    /// is saturated to it instead of overflowing the expiry time.
    pub(crate) fn jittered(&self, ttl: Duration) -> Duration {
        let ttl = ttl.min(LONGEST_TTL);
        if self.jitter > 0.0 {
            ttl.mul_f64(1.0 - self.jitter * fastrand::f64())
        } else {
            ttl
        }
    }
}

/// Builds a [`CachedStore`]. Defaults: items and query pages live 5 minutes, "not found" 1
/// minute, no jitter; 64 MiB for items and 32 MiB for query pages; the system clock; entity
/// type read from the `_type` attribute.
///
/// Durations: zero means no time, as everywhere in dyno (a zero store timeout or batch deadline
/// sends nothing): a zero TTL (item, query, negative, per entity, or per write with
/// [`CachedStore::with_ttl`]) caches nothing of what it covers. A TTL longer than
/// a century (`Duration::MAX` included) is saturated to it: entries then live until
/// evicted. Nothing panics or overflows.
///
/// ```
/// use std::time::Duration;
/// use dyno_cache::CachedStore;
/// use dyno_core::MemoryStore;
///
/// let store = CachedStore::builder(MemoryStore::new())
///     .item_ttl(Duration::from_secs(60))
///     .query_ttl(Duration::from_secs(5))
///     .negative_ttl(Duration::from_secs(10))
///     .entity_ttl("Product", Duration::from_secs(3600))
///     .item_capacity_bytes(16 << 20)
///     .ttl_jitter(0.1)
///     .build();
/// # let _ = store;
/// ```
#[must_use]
pub struct CachedStoreBuilder<S> {
    pub(crate) inner: S,
    pub(crate) ttls: Ttls,
    pub(crate) item_bytes: u64,
    pub(crate) query_bytes: u64,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) tables: Vec<TableDef>,
    pub(crate) stripe_bits: u32,
    pub(crate) replica_lag: Duration,
}

impl<S> fmt::Debug for CachedStoreBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CachedStoreBuilder")
            .field("ttls", &self.ttls)
            .field("item_bytes", &self.item_bytes)
            .field("query_bytes", &self.query_bytes)
            .field("clock", &self.clock)
            .field(
                "tables",
                &self.tables.iter().map(|t| &t.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl<S: Store> CachedStoreBuilder<S> {
    pub(crate) fn new(inner: S) -> Self {
        CachedStoreBuilder {
            inner,
            ttls: Ttls {
                item: Duration::from_secs(300),
                query: Duration::from_secs(300),
                negative: Duration::from_secs(60),
                entity_attribute: "_type".to_owned(),
                entity: HashMap::new(),
                jitter: 0.0,
            },
            item_bytes: 64 << 20,
            query_bytes: 32 << 20,
            clock: Arc::new(SystemClock),
            tables: Vec::new(),
            stripe_bits: 16,
            replica_lag: Duration::from_secs(3),
        }
    }

    /// How long an item read or written stays cached (zero disables the item cache).
    pub fn item_ttl(mut self, ttl: Duration) -> Self {
        self.ttls.item = ttl;
        self
    }

    /// How long a query or scan page stays cached (zero disables the query cache).
    pub fn query_ttl(mut self, ttl: Duration) -> Self {
        self.ttls.query = ttl;
        self
    }

    /// How long "not found" (from a get or a delete) stays cached (zero: not cached).
    pub fn negative_ttl(mut self, ttl: Duration) -> Self {
        self.ttls.negative = ttl;
        self
    }

    /// The attribute naming each item's entity type (default `_type`), for [`Self::entity_ttl`].
    pub fn entity_attribute(mut self, name: impl Into<String>) -> Self {
        self.ttls.entity_attribute = name.into();
        self
    }

    /// Items whose entity attribute is `entity` live `ttl` instead of the item TTL, and a query
    /// page holding such items lives no longer than the shortest of them (zero: such items, and
    /// pages holding them, are not cached).
    pub fn entity_ttl(mut self, entity: impl Into<String>, ttl: Duration) -> Self {
        self.ttls.entity.insert(entity.into(), ttl);
        self
    }

    /// Shortens each entry's TTL by a random fraction of up to `fraction` (0 to 1), so entries
    /// filled together do not expire together.
    pub fn ttl_jitter(mut self, fraction: f64) -> Self {
        self.ttls.jitter = fraction.clamp(0.0, 1.0);
        self
    }

    /// The item cache's budget in bytes (items weighed by DynamoDB's size formula plus key and
    /// bookkeeping overhead).
    pub fn item_capacity_bytes(mut self, bytes: u64) -> Self {
        self.item_bytes = bytes;
        self
    }

    /// The query cache's budget in bytes.
    pub fn query_capacity_bytes(mut self, bytes: u64) -> Self {
        self.query_bytes = bytes;
        self
    }

    /// The clock entries expire by (tests pass a [`crate::ManualClock`]).
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Registers a table's definition, so the cache need not call `DescribeTable` before the
    /// first write to it (needed where the process may not describe tables).
    pub fn table(mut self, definition: TableDef) -> Self {
        self.tables.push(definition);
        self
    }

    /// `2^bits` version and generation counters each (default 16 bits: 512 KiB each). Fewer
    /// counters means more keys share one, which costs spurious misses, never stale reads.
    pub fn stripe_bits(mut self, bits: u32) -> Self {
        self.stripe_bits = bits.clamp(4, 24);
        self
    }

    /// How long after a change this instance has seen (a write through it, a record its
    /// follower applied, a gap) a replica may still return the older image (default 3 s;
    /// DynamoDB's replicas usually catch up within a second). Within it, item fills of the
    /// changed key read strongly consistently, and an eventually consistent query page of a
    /// changed partition is cached only if it agrees with the newest image seen of each changed
    /// item (a table page that does not is read again consistently; a GSI page is returned
    /// uncached); zero turns the guard off.
    pub fn replica_lag(mut self, lag: Duration) -> Self {
        self.replica_lag = lag;
        self
    }

    /// The cached store.
    pub fn build(self) -> CachedStore<S> {
        CachedStore::from_builder(self)
    }
}
