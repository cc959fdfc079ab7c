//! [`CachedStore`]: the item cache, the query cache, and the write-through rules that keep them
//! right.

use std::collections::HashMap;
use std::fmt;
use std::future::ready;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use dyno_core::error::{Error, Result};
use dyno_core::expr::{Path, PathElement};
use dyno_core::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, ReturnValues, ScanRequest, Store, TableDescription,
    TableKey, TransactGetOutput, TransactGetRequest, TransactWriteItem, TransactWriteRequest,
    UpdateRequest, WriteOutput, WriteRequest,
};
use dyno_core::table::TableDef;
use dyno_core::value::{item_size, AttributeValue, Item, SharedItem};
use moka::future::Cache;
use moka::ops::compute::Op;
use moka::Expiry;

use crate::builder::{CachedStoreBuilder, Ttls};
use crate::clock::Clock;
use crate::flight::{self, Flights, Role};
use crate::key::{
    index_hash, item_key, partition_hash, query_key, scan_hash, scan_key, table_items_hash,
    CacheKey, KeyHasher, KeyRef, Lookup, PreHashed,
};
use crate::metrics::{inc, CacheMetrics, Counters};
use crate::schema::{Image, TableInfo};
use crate::stripes::{pending, Stripes};
use crate::typed::Decoded;

/// Bytes charged per entry on top of its key and item, for moka's and our bookkeeping.
const ENTRY_OVERHEAD: usize = 96;

/// An item-cache entry: the item, or `None` for "not found" (a tombstone).
#[derive(Clone)]
struct ItemEntry {
    item: Option<SharedItem>,
    expires_at: Duration,
    ttl: Duration,
    weight: u32,
    /// The table's item generation (slot, value) when installed: the entry is dead once it
    /// moves ([`CachedStore::invalidate_table`]).
    table: (usize, u64),
    /// The key's kill counter (slot, value) when installed: the entry is dead once it moves (a
    /// write to the key cancelled mid-flight, whose outcome is unknown).
    kill: (usize, u64),
    /// The item decoded by [`CachedStore::get_shared`], once it has been (its bytes are in
    /// `weight`).
    decoded: Option<Decoded>,
}

/// The query-cache generations a page was read under.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Deps {
    epoch: u64,
    len: usize,
    slots: [(usize, u64); 2],
}

impl Deps {
    /// No write to what the page depends on was in flight.
    fn quiet(&self) -> bool {
        self.slots[..self.len].iter().all(|(_, g)| pending(*g) == 0)
    }

    /// One number that moves whenever any of the counters moves (they only grow).
    fn version(&self) -> u64 {
        self.slots[..self.len]
            .iter()
            .fold(self.epoch, |v, (_, g)| v.wrapping_add(*g))
    }
}

/// A query-cache entry: one page and the generations it is valid for.
#[derive(Clone)]
struct PageEntry {
    page: Arc<Page>,
    expires_at: Duration,
    ttl: Duration,
    weight: u32,
    deps: Deps,
}

trait Expiring {
    fn ttl(&self) -> Duration;
}

impl Expiring for ItemEntry {
    fn ttl(&self) -> Duration {
        self.ttl
    }
}

impl Expiring for PageEntry {
    fn ttl(&self) -> Duration {
        self.ttl
    }
}

/// Lets moka drop entries when their TTL passes by its own clock, so expired entries do not
/// hold memory; freshness on read is decided by the injected clock.
struct EntryExpiry;

impl<V: Expiring> Expiry<CacheKey, V> for EntryExpiry {
    fn expire_after_create(&self, _: &CacheKey, value: &V, _: Instant) -> Option<Duration> {
        Some(value.ttl())
    }

    fn expire_after_update(
        &self,
        _: &CacheKey,
        value: &V,
        _: Instant,
        _: Option<Duration>,
    ) -> Option<Duration> {
        Some(value.ttl())
    }
}

fn weight(key_len: usize, bytes: usize) -> u32 {
    u32::try_from(key_len + bytes + ENTRY_OVERHEAD).unwrap_or(u32::MAX)
}

/// The counters that keep fills and writes in order: per-key item versions, per-partition query
/// generations (also per-table item generations), and how many writes are in flight at all.
struct Tracks {
    versions: Stripes,
    generations: Stripes,
    /// Per key (striped like `versions`): moved by every read that reached the backend while a
    /// write to the key was in flight, before it returns (see `load`).
    reads: Stripes,
    /// Per key (striped like `versions`): moved when a write to the key is cancelled mid-flight;
    /// entries installed before are dead (see [`ItemEntry::kill`]).
    kills: Stripes,
    in_flight: AtomicU64,
}

/// What an item fill or write depends on, read before the backend call: the key's counter, the
/// epoch and the table's item generation. Equal again at install, with no write in flight at
/// either point, it proves no write to the key began, ran or ended in between.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ItemVersion {
    state: u64,
    epoch: u64,
    table_slot: usize,
    table_gen: u64,
    /// The key's slot in `versions` and `kills`, and its kill counter.
    slot: usize,
    kill: u64,
}

impl ItemVersion {
    /// No write to the key was in flight.
    fn quiet(&self) -> bool {
        pending(self.state) == 0
    }

    /// One number for single flight: every part only grows, so the sum moves when any does.
    fn flight(&self) -> u64 {
        self.state
            .wrapping_add(self.epoch)
            .wrapping_add(self.table_gen)
            .wrapping_add(self.kill)
    }
}

/// A read's claim to install what it fetches for one key.
struct Fill {
    key: CacheKey,
    slot: usize,
    version: ItemVersion,
}

/// A write in flight on one item: registered on its key's counter (so that no fill installs
/// meanwhile, and reads that go to the backend drop the entry) and on the query generations it
/// may change (so that their pages are neither served nor filled meanwhile), from before it is
/// sent until it is finished. Dropped unfinished (a cancelled write, whose outcome is unknown),
/// it kills the key's entry through its kill counter (it cannot drop the entry from `Drop`, which
/// cannot await moka), and only it: keys sharing the counter's stripe cost one spurious miss.
struct Ticket<'a> {
    tracks: &'a Tracks,
    key: CacheKey,
    slot: usize,
    /// The item's version just after this write registered.
    start: ItemVersion,
    /// The generation slots this write registered on.
    pages: Vec<usize>,
    /// Still registered on the key's counter.
    open: bool,
}

impl Ticket<'_> {
    /// Ends the registrations on generations: those in `changed` (slots) move on, the others
    /// are taken back (see [`Stripes::unwind`]).
    fn end_pages_except(&mut self, changed: &[usize]) {
        for slot in self.pages.drain(..) {
            if changed.contains(&slot) {
                self.tracks.generations.end(slot);
            } else {
                self.tracks.generations.unwind(slot);
            }
        }
    }

    fn end_pages(&mut self) {
        for slot in self.pages.drain(..) {
            self.tracks.generations.end(slot);
        }
    }

    /// Ends the registration on the key's counter; returns the counter's state before.
    fn end_item(&mut self) -> u64 {
        debug_assert!(self.open);
        self.open = false;
        self.tracks.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.tracks.versions.end(self.slot)
    }

    /// The write definitely did not apply: nothing to install or drop, and what was valid
    /// before it began is valid again.
    fn abandon(mut self) {
        self.end_pages_except(&[]);
        self.open = false;
        self.tracks.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.tracks.versions.unwind(self.slot);
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        self.end_pages();
        if self.open {
            // Killed first: a read that begins before the kill sees the write still in flight.
            self.tracks.kills.bump(self.slot);
            self.end_item();
        }
    }
}

/// What a write that (maybe) applied changed: its key, the item's images before and after as
/// far as known, and the top-level attributes an update touched (`None`: the whole item).
struct Changed<'a> {
    key: &'a Item,
    old: Image<'a>,
    new: Image<'a>,
    touched: Option<&'a [String]>,
}

/// A write-through cache in front of any [`Store`]; it implements `Store` itself, so typed
/// operations and `Arc<dyn Store>` work on it unchanged.
///
/// See the [crate documentation](crate) for what it guarantees and the tests that prove it.
pub struct CachedStore<S> {
    inner: S,
    items: Cache<CacheKey, ItemEntry, PreHashed>,
    pages: Cache<CacheKey, PageEntry, PreHashed>,
    /// Hashes every cache key once, for moka, the version stripes and single flight.
    hasher: KeyHasher,
    ttls: Ttls,
    clock: Arc<dyn Clock>,
    counters: Arc<Counters>,
    /// Per-key versions, per-partition generations, writes in flight.
    tracks: Tracks,
    /// Bumped by table administration: every earlier snapshot becomes invalid.
    epoch: AtomicU64,
    flights: Flights<Option<SharedItem>>,
    page_flights: Flights<Arc<Page>>,
    tables: RwLock<HashMap<String, Arc<TableInfo>>>,
}

impl<S: fmt::Debug> fmt::Debug for CachedStore<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CachedStore")
            .field("inner", &self.inner)
            .field("ttls", &self.ttls)
            .field("clock", &self.clock)
            .field("item_entries", &self.items.entry_count())
            .field("page_entries", &self.pages.entry_count())
            .finish_non_exhaustive()
    }
}

/// A view of a [`CachedStore`] whose writes (and the reads it fills) cache entries for a given
/// TTL instead of the configured ones; see [`CachedStore::with_ttl`].
#[derive(Debug)]
pub struct WithTtl<'a, S> {
    store: &'a CachedStore<S>,
    ttl: Duration,
}

impl<S: Store> CachedStore<S> {
    /// A cache with the default settings (see [`CachedStoreBuilder`]) in front of `inner`.
    pub fn new(inner: S) -> Self {
        CachedStoreBuilder::new(inner).build()
    }

    /// A builder for TTLs, byte budgets, per-entity TTLs, jitter, the clock and known tables.
    pub fn builder(inner: S) -> CachedStoreBuilder<S> {
        CachedStoreBuilder::new(inner)
    }

    pub(crate) fn from_parts(
        inner: S,
        ttls: Ttls,
        item_bytes: u64,
        query_bytes: u64,
        clock: Arc<dyn Clock>,
        tables: Vec<TableDef>,
        stripe_bits: u32,
    ) -> Self {
        let counters = Arc::new(Counters::default());
        let items = {
            let (counters, clock) = (counters.clone(), clock.clone());
            Cache::builder()
                .max_capacity(item_bytes)
                .weigher(|_, v: &ItemEntry| v.weight)
                .expire_after(EntryExpiry)
                .eviction_listener(move |_, v: ItemEntry, cause| {
                    counters
                        .item
                        .removed(cause, v.expires_at <= clock.now(), v.weight);
                })
                .build_with_hasher(PreHashed)
        };
        let pages = {
            let (counters, clock) = (counters.clone(), clock.clone());
            Cache::builder()
                .max_capacity(query_bytes)
                .weigher(|_, v: &PageEntry| v.weight)
                .expire_after(EntryExpiry)
                .eviction_listener(move |_, v: PageEntry, cause| {
                    counters
                        .query
                        .removed(cause, v.expires_at <= clock.now(), v.weight);
                })
                .build_with_hasher(PreHashed)
        };
        let tables = tables
            .iter()
            .map(|d| (d.name.clone(), Arc::new(TableInfo::from_def(d))))
            .collect();
        CachedStore {
            inner,
            items,
            pages,
            hasher: KeyHasher::default(),
            ttls,
            clock,
            counters,
            tracks: Tracks {
                versions: Stripes::new(stripe_bits),
                generations: Stripes::new(stripe_bits),
                reads: Stripes::new(stripe_bits),
                kills: Stripes::new(stripe_bits),
                in_flight: AtomicU64::new(0),
            },
            epoch: AtomicU64::new(0),
            flights: Flights::new(),
            page_flights: Flights::new(),
            tables: RwLock::new(tables),
        }
    }

    /// The store behind the cache (calls made on it bypass and do not update the cache).
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// A view whose writes cache what they write for `ttl` (and whose reads fill for `ttl`),
    /// whatever the configured and per-entity TTLs say:
    /// `cached.with_ttl(Duration::from_secs(5)).put_item(request)`.
    pub fn with_ttl(&self, ttl: Duration) -> WithTtl<'_, S> {
        WithTtl { store: self, ttl }
    }

    /// The counters now. Entry counts, sizes and evictions are exact after
    /// [`CachedStore::run_pending_tasks`].
    pub fn metrics(&self) -> CacheMetrics {
        let item = self
            .counters
            .item
            .snapshot(self.items.weighted_size(), self.items.entry_count());
        let query = self
            .counters
            .query
            .snapshot(self.pages.weighted_size(), self.pages.entry_count());
        self.counters.snapshot(item, query)
    }

    /// Runs moka's pending maintenance (evictions, eviction notifications, size accounting) now.
    pub async fn run_pending_tasks(&self) {
        self.items.run_pending_tasks().await;
        self.pages.run_pending_tasks().await;
    }

    /// Drops every entry, and makes every read in flight unable to install what it fetched.
    pub fn invalidate_all(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        self.items.invalidate_all();
        self.pages.invalidate_all();
    }

    // ---- changes made elsewhere (the follower's API) ----

    /// Applies a change made elsewhere (another process's write, seen in a change feed such as
    /// DynamoDB Streams), as a local write with an unknown outcome would: the query pages of the
    /// item's old and new partitions (of the table, its LSIs and every GSI; the whole index where
    /// an image is [`Image::Unknown`]) and the table's scans become unservable, reads in flight on
    /// the key cannot install what they fetched, and the item's entry is dropped (the next read
    /// loads the item).
    ///
    /// The entry is never replaced by `new`, even when it holds exactly `old`: the cache cannot
    /// tell whether its entry predates the change or repeats an older state. Say the item went
    /// `A -> B -> A` and the cache filled the second `A`: the record `A -> B`, applied late,
    /// would install `B`, older than what a read has already returned. Entries from reads and
    /// local writes carry no feed position to order them against the record.
    pub async fn apply_change(
        &self,
        table: &str,
        key: &Item,
        old: Image<'_>,
        new: Image<'_>,
    ) -> Result<()> {
        let info = self.table_info(table).await?;
        self.bump(&info, key, old, new, None);
        let Some(mut ticket) = self.register(table, key) else {
            return Ok(());
        };
        self.drop_entry(ticket.key.clone()).await;
        ticket.end_item();
        inc(&self.counters.invalidations);
        Ok(())
    }

    /// Removes the entry at `key`, under moka's lock of the key.
    async fn drop_entry(&self, key: CacheKey) {
        self.items
            .entry(key)
            .and_compute_with(|existing| {
                ready(if existing.is_some() {
                    Op::Remove
                } else {
                    Op::Nop
                })
            })
            .await;
    }

    /// Drops an item's entry, and makes reads of it in flight unable to install what they
    /// fetched. Query pages are left alone (see [`CachedStore::invalidate_partition`]).
    pub async fn invalidate_item(&self, table: &str, key: &Item) {
        let Some(mut ticket) = self.register(table, key) else {
            return;
        };
        self.drop_entry(ticket.key.clone()).await;
        ticket.end_item();
        inc(&self.counters.invalidations);
    }

    /// Makes the cached query pages of one partition unservable, and those being filled
    /// uninstallable: `index` `None` is the table itself (its LSIs are partitioned by the same
    /// value: name them to include them), `Some(name)` a secondary index. The table's scan pages
    /// go too, as any changed item changes them.
    pub fn invalidate_partition(&self, table: &str, index: Option<&str>, value: &AttributeValue) {
        self.bump_hash(partition_hash(table, index.unwrap_or(""), value));
        self.bump_hash(scan_hash(table));
    }

    /// Makes every cached query page of one index (`None`: the table) unservable, with the
    /// table's scan pages.
    pub fn invalidate_index(&self, table: &str, index: Option<&str>) {
        self.bump_hash(index_hash(table, index.unwrap_or("")));
        self.bump_hash(scan_hash(table));
    }

    /// Makes every item entry and query page of one table unservable, and every read of it in
    /// flight unable to install what it fetched: what a follower does when it cannot bridge a
    /// gap in a change feed. Other tables stay cached. Describes the table when it was neither
    /// registered nor written through this cache (to learn its indexes).
    pub async fn invalidate_table(&self, table: &str) -> Result<()> {
        let info = self.table_info(table).await?;
        self.tracks.generations.bump(self.table_slot(table));
        for index in info.index_names() {
            self.bump_hash(index_hash(table, index));
        }
        self.bump_hash(scan_hash(table));
        inc(&self.counters.invalidations);
        Ok(())
    }

    fn bump_hash(&self, hash: u64) {
        self.tracks
            .generations
            .bump(self.tracks.generations.slot(hash));
        inc(&self.counters.generation_bumps);
    }

    // ---- shared pieces ----

    fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// The generation slot of `table`'s item entries.
    fn table_slot(&self, table: &str) -> usize {
        self.tracks.generations.slot(table_items_hash(table))
    }

    /// What a fill of the key at `slot`, of the table at `table_slot`, depends on now.
    fn item_version(&self, slot: usize, table_slot: usize) -> ItemVersion {
        ItemVersion {
            state: self.tracks.versions.load(slot),
            epoch: self.epoch(),
            table_slot,
            table_gen: self.tracks.generations.load(table_slot),
            slot,
            kill: self.tracks.kills.load(slot),
        }
    }

    /// A read's claim on `key` of `table`, taken before its backend call.
    fn fill(&self, table: &str, key: &Lookup) -> Fill {
        let slot = self.tracks.versions.slot(key.hash);
        Fill {
            key: key.to_key(),
            slot,
            version: self.item_version(slot, self.table_slot(table)),
        }
    }

    /// An entry may be served: fresh by the injected clock, its table not invalidated and no
    /// write to its key cancelled since it was installed.
    fn live(&self, entry: &ItemEntry, now: Duration) -> bool {
        entry.expires_at > now
            && self.tracks.generations.load(entry.table.0) == entry.table.1
            && self.tracks.kills.load(entry.kill.0) == entry.kill.1
    }

    fn known_table(&self, table: &str) -> Option<Arc<TableInfo>> {
        self.tables
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(table)
            .cloned()
    }

    /// The table's schema: registered with the builder, or described once and remembered.
    async fn table_info(&self, table: &str) -> Result<Arc<TableInfo>> {
        if let Some(info) = self.known_table(table) {
            return Ok(info);
        }
        let description = self.inner.describe_table(table).await?;
        Ok(self.remember(table, &description.definition))
    }

    /// Remembers `def` under the name requests use for it (a renaming store below may describe
    /// it under another): generations are hashed by that name on both sides.
    fn remember(&self, table: &str, def: &TableDef) -> Arc<TableInfo> {
        let info = Arc::new(TableInfo::from_def(def).named(table));
        self.tables
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(table.to_owned(), info.clone());
        info
    }

    fn forget_tables(&self) {
        self.tables
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.invalidate_all();
    }

    /// When an item (or a tombstone, `None`) installed now should expire, and its TTL; `None`
    /// when it should not be cached at all (zero TTL, or its TTL attribute has passed).
    fn item_expiry(
        &self,
        item: Option<&Item>,
        info: Option<&TableInfo>,
        ttl_override: Option<Duration>,
    ) -> Option<(Duration, Duration)> {
        let base = ttl_override.unwrap_or_else(|| match item {
            None => self.ttls.negative,
            Some(item) => self.entity_ttl(item).unwrap_or(self.ttls.item),
        });
        let ttl = self.ttls.jittered(base);
        if ttl.is_zero() {
            return None;
        }
        let now = self.clock.now();
        let mut expires = now + ttl;
        if let (Some(item), Some(info)) = (item, info) {
            if let Some(deadline) = info.ttl_deadline(item) {
                if deadline <= now {
                    return None;
                }
                expires = expires.min(deadline);
            }
        }
        Some((expires, expires - now))
    }

    fn entity_ttl(&self, item: &Item) -> Option<Duration> {
        if self.ttls.entity.is_empty() {
            return None;
        }
        match item.get(&self.ttls.entity_attribute)? {
            AttributeValue::S(entity) => self.ttls.entity.get(entity).copied(),
            _ => None,
        }
    }

    fn item_entry(
        &self,
        key_len: usize,
        item: Option<SharedItem>,
        expiry: (Duration, Duration),
        version: &ItemVersion,
    ) -> ItemEntry {
        let bytes = item.as_deref().map_or(0, item_size);
        ItemEntry {
            item,
            expires_at: expiry.0,
            ttl: expiry.1,
            weight: weight(key_len, bytes),
            table: (version.table_slot, version.table_gen),
            kill: (version.slot, version.kill),
            decoded: None,
        }
    }

    /// The entry for `key` if it may be served now.
    async fn fresh_item(&self, key: KeyRef<'_>) -> Option<ItemEntry> {
        let now = self.clock.now();
        self.items.get(&key).await.filter(|e| self.live(e, now))
    }

    /// What the cache knows of an item now: a fresh entry, or `Unknown`.
    async fn cached_image(&self, key: KeyRef<'_>) -> Option<Option<SharedItem>> {
        self.fresh_item(key).await.map(|e| e.item)
    }

    /// Installs what a read fetched, if no write to the key was in flight when the read began
    /// and none began since (then what it fetched is the item's latest state). Otherwise, if a
    /// write is in flight now, the entry is dropped: what this read returns may be newer than
    /// the entry (the write may have applied), and a later read must not see the older one.
    async fn install_fill(
        &self,
        fill: Fill,
        item: Option<SharedItem>,
        table: &str,
        ttl_override: Option<Duration>,
    ) {
        let Fill { key, slot, version } = fill;
        let info = self.known_table(table);
        let entry = self
            .item_expiry(item.as_deref(), info.as_deref(), ttl_override)
            .map(|exp| self.item_entry(key.bytes.len(), item, exp, &version));
        let mut rejected = false;
        self.items
            .entry(key)
            .and_compute_with(|existing| {
                // Runs under moka's per-key lock, serialized with every other install and write.
                let now = self.item_version(slot, version.table_slot);
                let op = if now == version && version.quiet() {
                    match entry {
                        Some(e) => Op::Put(e),
                        None if existing.is_some() => Op::Remove,
                        None => Op::Nop,
                    }
                } else {
                    rejected = true;
                    if now.quiet() {
                        Op::Nop
                    } else {
                        self.tracks.reads.bump(slot);
                        if existing.is_some() {
                            Op::Remove
                        } else {
                            Op::Nop
                        }
                    }
                };
                ready(op)
            })
            .await;
        if rejected {
            inc(&self.counters.rejected_stale_fills);
        }
    }

    /// Items a backend read returned without installing them (a query or scan page, a bypassed
    /// get): where a write to one is in flight, its entry is dropped before the read returns,
    /// for the reason [`Self::install_fill`] gives.
    async fn settle<I: std::borrow::Borrow<Item>>(&self, table: &str, items: &[I]) {
        if self.tracks.in_flight.load(Ordering::SeqCst) == 0 {
            return;
        }
        let Some(info) = self.known_table(table) else {
            // No write to the table has gone through this cache.
            return;
        };
        for item in items {
            let Some(key) = info.key_of(item.borrow()).and_then(|k| item_key(table, &k)) else {
                continue;
            };
            let key = self.hasher.lookup(key);
            let slot = self.tracks.versions.slot(key.hash);
            if pending(self.tracks.versions.load(slot)) == 0 {
                continue;
            }
            // Under the key's lock, like every install: a write that ended just before may
            // still be installing an image older than what this read returns.
            self.items
                .entry(key.to_key())
                .and_compute_with(|existing| {
                    let busy = pending(self.tracks.versions.load(slot)) > 0;
                    if busy {
                        self.tracks.reads.bump(slot);
                    }
                    ready(if busy && existing.is_some() {
                        Op::Remove
                    } else {
                        Op::Nop
                    })
                })
                .await;
        }
    }

    /// Registers a write (or a change made elsewhere) on its key's counter: `None` when the key
    /// cannot be cached (a non-scalar key attribute).
    fn register(&self, table: &str, key: &Item) -> Option<Ticket<'_>> {
        let key = self.hasher.lookup(item_key(table, key)?);
        let slot = self.tracks.versions.slot(key.hash);
        let table_slot = self.table_slot(table);
        self.tracks.in_flight.fetch_add(1, Ordering::SeqCst);
        let state = self.tracks.versions.begin(slot);
        Some(Ticket {
            tracks: &self.tracks,
            key: key.to_key(),
            slot,
            start: ItemVersion {
                state,
                ..self.item_version(slot, table_slot)
            },
            pages: Vec::new(),
            open: true,
        })
    }

    /// Registers a write before it is sent: on its key's counter, and on the generations of the
    /// partitions it may change (from the cached image, unless another write to the key is in
    /// flight, and `new` where the request tells it). Returns the ticket and the cached image.
    async fn begin_write(
        &self,
        info: &TableInfo,
        key: &Item,
        new: Image<'_>,
        touched: Option<&[String]>,
    ) -> Option<(Ticket<'_>, Option<Option<SharedItem>>)> {
        let mut ticket = self.register(&info.name, key)?;
        let cached = self.cached_image(ticket.key.as_ref()).await;
        let old = if pending(ticket.start.state) > 1 {
            Image::Unknown
        } else {
            image_of(&cached)
        };
        for hash in info.affected(key, old, new, touched) {
            let slot = self.tracks.generations.slot(hash);
            self.tracks.generations.begin(slot);
            ticket.pages.push(slot);
        }
        Some((ticket, cached))
    }

    /// True, under moka's lock of the key, when no other write to the key (or its counter)
    /// overlapped this one so far (none was in flight when it began, none began or ended since)
    /// and the epoch and table generation did not move: then its image is the item's latest
    /// state. The registration itself ends only after the entry is set (see
    /// [`Self::finish_write`]).
    fn is_clean(&self, ticket: &Ticket<'_>) -> bool {
        pending(ticket.start.state) == 1
            && self.item_version(ticket.slot, ticket.start.table_slot) == ticket.start
    }

    /// Completes a write: bumps the generations of what it `changed` (when it may have
    /// applied), then, under moka's lock of the key, installs `image` (`Some(new state)`: an
    /// item, or `None` for deleted) if no other write overlapped it, and drops the key
    /// otherwise or when `image` is `None` (the new state is not known).
    async fn finish_write(
        &self,
        mut ticket: Ticket<'_>,
        changed: Option<Changed<'_>>,
        image: Option<Option<SharedItem>>,
        info: Option<&TableInfo>,
        ttl_override: Option<Duration>,
    ) {
        let mut moved = Vec::new();
        if let (Some(info), Some(c)) = (info, changed) {
            // Another write racing this one makes the cached old image unreliable.
            let racing = pending(ticket.start.state) > 1
                || self.tracks.versions.load(ticket.slot) != ticket.start.state;
            let old = if racing { Image::Unknown } else { c.old };
            for hash in info.affected(c.key, old, c.new, c.touched) {
                let slot = self.tracks.generations.slot(hash);
                if !ticket.pages.contains(&slot) && !moved.contains(&slot) {
                    self.tracks.generations.bump(slot);
                }
                moved.push(slot);
                inc(&self.counters.generation_bumps);
            }
        }
        // Generations registered at the start that the write turned out not to change (an
        // update that stayed in its GSI partition) are taken back.
        ticket.end_pages_except(&moved);
        let entry = image.map(|image| {
            self.item_expiry(image.as_deref(), info, ttl_override)
                .map(|exp| self.item_entry(ticket.key.bytes.len(), image, exp, &ticket.start))
        });
        let mut installed = false;
        self.items
            .entry(ticket.key.clone())
            .and_compute_with(|existing| {
                let clean = self.is_clean(&ticket);
                let op = match entry {
                    Some(entry) if clean => {
                        installed = true;
                        match entry {
                            Some(e) => Op::Put(e),
                            None if existing.is_some() => Op::Remove,
                            None => Op::Nop,
                        }
                    }
                    _ if existing.is_some() => Op::Remove,
                    _ => Op::Nop,
                };
                ready(op)
            })
            .await;
        // Only now, with the entry set: until then the write counts as in flight, so a read
        // that meanwhile returns a newer state drops the entry (under the key's lock, after
        // this write's) rather than leave an older image to be served after it.
        ticket.end_item();
        inc(if installed {
            &self.counters.write_through_updates
        } else {
            &self.counters.invalidations
        });
    }

    /// Bumps the query generations a write to `key` invalidates (see [`TableInfo::affected`]).
    fn bump(
        &self,
        info: &TableInfo,
        key: &Item,
        old: Image<'_>,
        new: Image<'_>,
        touched: Option<&[String]>,
    ) {
        for hash in info.affected(key, old, new, touched) {
            self.bump_hash(hash);
        }
    }

    /// The generations a query page depends on, as they are now.
    fn snapshot(&self, hashes: &[u64]) -> Deps {
        let mut deps = Deps {
            epoch: self.epoch(),
            len: hashes.len(),
            slots: [(0, 0); 2],
        };
        for (i, h) in hashes.iter().enumerate() {
            let slot = self.tracks.generations.slot(*h);
            deps.slots[i] = (slot, self.tracks.generations.load(slot));
        }
        deps
    }

    /// A page read under `deps` may be served (or installed): no write to what it depends on
    /// was in flight then, and none began since.
    fn is_current(&self, deps: &Deps) -> bool {
        deps.epoch == self.epoch()
            && deps.slots[..deps.len]
                .iter()
                .all(|(slot, g)| pending(*g) == 0 && self.tracks.generations.load(*slot) == *g)
    }

    /// Handles a failed write: a definite failure changes nothing; a condition failure that
    /// returned the item installs it (it is the current state, unless another write raced);
    /// an unknown outcome invalidates the key and the partitions the write would have touched.
    async fn write_failed(
        &self,
        error: Error,
        ticket: Ticket<'_>,
        info: &TableInfo,
        changed: Changed<'_>,
        caller_wants_old: bool,
        ttl_override: Option<Duration>,
    ) -> Error {
        match error {
            Error::ConditionFailed { entity, item } => {
                match &item {
                    Some(current) => {
                        let image = Some(Some(Arc::new(current.clone())));
                        self.finish_write(ticket, None, image, Some(info), ttl_override)
                            .await;
                    }
                    None => ticket.abandon(),
                }
                Error::ConditionFailed {
                    entity,
                    item: if caller_wants_old { item } else { None },
                }
            }
            e if e.is_outcome_unknown() => {
                let old = self.cached_image(ticket.key.as_ref()).await;
                let changed = Changed {
                    old: image_of(&old),
                    ..changed
                };
                self.finish_write(ticket, Some(changed), None, Some(info), None)
                    .await;
                e
            }
            e => {
                ticket.abandon();
                e
            }
        }
    }

    // ---- reads ----

    /// A hit for [`CachedStore::get_shared`]: the entry's item (`None`: a tombstone) and its
    /// decoded copy if it has one; `None` on a miss or an uncacheable key.
    pub(crate) async fn shared_hit(
        &self,
        table: &str,
        attrs: &Item,
    ) -> Option<(Option<SharedItem>, Option<Decoded>)> {
        let key = self.hasher.lookup(item_key(table, attrs)?);
        let entry = self.items.get(&key.as_ref()).await?;
        if !self.live(&entry, self.clock.now()) {
            return None;
        }
        match &entry.item {
            Some(_) => self.counters.item.hits.add(key.hash),
            None => self.counters.item.negative_hits.add(key.hash),
        }
        Some((entry.item, entry.decoded))
    }

    /// Keeps `decoded` (`extra` bytes) beside the entry of `attrs`, if the entry still holds
    /// `item` and nothing decoded: a write or fill since replaced it, and then the decoded copy
    /// is of an older image and is not kept.
    pub(crate) async fn keep_decoded(
        &self,
        table: &str,
        attrs: &Item,
        item: &SharedItem,
        decoded: Decoded,
        extra: usize,
    ) {
        let Some(key) = item_key(table, attrs) else {
            return;
        };
        let key = self.hasher.lookup(key).to_key();
        self.items
            .entry(key)
            .and_compute_with(|existing| {
                let now = self.clock.now();
                let op = match existing.map(moka::Entry::into_value) {
                    Some(e)
                        if e.decoded.is_none()
                            && self.live(&e, now)
                            && e.item.as_ref().is_some_and(|i| Arc::ptr_eq(i, item)) =>
                    {
                        let extra = u32::try_from(extra).unwrap_or(u32::MAX);
                        Op::Put(ItemEntry {
                            ttl: e.expires_at - now,
                            weight: e.weight.saturating_add(extra),
                            decoded: Some(decoded),
                            ..e
                        })
                    }
                    _ => Op::Nop,
                };
                ready(op)
            })
            .await;
    }

    /// A get: answered here when a fresh entry serves it. Everything else (bypasses, misses)
    /// runs in its own boxed future, so the future of a hit stays small.
    async fn get(
        &self,
        request: GetRequest<'_>,
        ttl_override: Option<Duration>,
    ) -> Result<GetOutput> {
        let Some(key) = item_key(&request.table, &request.key) else {
            inc(&self.counters.item.bypasses);
            return self.inner.get_item(request).await;
        };
        let key = self.hasher.lookup(key);
        let servable = !request.consistent_read
            && request
                .projection
                .as_deref()
                .is_none_or(|p| p.iter().all(is_top_level));
        if servable {
            // moka's lookup future is boxed on its own: inline, it would make this future (boxed
            // by `Store`) larger than the allocator's fast size classes (about 1 KiB), and one
            // slow allocation costs more than two fast ones.
            let lookup = key.as_ref();
            if let Some(entry) = Box::pin(self.items.get(&lookup)).await {
                if self.live(&entry, self.clock.now()) {
                    let item = match entry.item {
                        Some(item) => {
                            self.counters.item.hits.add(key.hash);
                            Some(project(item, request.projection.as_deref()))
                        }
                        None => {
                            self.counters.item.negative_hits.add(key.hash);
                            None
                        }
                    };
                    return Ok(GetOutput {
                        item,
                        consumed_capacity: None,
                    });
                }
            }
        }
        Box::pin(self.get_uncached(key, request, ttl_override)).await
    }

    /// A get the cache cannot answer: a bypass, or a miss.
    async fn get_uncached(
        &self,
        key: Lookup,
        request: GetRequest<'_>,
        ttl_override: Option<Duration>,
    ) -> Result<GetOutput> {
        if let Some(p) = &request.projection {
            if !p.iter().all(is_top_level) || request.consistent_read {
                // Nested projections are the backend's to evaluate; a consistent projected read
                // does not fetch a whole item to refresh with.
                inc(&self.counters.item.bypasses);
                let table = request.table.clone().into_owned();
                let key_attrs = request.key.clone().into_owned();
                let out = self.inner.get_item(request).await?;
                if out.item.is_some() {
                    self.settle(&table, &[&key_attrs]).await;
                }
                return Ok(out);
            }
        }
        if request.consistent_read {
            inc(&self.counters.item.bypasses);
            let fill = self.fill(&request.table, &key);
            let table = request.table.clone().into_owned();
            let out = self.inner.get_item(request).await?;
            self.install_fill(fill, out.item.clone(), &table, ttl_override)
                .await;
            return Ok(out);
        }
        inc(&self.counters.item.misses);
        let GetRequest {
            table,
            key: item_key_attrs,
            projection,
            ..
        } = request;
        let item = self
            .load(key, &table, &item_key_attrs, ttl_override)
            .await?;
        Ok(GetOutput {
            item: item.map(|i| project(i, projection.as_deref())),
            consumed_capacity: None,
        })
    }

    /// Loads one item on a miss, sharing the load with concurrent misses on the same key.
    async fn load(
        &self,
        key: Lookup,
        table: &str,
        key_attrs: &Item,
        ttl_override: Option<Duration>,
    ) -> Result<Option<SharedItem>> {
        loop {
            let fill = self.fill(table, &key);
            // While a write to the key is in flight, a load may return an older state than one
            // another read has returned since it began: every such read moves the key's read
            // counter before it returns, so a caller joins a load only if none has.
            let version = fill
                .version
                .flight()
                .wrapping_add(self.tracks.reads.load(fill.slot));
            match self.flights.join(key.as_slice(), key.hash, version) {
                Role::Waiter(rx) => {
                    inc(&self.counters.coalesced_waiters);
                    match flight::wait(rx).await {
                        Some(Ok(item)) => return Ok(item),
                        Some(Err(e)) => return Err(e),
                        // The leader was cancelled: lead or join a new flight.
                        None => continue,
                    }
                }
                Role::Leader(leader) => {
                    // The previous flight may have installed the item since our lookup.
                    if let Some(entry) = self.fresh_item(key.as_ref()).await {
                        leader.finish(Ok(entry.item.clone()));
                        return Ok(entry.item);
                    }
                    inc(&self.counters.item.loads);
                    match self
                        .inner
                        .get_item(GetRequest::borrowed(table, key_attrs))
                        .await
                    {
                        Ok(out) => {
                            self.install_fill(fill, out.item.clone(), table, ttl_override)
                                .await;
                            leader.finish(Ok(out.item.clone()));
                            return Ok(out.item);
                        }
                        Err(e) => {
                            leader.finish(Err(e.clone()));
                            return Err(e);
                        }
                    }
                }
            }
        }
    }

    async fn batch_get_items(
        &self,
        request: BatchGetRequest,
        ttl_override: Option<Duration>,
    ) -> Result<BatchGetOutput> {
        let BatchGetRequest {
            keys,
            consistent_read,
        } = request;
        let mut hits: Vec<(String, SharedItem)> = Vec::new();
        // Keys to read, each with its cache key, counter and version when it can be cached.
        let mut to_read: Vec<(TableKey, Option<Fill>)> = Vec::new();
        let now = self.clock.now();
        for k in keys {
            let Some(key) = item_key(&k.table, &k.key) else {
                inc(&self.counters.item.bypasses);
                to_read.push((k, None));
                continue;
            };
            let key = self.hasher.lookup(key);
            if !consistent_read {
                if let Some(entry) = self
                    .items
                    .get(&key.as_ref())
                    .await
                    .filter(|e| self.live(e, now))
                {
                    match entry.item {
                        Some(item) => {
                            self.counters.item.hits.add(key.hash);
                            hits.push((k.table, item));
                        }
                        None => self.counters.item.negative_hits.add(key.hash),
                    }
                    continue;
                }
                inc(&self.counters.item.misses);
            } else {
                inc(&self.counters.item.bypasses);
            }
            let fill = self.fill(&k.table, &key);
            to_read.push((k, Some(fill)));
        }
        if to_read.is_empty() {
            return Ok(BatchGetOutput {
                items: hits,
                unprocessed_keys: Vec::new(),
            });
        }
        if !consistent_read {
            inc(&self.counters.item.loads);
        }
        let keys = to_read.iter().map(|(k, _)| k.clone()).collect();
        let mut out = self
            .inner
            .batch_get(BatchGetRequest {
                keys,
                consistent_read,
            })
            .await?;
        for (k, cache) in to_read {
            let Some(fill) = cache else {
                continue;
            };
            if out.unprocessed_keys.contains(&k) {
                continue;
            }
            let found = out
                .items
                .iter()
                .find(|(t, item)| {
                    *t == k.table && k.key.iter().all(|(n, v)| item.get(n) == Some(v))
                })
                .map(|(_, item)| item.clone());
            self.install_fill(fill, found, &k.table, ttl_override).await;
        }
        out.items.extend(hits);
        Ok(out)
    }

    async fn transact_get_items(
        &self,
        request: TransactGetRequest,
        ttl_override: Option<Duration>,
    ) -> Result<TransactGetOutput> {
        // Per get: its table, and its fill when it reads a whole item it can install; projected
        // gets keep their key, to settle what they return.
        let fills: Vec<_> = request
            .gets
            .iter()
            .map(|g| {
                inc(&self.counters.item.bypasses);
                let fill = (g.projection.is_none())
                    .then(|| item_key(&g.table, &g.key))
                    .flatten()
                    .map(|key| self.fill(&g.table, &self.hasher.lookup(key)));
                (g.table.clone(), fill, g.key.clone())
            })
            .collect();
        let out = self.inner.transact_get(request).await?;
        for ((table, fill, key), item) in fills.into_iter().zip(&out.items) {
            match fill {
                Some(fill) => {
                    self.install_fill(fill, item.clone(), &table, ttl_override)
                        .await;
                }
                None if item.is_some() => self.settle(&table, &[&key]).await,
                None => {}
            }
        }
        Ok(out)
    }

    async fn query_page(
        &self,
        request: QueryRequest,
        ttl_override: Option<Duration>,
    ) -> Result<Page> {
        let key = self.hasher.lookup(query_key(&request));
        let index = request.index.as_deref().unwrap_or("");
        let hashes = [
            partition_hash(
                &request.table,
                index,
                &request.key_condition.partition_value,
            ),
            index_hash(&request.table, index),
        ];
        let table = request.table.clone();
        let consistent = request.consistent_read;
        self.page(
            key,
            &hashes,
            consistent,
            &table,
            ttl_override,
            self.inner.query(request),
        )
        .await
    }

    async fn scan_page(
        &self,
        request: ScanRequest,
        ttl_override: Option<Duration>,
    ) -> Result<Page> {
        let key = self.hasher.lookup(scan_key(&request));
        let hashes = [scan_hash(&request.table)];
        let table = request.table.clone();
        let consistent = request.consistent_read;
        self.page(
            key,
            &hashes,
            consistent,
            &table,
            ttl_override,
            self.inner.scan(request),
        )
        .await
    }

    /// A query or scan page through the query cache. `fetch` is the backend call, only awaited
    /// on a miss, and shared by concurrent misses of the same page (single flight).
    async fn page(
        &self,
        key: Lookup,
        hashes: &[u64],
        consistent: bool,
        table: &str,
        ttl_override: Option<Duration>,
        fetch: impl std::future::Future<Output = Result<Page>>,
    ) -> Result<Page> {
        if consistent {
            inc(&self.counters.query.bypasses);
            // Taken before the backend call: a write completing after this point makes the page
            // unservable, whenever it is installed.
            let deps = self.snapshot(hashes);
            return self.fill_page(key, deps, table, ttl_override, fetch).await;
        }
        if let Some(page) = self.fresh_page(&key).await {
            self.counters.query.hits.add(key.hash);
            return Ok((*page).clone());
        }
        inc(&self.counters.query.misses);
        let mut fetch = Some(fetch);
        loop {
            // Before the backend call, as above; its generations are also the flight's version,
            // so a caller that arrives after a write does not join a load that began before it.
            let deps = self.snapshot(hashes);
            if !deps.quiet() {
                // A write to a partition the page depends on is in flight: nobody joins a load
                // begun now (see `load`), and the page is not installed.
                inc(&self.counters.query.loads);
                let Some(fetch) = fetch.take() else {
                    unreachable!("a caller fetches once at most")
                };
                return self.fill_page(key, deps, table, ttl_override, fetch).await;
            }
            match self
                .page_flights
                .join(key.as_slice(), key.hash, deps.version())
            {
                Role::Waiter(rx) => {
                    inc(&self.counters.coalesced_waiters);
                    match flight::wait(rx).await {
                        Some(Ok(page)) => return Ok((*page).clone()),
                        Some(Err(e)) => return Err(e),
                        // The leader was cancelled: lead or join a new flight.
                        None => continue,
                    }
                }
                Role::Leader(leader) => {
                    // The previous flight may have installed the page since our lookup.
                    if let Some(page) = self.fresh_page(&key).await {
                        leader.finish(Ok(page.clone()));
                        return Ok((*page).clone());
                    }
                    inc(&self.counters.query.loads);
                    // Every arm below returns, so a caller takes `fetch` once at most.
                    let Some(fetch) = fetch.take() else {
                        unreachable!("a caller leads one flight at most")
                    };
                    return match self.fill_page(key, deps, table, ttl_override, fetch).await {
                        Ok(page) => {
                            let page = Arc::new(page);
                            leader.finish(Ok(page.clone()));
                            Ok(Arc::unwrap_or_clone(page))
                        }
                        Err(e) => {
                            leader.finish(Err(e.clone()));
                            Err(e)
                        }
                    };
                }
            }
        }
    }

    /// The cached page at `key` if it is fresh and no write has touched what it depends on.
    async fn fresh_page(&self, key: &Lookup) -> Option<Arc<Page>> {
        let entry = self.pages.get(&key.as_ref()).await?;
        (entry.expires_at > self.clock.now() && self.is_current(&entry.deps)).then_some(entry.page)
    }

    /// Fetches a page and installs it unless a write since `deps` was taken makes it stale.
    async fn fill_page(
        &self,
        key: Lookup,
        deps: Deps,
        table: &str,
        ttl_override: Option<Duration>,
        fetch: impl std::future::Future<Output = Result<Page>>,
    ) -> Result<Page> {
        let page = fetch.await?;
        self.settle(table, &page.items).await;
        if !self.is_current(&deps) {
            inc(&self.counters.rejected_stale_fills);
            return Ok(page);
        }
        if let Some((expires_at, ttl)) = self.page_expiry(&page, table, ttl_override) {
            let bytes: usize = page.items.iter().map(|i| item_size(i) + 16).sum();
            let weight = weight(key.as_slice().len(), bytes);
            let entry = PageEntry {
                page: Arc::new(page.clone()),
                expires_at,
                ttl,
                weight,
                deps,
            };
            self.pages.insert(key.to_key(), entry).await;
        }
        Ok(page)
    }

    fn page_expiry(
        &self,
        page: &Page,
        table: &str,
        ttl_override: Option<Duration>,
    ) -> Option<(Duration, Duration)> {
        let base = match ttl_override {
            Some(ttl) => ttl,
            None => page
                .items
                .iter()
                .filter_map(|i| self.entity_ttl(i))
                .fold(self.ttls.query, Duration::min),
        };
        let ttl = self.ttls.jittered(base);
        if ttl.is_zero() {
            return None;
        }
        let now = self.clock.now();
        let mut expires = now + ttl;
        if let Some(info) = self.known_table(table) {
            for item in &page.items {
                if let Some(deadline) = info.ttl_deadline(item) {
                    expires = expires.min(deadline);
                }
            }
        }
        (expires > now).then(|| (expires, expires - now))
    }

    // ---- writes ----

    async fn put(
        &self,
        mut request: PutRequest,
        ttl_override: Option<Duration>,
    ) -> Result<WriteOutput> {
        let info = self.table_info(&request.table).await?;
        let new = Arc::new(request.item.clone());
        let begun = match info.key_of(&request.item) {
            Some(key) => self
                .begin_write(&info, &key, Image::Present(&new), None)
                .await
                .map(|(ticket, cached)| (key, ticket, cached)),
            None => None,
        };
        let Some((key, ticket, cached_old)) = begun else {
            // No key attributes: the backend rejects it; nothing to cache.
            return self.inner.put_item(request).await;
        };
        let asked = request.return_values;
        let wants_old = request.return_old_on_condition_failure;
        // ALL_OLD costs nothing extra and tells which index partitions the item leaves.
        let rewrite = matches!(asked, ReturnValues::None | ReturnValues::AllOld);
        if rewrite {
            request.return_values = ReturnValues::AllOld;
        }
        request.return_old_on_condition_failure = true;
        match self.inner.put_item(request).await {
            Ok(mut out) => {
                let attrs = out.attributes.take();
                let old = if rewrite {
                    Image::from_option(attrs.as_ref())
                } else {
                    image_of(&cached_old)
                };
                let changed = Changed {
                    key: &key,
                    old,
                    new: Image::Present(&new),
                    touched: None,
                };
                let image = Some(Some(new.clone()));
                self.finish_write(ticket, Some(changed), image, Some(&info), ttl_override)
                    .await;
                if !rewrite || asked == ReturnValues::AllOld {
                    out.attributes = attrs;
                }
                Ok(out)
            }
            Err(e) => {
                let changed = Changed {
                    key: &key,
                    old: Image::Unknown,
                    new: Image::Present(&new),
                    touched: None,
                };
                Err(self
                    .write_failed(e, ticket, &info, changed, wants_old, ttl_override)
                    .await)
            }
        }
    }

    async fn update(
        &self,
        mut request: UpdateRequest,
        ttl_override: Option<Duration>,
    ) -> Result<WriteOutput> {
        let info = self.table_info(&request.table).await?;
        let touched: Vec<String> = request
            .update
            .paths()
            .filter_map(|p| p.top().map(str::to_owned))
            .collect();
        let Some((ticket, cached_old)) = self
            .begin_write(&info, &request.key, Image::Unknown, Some(&touched))
            .await
        else {
            return self.inner.update_item(request).await;
        };
        let key = request.key.clone();
        let asked = request.return_values;
        let wants_old = request.return_old_on_condition_failure;
        // ALL_NEW gives the image to cache; a caller asking for old values gets them, and the
        // key is invalidated instead.
        let send = match asked {
            ReturnValues::None | ReturnValues::AllNew => ReturnValues::AllNew,
            other => other,
        };
        request.return_values = send;
        request.return_old_on_condition_failure = true;
        match self.inner.update_item(request).await {
            Ok(mut out) => {
                let mut attrs = out.attributes.take();
                let new_item = match send {
                    ReturnValues::AllNew => attrs.take().map(Arc::new),
                    _ => None,
                };
                let (old, new) = match send {
                    ReturnValues::AllNew => (
                        image_of(&cached_old),
                        new_item.as_deref().map_or(Image::Unknown, Image::Present),
                    ),
                    ReturnValues::AllOld => (Image::from_option(attrs.as_ref()), Image::Unknown),
                    _ => (image_of(&cached_old), Image::Unknown),
                };
                let changed = Changed {
                    key: &key,
                    old,
                    new,
                    touched: Some(&touched),
                };
                let image = new_item.clone().map(Some);
                self.finish_write(ticket, Some(changed), image, Some(&info), ttl_override)
                    .await;
                if asked == send {
                    out.attributes = match new_item {
                        Some(new) => Some(Arc::unwrap_or_clone(new)),
                        None => attrs,
                    };
                }
                Ok(out)
            }
            Err(e) => {
                let changed = Changed {
                    key: &key,
                    old: Image::Unknown,
                    new: Image::Unknown,
                    touched: Some(&touched),
                };
                Err(self
                    .write_failed(e, ticket, &info, changed, wants_old, ttl_override)
                    .await)
            }
        }
    }

    async fn delete(
        &self,
        mut request: DeleteRequest,
        ttl_override: Option<Duration>,
    ) -> Result<WriteOutput> {
        let info = self.table_info(&request.table).await?;
        let Some((ticket, cached_old)) = self
            .begin_write(&info, &request.key, Image::Absent, None)
            .await
        else {
            return self.inner.delete_item(request).await;
        };
        let key = request.key.clone();
        let asked = request.return_values;
        let wants_old = request.return_old_on_condition_failure;
        let rewrite = matches!(asked, ReturnValues::None | ReturnValues::AllOld);
        if rewrite {
            request.return_values = ReturnValues::AllOld;
        }
        request.return_old_on_condition_failure = true;
        match self.inner.delete_item(request).await {
            Ok(mut out) => {
                let attrs = out.attributes.take();
                let old = if rewrite {
                    Image::from_option(attrs.as_ref())
                } else {
                    image_of(&cached_old)
                };
                let changed = Changed {
                    key: &key,
                    old,
                    new: Image::Absent,
                    touched: None,
                };
                self.finish_write(ticket, Some(changed), Some(None), Some(&info), ttl_override)
                    .await;
                if !rewrite || asked == ReturnValues::AllOld {
                    out.attributes = attrs;
                }
                Ok(out)
            }
            Err(e) => {
                let changed = Changed {
                    key: &key,
                    old: Image::Unknown,
                    new: Image::Absent,
                    touched: None,
                };
                Err(self
                    .write_failed(e, ticket, &info, changed, wants_old, ttl_override)
                    .await)
            }
        }
    }

    async fn batch_write_items(
        &self,
        request: BatchWriteRequest,
        ttl_override: Option<Duration>,
    ) -> Result<BatchWriteOutput> {
        // Per write: the request, schema, key, new state, ticket and cached old image.
        let mut plan = Vec::with_capacity(request.writes.len());
        for w in &request.writes {
            let info = self.table_info(w.table()).await?;
            let (key, new) = match w {
                WriteRequest::Put { item, .. } => (info.key_of(item), Some(Arc::new(item.clone()))),
                WriteRequest::Delete { key, .. } => (Some(key.clone()), None),
            };
            let Some(key) = key else { continue };
            let Some((ticket, old)) = self
                .begin_write(&info, &key, Image::from_option(new.as_deref()), None)
                .await
            else {
                continue;
            };
            plan.push((w.clone(), info, key, new, ticket, old));
        }
        let result = self.inner.batch_write(request).await;
        for (w, info, key, new, ticket, old) in plan {
            let changed = Changed {
                key: &key,
                old: image_of(&old),
                new: Image::from_option(new.as_deref()),
                touched: None,
            };
            match &result {
                // Written: install the new state.
                Ok(out) if !out.unprocessed.contains(&w) => {
                    self.finish_write(
                        ticket,
                        Some(changed),
                        Some(new.clone()),
                        Some(&info),
                        ttl_override,
                    )
                    .await;
                }
                // Not written: nothing to bump, but the key is dropped rather than trusted.
                Ok(_) => {
                    self.finish_write(ticket, None, None, Some(&info), ttl_override)
                        .await;
                }
                Err(e) if e.is_outcome_unknown() => {
                    self.finish_write(ticket, Some(changed), None, Some(&info), ttl_override)
                        .await;
                }
                Err(_) => ticket.abandon(),
            }
        }
        result
    }

    async fn transact_write_items(
        &self,
        request: TransactWriteRequest,
        ttl_override: Option<Duration>,
    ) -> Result<()> {
        struct Action<'a> {
            info: Arc<TableInfo>,
            key: Item,
            ticket: Ticket<'a>,
            /// The new state when known: `Some(Some)` put, `Some(None)` delete, `None` update or
            /// condition check.
            new: Option<Option<SharedItem>>,
            touched: Option<Vec<String>>,
            writes: bool,
            old: Option<Option<SharedItem>>,
        }
        let mut plan = Vec::with_capacity(request.actions.len());
        for a in &request.actions {
            let info = self.table_info(a.table()).await?;
            let (key, new, touched, writes) = match a {
                TransactWriteItem::Put { item, .. } => (
                    info.key_of(item),
                    Some(Some(Arc::new(item.clone()))),
                    None,
                    true,
                ),
                TransactWriteItem::Update { key, update, .. } => (
                    Some(key.clone()),
                    None,
                    Some(
                        update
                            .paths()
                            .filter_map(|p| p.top().map(str::to_owned))
                            .collect::<Vec<_>>(),
                    ),
                    true,
                ),
                TransactWriteItem::Delete { key, .. } => {
                    (Some(key.clone()), Some(None), None, true)
                }
                TransactWriteItem::ConditionCheck { key, .. } => {
                    (Some(key.clone()), None, None, false)
                }
            };
            let Some(key) = key else { continue };
            let new_image = match &new {
                Some(n) => Image::from_option(n.as_deref()),
                None => Image::Unknown,
            };
            // A condition check changes nothing: it registers on its key only (its pages stay).
            let begun = if writes {
                self.begin_write(&info, &key, new_image, touched.as_deref())
                    .await
            } else {
                self.register(a.table(), &key).map(|t| (t, None))
            };
            let Some((ticket, old)) = begun else {
                continue;
            };
            plan.push(Action {
                info,
                key,
                ticket,
                new,
                touched,
                writes,
                old,
            });
        }
        let result = self.inner.transact_write(request).await;
        let (applied, unknown) = match &result {
            Ok(()) => (true, false),
            Err(e) => (false, e.is_outcome_unknown()),
        };
        let cancelled = matches!(result, Err(Error::TransactionCanceled { .. }));
        for a in plan {
            let changed = (a.writes && (applied || unknown)).then(|| Changed {
                key: &a.key,
                old: image_of(&a.old),
                new: match &a.new {
                    Some(n) => Image::from_option(n.as_deref()),
                    None => Image::Unknown,
                },
                touched: a.touched.as_deref(),
            });
            if applied && !a.writes {
                // A condition check that held: the item did not change.
                a.ticket.abandon();
            } else if applied {
                let image = a.new.clone();
                self.finish_write(a.ticket, changed, image, Some(&a.info), ttl_override)
                    .await;
            } else if unknown || cancelled {
                // Cancelled: the reasons may mean the cache disagrees with the table; unknown:
                // it may have applied. Either way the keys are dropped.
                self.finish_write(a.ticket, changed, None, Some(&a.info), ttl_override)
                    .await;
            } else {
                a.ticket.abandon();
            }
        }
        result
    }

    // ---- table administration: forwarded; the cache forgets what it knew ----

    async fn create_table_through(&self, definition: &TableDef) -> Result<()> {
        let out = self.inner.create_table(definition).await;
        self.forget_tables();
        out
    }

    async fn delete_table_through(&self, name: &str) -> Result<()> {
        let out = self.inner.delete_table(name).await;
        self.forget_tables();
        out
    }

    async fn describe_table_through(&self, name: &str) -> Result<TableDescription> {
        let description = self.inner.describe_table(name).await?;
        self.remember(name, &description.definition);
        Ok(description)
    }

    async fn update_ttl_through(&self, table: &str, attribute: &str, enabled: bool) -> Result<()> {
        let out = self.inner.update_ttl(table, attribute, enabled).await;
        self.forget_tables();
        out
    }
}

/// What a cache lookup tells of an item: `None` is unknown.
fn image_of(cached: &Option<Option<SharedItem>>) -> Image<'_> {
    match cached {
        Some(Some(item)) => Image::Present(item),
        Some(None) => Image::Absent,
        None => Image::Unknown,
    }
}

fn is_top_level(p: &Path) -> bool {
    matches!(p.0.as_slice(), [PathElement::Attr(_)])
}

/// The attributes of `item` named by a top-level projection (all of it when `None`).
fn project(item: SharedItem, projection: Option<&[Path]>) -> SharedItem {
    match projection {
        None => item,
        Some(paths) => Arc::new(
            item.iter()
                .filter(|(name, _)| paths.iter().any(|p| p.top() == Some(name.as_str())))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
    }
}

#[async_trait]
impl<S: Store> Store for CachedStore<S> {
    async fn get_item(&self, r: GetRequest<'_>) -> Result<GetOutput> {
        self.get(r, None).await
    }
    async fn put_item(&self, r: PutRequest) -> Result<WriteOutput> {
        self.put(r, None).await
    }
    async fn update_item(&self, r: UpdateRequest) -> Result<WriteOutput> {
        self.update(r, None).await
    }
    async fn delete_item(&self, r: DeleteRequest) -> Result<WriteOutput> {
        self.delete(r, None).await
    }
    async fn query(&self, r: QueryRequest) -> Result<Page> {
        self.query_page(r, None).await
    }
    async fn scan(&self, r: ScanRequest) -> Result<Page> {
        self.scan_page(r, None).await
    }
    async fn batch_get(&self, r: BatchGetRequest) -> Result<BatchGetOutput> {
        self.batch_get_items(r, None).await
    }
    async fn batch_write(&self, r: BatchWriteRequest) -> Result<BatchWriteOutput> {
        self.batch_write_items(r, None).await
    }
    async fn transact_get(&self, r: TransactGetRequest) -> Result<TransactGetOutput> {
        self.transact_get_items(r, None).await
    }
    async fn transact_write(&self, r: TransactWriteRequest) -> Result<()> {
        self.transact_write_items(r, None).await
    }
    async fn create_table(&self, d: &TableDef) -> Result<()> {
        self.create_table_through(d).await
    }
    async fn delete_table(&self, n: &str) -> Result<()> {
        self.delete_table_through(n).await
    }
    async fn describe_table(&self, n: &str) -> Result<TableDescription> {
        self.describe_table_through(n).await
    }
    async fn update_ttl(&self, t: &str, a: &str, e: bool) -> Result<()> {
        self.update_ttl_through(t, a, e).await
    }
}

#[async_trait]
impl<S: Store> Store for WithTtl<'_, S> {
    async fn get_item(&self, r: GetRequest<'_>) -> Result<GetOutput> {
        self.store.get(r, Some(self.ttl)).await
    }
    async fn put_item(&self, r: PutRequest) -> Result<WriteOutput> {
        self.store.put(r, Some(self.ttl)).await
    }
    async fn update_item(&self, r: UpdateRequest) -> Result<WriteOutput> {
        self.store.update(r, Some(self.ttl)).await
    }
    async fn delete_item(&self, r: DeleteRequest) -> Result<WriteOutput> {
        self.store.delete(r, Some(self.ttl)).await
    }
    async fn query(&self, r: QueryRequest) -> Result<Page> {
        self.store.query_page(r, Some(self.ttl)).await
    }
    async fn scan(&self, r: ScanRequest) -> Result<Page> {
        self.store.scan_page(r, Some(self.ttl)).await
    }
    async fn batch_get(&self, r: BatchGetRequest) -> Result<BatchGetOutput> {
        self.store.batch_get_items(r, Some(self.ttl)).await
    }
    async fn batch_write(&self, r: BatchWriteRequest) -> Result<BatchWriteOutput> {
        self.store.batch_write_items(r, Some(self.ttl)).await
    }
    async fn transact_get(&self, r: TransactGetRequest) -> Result<TransactGetOutput> {
        self.store.transact_get_items(r, Some(self.ttl)).await
    }
    async fn transact_write(&self, r: TransactWriteRequest) -> Result<()> {
        self.store.transact_write_items(r, Some(self.ttl)).await
    }
    async fn create_table(&self, d: &TableDef) -> Result<()> {
        self.store.create_table_through(d).await
    }
    async fn delete_table(&self, n: &str) -> Result<()> {
        self.store.delete_table_through(n).await
    }
    async fn describe_table(&self, n: &str) -> Result<TableDescription> {
        self.store.describe_table_through(n).await
    }
    async fn update_ttl(&self, t: &str, a: &str, e: bool) -> Result<()> {
        self.store.update_ttl_through(t, a, e).await
    }
}
