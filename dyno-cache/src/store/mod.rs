//! [`CachedStore`]: the item cache, the query cache, and the write-through rules that keep them
//! right.

use std::collections::HashMap;
use std::fmt;
use std::future::ready;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use dyno_core::error::{Error, Result};
use dyno_core::expr::{Path, PathElement};
use dyno_core::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, Reply, ReturnValues, ScanRequest, Store,
    TableDescription, TableKey, Tag, TransactGetOutput, TransactGetRequest, TransactWriteItem,
    TransactWriteOutput, TransactWriteRequest, UpdateRequest, UpdateTableRequest, WriteOutput,
    WriteRequest,
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
    index_hash, item_key, partition_hash, partition_parts_hash, query_key, scan_hash, scan_key,
    table_items_hash, CacheKey, KeyHasher, KeyRef, Lookup, PreHashed,
};
use crate::metrics::{inc, CacheMetrics, Counters};
use crate::schema::{Image, TableInfo};
use crate::stripes::{pending, Stripes};
use crate::typed::Decoded;

mod entry;
mod invalidate;
mod query;
mod read;
mod recent;
mod tracks;
mod write;

use self::entry::*;
pub(crate) use self::recent::Lease;
use self::recent::{Images, Leases, Seen, Touched};
use self::tracks::*;

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
    /// When each key counter and each generation last moved: item fills soon after read
    /// consistently, eventually consistent pages are checked against `images`.
    touched_items: Touched,
    touched_pages: Touched,
    /// How long after a change a replica may still serve the older image.
    replica_lag: Duration,
    /// The newest image seen per recently changed key: what eventually consistent pages are
    /// checked against.
    images: Images,
    /// Followed tables' leases (their lag budgets).
    leases: Arc<Leases>,
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

    /// The cached store a builder describes ([`CachedStoreBuilder::build`]).
    pub(crate) fn from_builder(builder: CachedStoreBuilder<S>) -> Self {
        let clock = builder.clock;
        let stripe_bits = builder.stripe_bits;
        let counters = Arc::new(Counters::default());
        let items = {
            let (counters, clock) = (counters.clone(), clock.clone());
            Cache::builder()
                .max_capacity(builder.item_bytes)
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
                .max_capacity(builder.query_bytes)
                .weigher(|_, v: &PageEntry| v.weight)
                .expire_after(EntryExpiry)
                .eviction_listener(move |_, v: PageEntry, cause| {
                    counters
                        .query
                        .removed(cause, v.expires_at <= clock.now(), v.weight);
                })
                .build_with_hasher(PreHashed)
        };
        let tables = builder
            .tables
            .iter()
            .map(|d| (d.name.clone(), Arc::new(TableInfo::from_def(d))))
            .collect();
        CachedStore {
            inner: builder.inner,
            items,
            pages,
            hasher: KeyHasher::default(),
            ttls: builder.ttls,
            clock,
            counters,
            tracks: Tracks {
                versions: Stripes::new(stripe_bits),
                generations: Stripes::new(stripe_bits),
                reads: Stripes::new(stripe_bits),
                kills: Stripes::new(stripe_bits),
                in_flight: AtomicU64::new(0),
            },
            touched_items: Touched::new(stripe_bits),
            touched_pages: Touched::new(stripe_bits),
            replica_lag: builder.replica_lag,
            images: Images::new(),
            leases: Leases::new(),
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

    /// The cache's clock now (what entries expire by).
    pub(crate) fn clock_now(&self) -> Duration {
        self.clock.now()
    }

    /// A lease on serving `table`'s entries, until `until` by the cache's clock (see
    /// [`crate::Follower`]'s lag budget).
    pub(crate) fn lease(&self, table: &str, until: Duration) -> Lease {
        Lease::take(&self.leases, self.table_slot(table), until)
    }

    /// A fill of the key at `slot` of the table at `table_slot`, made now, may read an older
    /// image than one this instance has applied or written: a change to the key (or a gap in
    /// its table's feed) is younger than the replica lag.
    fn recently_changed(&self, slot: usize, table_slot: usize) -> bool {
        let now = self.clock.now();
        self.touched_items.within(slot, now, self.replica_lag)
            || self.touched_pages.within(table_slot, now, self.replica_lag)
    }

    /// Remembers the newest image of `key` this instance has seen (`None`: the change's result
    /// is not known), while a replica may lag behind it.
    fn saw(&self, key: &CacheKey, table_slot: usize, image: Option<Option<SharedItem>>) {
        if self.replica_lag.is_zero() {
            return;
        }
        let seen = Seen {
            at: self.clock.now(),
            table_slot,
            image,
        };
        self.images.note(key.clone(), seen, self.replica_lag);
    }

    /// An eventually consistent query page of `table` whose key condition fixes `parts` agrees
    /// with every image this instance has seen within the replica lag: an item of the page
    /// that changed is there in its newest image (in the attributes the page holds), and no
    /// changed item whose newest image is in the queried partition is missing. A change whose
    /// result is not known cannot be checked: then it does not agree.
    fn page_agrees(&self, table: &str, parts: &[(String, AttributeValue)], page: &Page) -> bool {
        let recent = self
            .images
            .recent(self.table_slot(table), self.clock.now(), self.replica_lag);
        if recent.is_empty() {
            return true;
        }
        let Some(info) = self.known_table(table) else {
            return false;
        };
        let in_page: HashMap<CacheKey, &SharedItem> = page
            .items
            .iter()
            .filter_map(|i| {
                let key = item_key(table, &info.key_of(i)?)?;
                Some((self.hasher.lookup(key).to_key(), i))
            })
            .collect();
        recent
            .iter()
            .all(|(key, seen)| match (&seen.image, in_page.get(key)) {
                (None, _) => false,
                (Some(Some(newest)), Some(got)) => {
                    got.iter().all(|(a, v)| newest.get(a) == Some(v))
                }
                (Some(None), Some(_)) => false,
                (Some(Some(newest)), None) => !parts.iter().all(|(a, v)| newest.get(a) == Some(v)),
                (Some(None), None) => true,
            })
    }

    /// A page depending on the generations at `deps` may hold an older image than one this
    /// instance has applied or written.
    fn recently_moved(&self, deps: &Deps) -> bool {
        let now = self.clock.now();
        deps.slots[..deps.len]
            .iter()
            .any(|(slot, _)| self.touched_pages.within(*slot, now, self.replica_lag))
    }

    /// The generations of `hashes` moved recently (see [`Self::recently_moved`]).
    fn recently_moved_hashes(&self, hashes: &[u64]) -> bool {
        let now = self.clock.now();
        hashes.iter().any(|h| {
            self.touched_pages
                .within(self.tracks.generations.slot(*h), now, self.replica_lag)
        })
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

    /// UpdateTable changes the table's indexes: what the cache knows of them is forgotten (writes
    /// must bump a new index's generations) and every cached page is dropped, those of a removed
    /// index with the rest, whatever the outcome (a failed request may have been applied).
    async fn update_table_through(&self, request: UpdateTableRequest) -> Result<TableDescription> {
        let out = self.inner.update_table(request).await;
        self.forget_tables();
        out
    }
}

impl<S: Store> Store for CachedStore<S> {
    fn get_item<'a>(&'a self, r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        Reply::new(self.get(r, None))
    }
    fn put_item(&self, r: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(self.put(r, None))
    }
    fn update_item(&self, r: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(self.update(r, None))
    }
    fn delete_item(&self, r: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(self.delete(r, None))
    }
    fn query(&self, r: QueryRequest) -> Reply<'_, Result<Page>> {
        Reply::new(self.query_page(r, None))
    }
    fn scan(&self, r: ScanRequest) -> Reply<'_, Result<Page>> {
        Reply::new(self.scan_page(r, None))
    }
    fn batch_get(&self, r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        Reply::new(self.batch_get_items(r, None))
    }
    fn batch_write(&self, r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        Reply::new(self.batch_write_items(r, None))
    }
    fn transact_get(&self, r: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        Reply::new(self.transact_get_items(r, None))
    }
    fn transact_write(&self, r: TransactWriteRequest) -> Reply<'_, Result<TransactWriteOutput>> {
        Reply::new(self.transact_write_items(r, None))
    }
    fn create_table<'a>(&'a self, d: &'a TableDef) -> Reply<'a, Result<()>> {
        Reply::new(self.create_table_through(d))
    }
    fn delete_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<()>> {
        Reply::new(self.delete_table_through(n))
    }
    fn describe_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<TableDescription>> {
        Reply::new(self.describe_table_through(n))
    }
    fn update_ttl<'a>(&'a self, t: &'a str, a: &'a str, e: bool) -> Reply<'a, Result<()>> {
        Reply::new(self.update_ttl_through(t, a, e))
    }
    fn update_table(&self, r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        Reply::new(self.update_table_through(r))
    }
    /// The inner store's: a page read through the cache continues with a cursor the inner
    /// store (or another instance sharing its key) accepts, and the other way round.
    fn cursor_key(&self) -> &dyno_core::ops::CursorKey {
        self.inner.cursor_key()
    }
}

impl<S: Store> Store for WithTtl<'_, S> {
    fn get_item<'a>(&'a self, r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        Reply::new(self.store.get(r, Some(self.ttl)))
    }
    fn put_item(&self, r: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(self.store.put(r, Some(self.ttl)))
    }
    fn update_item(&self, r: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(self.store.update(r, Some(self.ttl)))
    }
    fn delete_item(&self, r: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(self.store.delete(r, Some(self.ttl)))
    }
    fn query(&self, r: QueryRequest) -> Reply<'_, Result<Page>> {
        Reply::new(self.store.query_page(r, Some(self.ttl)))
    }
    fn scan(&self, r: ScanRequest) -> Reply<'_, Result<Page>> {
        Reply::new(self.store.scan_page(r, Some(self.ttl)))
    }
    fn batch_get(&self, r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        Reply::new(self.store.batch_get_items(r, Some(self.ttl)))
    }
    fn batch_write(&self, r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        Reply::new(self.store.batch_write_items(r, Some(self.ttl)))
    }
    fn transact_get(&self, r: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        Reply::new(self.store.transact_get_items(r, Some(self.ttl)))
    }
    fn transact_write(&self, r: TransactWriteRequest) -> Reply<'_, Result<TransactWriteOutput>> {
        Reply::new(self.store.transact_write_items(r, Some(self.ttl)))
    }
    fn create_table<'a>(&'a self, d: &'a TableDef) -> Reply<'a, Result<()>> {
        Reply::new(self.store.create_table_through(d))
    }
    fn delete_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<()>> {
        Reply::new(self.store.delete_table_through(n))
    }
    fn describe_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<TableDescription>> {
        Reply::new(self.store.describe_table_through(n))
    }
    fn update_ttl<'a>(&'a self, t: &'a str, a: &'a str, e: bool) -> Reply<'a, Result<()>> {
        Reply::new(self.store.update_ttl_through(t, a, e))
    }
    fn update_table(&self, r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        Reply::new(self.store.update_table_through(r))
    }
    fn cursor_key(&self) -> &dyno_core::ops::CursorKey {
        self.store.inner.cursor_key()
    }
}

/// What the pieces' unit tests share: a cache over a MemoryStore table `Tab` (PK `PK`, SK `SK`,
/// index `Gsi` on `GPK`, TTL attribute `ttl`) with a manual clock, and items of it.
#[cfg(test)]
mod test_support {
    use dyno_core::store::PutRequest;
    use dyno_core::table::IndexDef;
    use dyno_core::MemoryStore;

    use super::*;
    use crate::ManualClock;

    pub(super) const T: &str = "Tab";

    pub(super) fn def() -> TableDef {
        TableDef::new(T, "PK", Some("SK"))
            .global_index(IndexDef::new("Gsi", "GPK", None))
            .ttl("ttl")
    }

    pub(super) async fn cache() -> (CachedStore<MemoryStore>, ManualClock) {
        let memory = MemoryStore::new();
        memory.create_table(&def()).await.unwrap();
        let clock = ManualClock::new();
        let store = CachedStore::builder(memory)
            .clock(clock.clone())
            .table(def())
            .build();
        (store, clock)
    }

    pub(super) fn key(pk: &str) -> Item {
        Item::from([
            ("PK".to_owned(), AttributeValue::S(pk.into())),
            ("SK".to_owned(), AttributeValue::S("s".into())),
        ])
    }

    pub(super) fn item(pk: &str, v: &str) -> Item {
        let mut item = key(pk);
        item.insert("v".into(), AttributeValue::S(v.into()));
        item
    }

    pub(super) fn put(item: Item) -> PutRequest {
        PutRequest::new(T, item)
    }

    /// The cache's entry for `pk` now, servable or not.
    pub(super) async fn entry(
        store: &CachedStore<MemoryStore>,
        pk: &str,
    ) -> Option<super::entry::ItemEntry> {
        let key = store.hasher.lookup(item_key(T, &key(pk)).unwrap());
        store.items.get(&key.as_ref()).await
    }
}
