//! `MemoryStore`: an embedded engine with DynamoDB's semantics, the default store for tests,
//! examples and local development (see [`MemoryStore`]).
//!
//! Layout: `schema` (key schemas and indexes), `key_encoding` and `key_bytes` (order-preserving
//! key bytes), `data` (one table's maps, changed together), `points` (point lookups), `plan`
//! (Query and Scan validated into a plan) and `read` (a plan's page read under the lock),
//! `batch`, `txn`, `update_table`, `stream` (the change log and `MemoryFeed`), `store` (`Store`
//! for `MemoryStore`) and `throttle` (partition limits). What an expression means on an item
//! (conditions, updates, projections, number normalization) is [`crate::expr::eval`], shared
//! with the rest of the crate.

mod batch;
mod data;
mod key_bytes;
mod key_encoding;
mod plan;
mod points;
mod read;
mod schema;
mod store;
mod stream;
mod throttle;
mod txn;
mod update_table;

#[cfg(test)]
mod capacity_tests;
#[cfg(test)]
mod differential_tests;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use self::data::{IndexKeys, TableData};
use self::key_bytes::KeyBytes;
use self::schema::{IndexSchema, KeyValues, Schema};
pub(crate) use self::stream::{ChangeCause, StreamLog};
pub use self::stream::{MemoryFeed, StreamRetention};
use crate::error::{Error, Result};
use crate::expr::eval;
use crate::expr::Condition;
use crate::feed::StartingPosition;
use crate::store::Capacity;
use crate::store::{read_units, write_units};
// The engine's tests (`use super::*`) call it through `Store`.
#[cfg(test)]
use crate::store::Store;
use crate::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, ReturnValues, ScanRequest, TableDescription,
    TransactGetOutput, TransactGetRequest, TransactWriteOutput, TransactWriteRequest,
    UpdateRequest, UpdateTableRequest, WriteOutput,
};
use crate::table::TableDef;
use crate::value::{item_size, Item, SharedItem, MAX_ITEM_SIZE};

/// The clock a [`MemoryStore`] reads for TTL and idempotency tokens.
type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

/// The in-process DynamoDB engine: the default store, for tests, examples and local development.
///
/// It is not a mock. It validates keys and items as DynamoDB does (key types, empty keys, the
/// 2048/1024-byte key limits, 400 KB items, 38-digit numbers, sets), keeps items in DynamoDB's
/// order (S and B bytewise, N numerically), maintains global and local secondary indexes (sparse,
/// projected, type-checked) on every write, evaluates conditions, filters and update actions,
/// pages queries and scans with `Limit`, `ExclusiveStartKey` and the 1 MB rule, runs transactions
/// all or nothing with a reason per action and idempotency tokens, and enforces batch limits. The
/// conformance suite (tests/tests/fidelity/conformance.rs) runs the same scenarios on it, dynalite and
/// moto.
///
/// **Concurrency.** `Send + Sync`; share it in an `Arc`. Each table sits behind one lock holding
/// its items and every index, changed in one critical section: a reader never sees a half-written
/// item or an index entry without its item. Reads hand out the stored `Arc<Item>` without copying
/// it. Transactions and batch writes lock the tables they touch in name order.
///
/// **TTL.** Items whose TTL attribute (a number of epoch seconds) is in the past are hidden from
/// every read and treated as absent by every write at once (DynamoDB deletes them up to days
/// later and shows them until then): expired items disappear immediately from reads, and are
/// removed on the next write to their table or on [`MemoryStore::sweep_expired`]. Time comes from
/// an injectable clock ([`MemoryStore::with_clock`]), so tests move time without sleeping.
///
/// **Durability.** None: everything a `MemoryStore` holds is gone when it is dropped or the
/// process exits.
///
/// ```
/// # futures::executor::block_on(async {
/// use dyno_core::store::{GetRequest, PutRequest, Store};
/// use dyno_core::{AttributeValue, Item, MemoryStore, TableDef};
///
/// let store = MemoryStore::new();
/// store.create_table(&TableDef::new("Shop", "PK", Some("SK"))).await?;
/// let item = Item::from([
///     ("PK".to_owned(), AttributeValue::S("USER#1".into())),
///     ("SK".to_owned(), AttributeValue::S("PROFILE".into())),
/// ]);
/// store.put_item(PutRequest::new("Shop", item.clone())).await?;
/// let got = store.get_item(GetRequest::borrowed("Shop", &item)).await?;
/// assert_eq!(got.item.as_deref(), Some(&item));
/// # Ok::<(), dyno_core::Error>(()) }).unwrap();
/// ```
pub struct MemoryStore {
    tables: RwLock<Catalog>,
    clock: Clock,
    /// Idempotency tokens of successful transactions: token to (time, request).
    tokens: Mutex<txn::Tokens>,
    /// How long the streams of tables created from now on keep their records.
    stream_retention: StreamRetention,
    /// Partition limits, when enforced ([`MemoryStore::with_partition_limits`]).
    throttle: Option<throttle::Throttle>,
    /// The key its pagination cursors are sealed with; `None`: the process's default.
    cursor_key: Option<crate::store::CursorKey>,
}

/// Table name to table. Every request looks its table up here, so names are hashed with FNV-1a
/// ([`crate::hash`]: a few instructions per byte) rather than SipHash: table names come from the
/// application, not from untrusted input.
type Catalog = HashMap<String, Arc<TableState>, BuildHasherDefault<crate::hash::Fnv1a>>;

/// A table: its immutable schema and its data behind one lock.
#[derive(Debug)]
struct TableState {
    schema: Schema,
    data: RwLock<TableData>,
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tables = read_lock(&self.tables);
        let mut names: Vec<&String> = tables.keys().collect();
        names.sort();
        f.debug_struct("MemoryStore")
            .field("tables", &names)
            .finish_non_exhaustive()
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl MemoryStore {
    /// An empty engine with no tables, on the system clock.
    pub fn new() -> Self {
        MemoryStore::with_clock(Arc::new(SystemTime::now))
    }

    /// An empty engine reading time from `clock` (TTL expiry, idempotency-token windows), so
    /// tests can move time without sleeping.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use std::time::{Duration, SystemTime};
    /// use dyno_core::MemoryStore;
    ///
    /// let now = Arc::new(Mutex::new(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000)));
    /// let clock = Arc::clone(&now);
    /// let store = MemoryStore::with_clock(Arc::new(move || *clock.lock().unwrap()));
    /// *now.lock().unwrap() += Duration::from_secs(60); // an hour of TTL passes in no time
    /// # drop(store);
    /// ```
    pub fn with_clock(clock: Arc<dyn Fn() -> SystemTime + Send + Sync>) -> Self {
        MemoryStore {
            tables: RwLock::default(),
            clock,
            tokens: Mutex::default(),
            stream_retention: StreamRetention::default(),
            throttle: None,
            cursor_key: None,
        }
    }

    /// Seals this store's pagination cursors with `key` instead of the process's default (see
    /// [`CursorKey`](crate::store::CursorKey)): stores of several processes given one key accept
    /// each other's cursors.
    #[must_use]
    pub fn with_cursor_key(mut self, key: crate::store::CursorKey) -> Self {
        self.cursor_key = Some(key);
        self
    }

    /// Sets how long the streams of tables created from now on keep their records (by default
    /// 24 hours, as on DynamoDB, and at most 100,000 records per table).
    #[must_use]
    pub fn with_stream_retention(mut self, retention: StreamRetention) -> Self {
        self.stream_retention = retention;
        self
    }

    /// A reader of the changes to `table`, which must have been created with a stream
    /// specification ([`TableDef::stream`]); see [`crate::feed`]. Records cover every write
    /// (puts, updates, deletes, batch writes, transactions) and TTL deletions (marked with
    /// DynamoDB's service identity), in commit order.
    pub fn change_feed(&self, table: &str, start: StartingPosition) -> Result<MemoryFeed> {
        let state = self.table(table)?;
        let log = read_lock(&state.data).stream.clone();
        let log = log.ok_or_else(|| {
            Error::validation(format!(
                "table {table} has no stream: create it with a stream specification"
            ))
        })?;
        MemoryFeed::open(log, start)
    }

    /// Removes every expired item from every table now (reads hide them anyway; this frees their
    /// memory).
    pub fn sweep_expired(&self) {
        let now = self.now();
        let tables: Vec<Arc<TableState>> = read_lock(&self.tables).values().cloned().collect();
        for table in tables {
            write_lock(&table.data).purge_expired(&table.schema, now);
        }
    }

    /// The current time in epoch seconds.
    fn now(&self) -> f64 {
        match (self.clock)().duration_since(UNIX_EPOCH) {
            Ok(d) => d.as_secs_f64(),
            Err(e) => -e.duration().as_secs_f64(),
        }
    }

    /// A table's data locked for writing, with its expired items purged (reading the clock only
    /// when some item has an expiry).
    fn write_data<'t>(&self, table: &'t TableState) -> RwLockWriteGuard<'t, TableData> {
        let mut data = write_lock(&table.data);
        if data.has_expiring() {
            data.purge_expired(&table.schema, self.now());
        }
        data
    }

    /// The named table, or DynamoDB's `ResourceNotFoundException`; the catalog stays read-locked
    /// while the answer lives (see [`TableRef`]).
    fn table(&self, name: &str) -> Result<TableRef<'_>> {
        let catalog = read_lock(&self.tables);
        let state = catalog.get(name).cloned().ok_or_else(|| not_found(name))?;
        Ok(TableRef {
            state,
            _catalog: catalog,
        })
    }

    /// The named tables, each once, sorted by name: the order in which they are locked. The
    /// catalog stays read-locked while the answer lives (see [`TableRef`]).
    fn tables_in_order<'n>(&self, names: impl IntoIterator<Item = &'n str>) -> Result<Tables<'_>> {
        let mut names: Vec<&str> = names.into_iter().collect();
        names.sort_unstable();
        names.dedup();
        let catalog = read_lock(&self.tables);
        let list = names
            .into_iter()
            .map(|n| {
                catalog
                    .get(n)
                    .map(|t| (n.to_owned(), Arc::clone(t)))
                    .ok_or_else(|| not_found(n))
            })
            .collect::<Result<_>>()?;
        Ok(Tables {
            list,
            _catalog: catalog,
        })
    }
}

/// A table a request runs on, holding the catalog's read lock for as long as the request uses
/// it. UpdateTable replaces a table's schema and index data under the catalog's write lock, so a
/// request sees the table entirely before or entirely after an index is added or removed: never
/// items prepared for one schema stored under another. Requests never await while holding one,
/// and take the catalog once each (a second read lock behind a waiting writer would deadlock).
struct TableRef<'s> {
    state: Arc<TableState>,
    _catalog: RwLockReadGuard<'s, Catalog>,
}

impl std::ops::Deref for TableRef<'_> {
    type Target = TableState;
    fn deref(&self) -> &TableState {
        &self.state
    }
}

/// The tables of a multi-table request (batch, transaction), sorted by name, holding the
/// catalog's read lock as [`TableRef`] does.
struct Tables<'s> {
    list: Vec<(String, Arc<TableState>)>,
    _catalog: RwLockReadGuard<'s, Catalog>,
}

impl<'t> IntoIterator for &'t Tables<'_> {
    type Item = &'t (String, Arc<TableState>);
    type IntoIter = std::slice::Iter<'t, (String, Arc<TableState>)>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl std::ops::Deref for Tables<'_> {
    type Target = [(String, Arc<TableState>)];
    fn deref(&self) -> &Self::Target {
        &self.list
    }
}

fn not_found(table: &str) -> Error {
    Error::ResourceNotFound {
        message: format!("Requested resource not found: Table: {table} not found"),
    }
}

/// Reads through a poisoned lock: every change to the data happens in one call that does not
/// panic half-way, so the data behind a poisoned lock is still consistent.
fn read_lock<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn write_lock<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

/// An item validated for writing: values normalized, key and index keys computed, size checked.
#[derive(Debug)]
struct Prepared {
    pk: KeyBytes,
    sk: KeyBytes,
    item: Item,
    size: usize,
    index_keys: IndexKeys,
}

/// Validates an item being written in one pass over it: every value checked and its numbers
/// normalized in place, the size summed by DynamoDB's formula, the key attributes (table and
/// indexes) picked out for the key computations that follow.
fn scan_item<'a>(
    schema: &Schema,
    item: &'a mut Item,
    layer: eval::Layer,
) -> Result<(usize, KeyValues<'a>)> {
    let mut size = 0;
    let mut keys = KeyValues::new(schema);
    for (name, value) in item.iter_mut() {
        size += name.len() + eval::validate_attribute(name, value, layer)?;
        keys.offer(schema, name, value);
    }
    Ok((size, keys))
}

/// Validates a whole item as PutItem does (BatchWriteItem and transactions on their `layer`).
///
/// An item over 400 KB is [`Error::ItemTooLarge`], as `DynamoStore` reports it before sending.
fn prepare_put(schema: &Schema, item: Item, layer: eval::Layer) -> Result<Prepared> {
    prepare_put_staged(schema, item, layer).map_err(|(_, e)| e)
}

/// Which of DynamoDB's checks of an item being written refused it, in the order it makes them
/// over a whole request (dynoxide's): reading the request (a number, a NULL that is not true),
/// then each value (sets, depth), then the key and what follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Read,
    Value,
    Key,
}

/// [`prepare_put`], saying which check refused the item.
fn prepare_put_staged(
    schema: &Schema,
    mut item: Item,
    layer: eval::Layer,
) -> std::result::Result<Prepared, (Stage, Error)> {
    let (size, keys) = match scan_item(schema, &mut item, layer) {
        Ok(scanned) => scanned,
        // What reading the request refuses (a number, a NULL that is not true) is named before
        // a value's other faults, in whichever attribute it is (dynoxide's order).
        Err(e) => {
            return Err(match eval::read_error(&item, layer) {
                Some(read) => (Stage::Read, read),
                None => (Stage::Value, e),
            })
        }
    };
    let key_fault = |e| (Stage::Key, e);
    let (pk, sk) = schema.item_key(&keys).map_err(key_fault)?;
    if size > MAX_ITEM_SIZE {
        return Err(key_fault(Error::ItemTooLarge {
            entity: None,
            size,
            limit: MAX_ITEM_SIZE,
        }));
    }
    let index_keys = schema.index_keys(&keys, false).map_err(key_fault)?;
    debug_assert_eq!(size, item_size(&item));
    Ok(Prepared {
        pk,
        sk,
        item,
        size,
        index_keys,
    })
}

/// The checks DynamoDB makes on a request's expressions before it looks at the table: their
/// literal values, named by placeholder where DynamoDB does ([`eval::check_values_from`]: the
/// first is `:v{first_placeholder}`, as a Query's key condition takes the first ones), the
/// update (paths, literal operands, overlaps), then the condition or filter (operand types,
/// paths).
fn check_expressions(
    update: Option<&crate::expr::Update>,
    condition: Option<&Condition>,
    first_placeholder: usize,
    clause: eval::Clause,
) -> Result<()> {
    eval::check_values_from(first_placeholder, update, condition, eval::Layer::Current)?;
    if let Some(update) = update {
        eval::check_update(update)?;
    }
    if let Some(condition) = condition {
        eval::check_condition(condition, clause)?;
    }
    Ok(())
}

/// Evaluates a write's condition on the current item.
fn check_condition(
    condition: Option<&Condition>,
    old: Option<&SharedItem>,
    return_old: bool,
) -> Result<()> {
    let Some(condition) = condition else {
        return Ok(());
    };
    if eval::eval_condition(condition, old.map(|o| &**o))? {
        Ok(())
    } else {
        Err(Error::ConditionFailed {
            entity: None,
            item: if return_old {
                old.map(|o| (**o).clone())
            } else {
                None
            },
        })
    }
}

/// Applies an update to the current item (or the key alone), returning the new item, validated
/// (an updated item over 400 KB is DynamoDB's validation error: only the service can tell), and
/// what the update touched and where its writes landed.
fn updated_item(
    schema: &Schema,
    key: &Item,
    old: Option<&SharedItem>,
    update: &crate::expr::Update,
    pk: &KeyBytes,
    sk: &KeyBytes,
    layer: eval::Layer,
) -> Result<(Prepared, eval::Applied)> {
    let mut item = match old {
        Some(o) => (**o).clone(),
        None => key.clone(),
    };
    let applied = eval::apply_update(update, &schema.key_names(), &mut item)?;
    let (size, keys) = scan_item(schema, &mut item, layer)?;
    if size > MAX_ITEM_SIZE {
        return Err(Error::validation(format!(
            "Item size to update has exceeded the maximum allowed size ({size} bytes, limit {MAX_ITEM_SIZE})"
        )));
    }
    let index_keys = schema.index_keys(&keys, true)?;
    debug_assert_eq!(size, item_size(&item));
    let prepared = Prepared {
        pk: pk.clone(),
        sk: sk.clone(),
        item,
        size,
        index_keys,
    };
    Ok((prepared, applied))
}

fn only_none_or_all_old(rv: ReturnValues, operation: &str) -> Result<()> {
    match rv {
        ReturnValues::None | ReturnValues::AllOld => Ok(()),
        other => Err(Error::validation(format!(
            "ReturnValues can only be ALL_OLD or NONE for {operation}, found {other:?}"
        ))),
    }
}

fn owned(item: SharedItem) -> Item {
    Arc::try_unwrap(item).unwrap_or_else(|shared| (*shared).clone())
}

/// What a read of `units` consumed: the table's share, or the index's when it read an index.
fn read_capacity(index: Option<&IndexSchema>, units: f64) -> Capacity {
    match index {
        None => Capacity::table(units),
        Some(index) => {
            let mut capacity = Capacity::table(0.0);
            capacity.add_index(&index.name, index.local, units);
            capacity
        }
    }
}

/// One side of an item write (the item before or after it), as its capacity reads it: what the
/// write already knows, so that nothing is measured or looked up twice.
#[derive(Clone, Copy)]
struct Side<'a> {
    item: &'a Item,
    /// Its size by DynamoDB's formula.
    size: usize,
    /// Its key in each index, `None` where it is not in the index (see [`IndexKeys`]).
    index_keys: &'a [Option<(KeyBytes, KeyBytes)>],
}

impl<'a> Side<'a> {
    /// The side of a prepared item.
    fn prepared(item: &'a Item, prepared_size: usize, index_keys: &'a IndexKeys) -> Self {
        Side {
            item,
            size: prepared_size,
            index_keys,
        }
    }

    /// This side with its key in index `at`, when it is in that index.
    fn in_index(side: Option<Self>, at: usize) -> Option<(Self, &'a (KeyBytes, KeyBytes))> {
        let side = side?;
        Some((side, side.index_keys[at].as_ref()?))
    }
}

/// [`write_capacity_of`] for items alone (batch writes and transactions): each one's size and
/// index keys are computed from it, as a stored item's were when it was written or backfilled
/// ([`Schema::backfill_key`] gives the key of an item every write has validated).
fn write_capacity(
    schema: &Schema,
    old: Option<&Item>,
    new: Option<&Item>,
    factor: f64,
) -> Capacity {
    let keys = |item: &Item| -> IndexKeys {
        (0..schema.indexes.len())
            .map(|at| schema.backfill_key(at, item))
            .collect()
    };
    let (old_keys, new_keys) = (old.map(keys), new.map(keys));
    fn side<'a>(item: Option<&'a Item>, keys: Option<&'a IndexKeys>) -> Option<Side<'a>> {
        let item = item?;
        Some(Side {
            item,
            size: item_size(item),
            index_keys: keys?,
        })
    }
    write_capacity_of(
        schema,
        side(old, old_keys.as_ref()),
        side(new, new_keys.as_ref()),
        factor,
    )
}

/// The write capacity of one item write, as DynamoDB charges it (Developer Guide, "Capacity unit
/// consumption for write operations" and "Provisioned throughput considerations for global
/// secondary indexes"): the table's share, one unit per started KB of the larger of the item
/// before and after the write (a delete of nothing costs one), times `factor` (2 in a
/// transaction); then each index's share, at its single-write cost also in a transaction
/// (dynoxide's capture against DynamoDB, which reports the index shares of a transactional write
/// undoubled): one write of the entry an item enters or leaves it with, a delete and a put when
/// the write changes the entry's index key, one write of the larger entry when it changes what
/// the index holds, none otherwise (and the index is then absent from the breakdown).
fn write_capacity_of(
    schema: &Schema,
    old: Option<Side<'_>>,
    new: Option<Side<'_>>,
    factor: f64,
) -> Capacity {
    let units = write_units;
    let (old_size, new_size) = (old.map_or(0, |o| o.size), new.map_or(0, |n| n.size));
    let mut capacity = Capacity::table(factor * units(old_size.max(new_size)));
    // Whether the whole item is unchanged, for the indexes projecting everything: compared
    // once however many of them there are, and not at all when the sizes differ (items
    // DynamoDB compares equal have equal sizes: numbers count their significant digits, sets
    // their members).
    let mut whole_unchanged = None;
    for (at, index) in schema.indexes.iter().enumerate() {
        let size = |s: Side<'_>| schema.entry_size(index, s.item, s.size);
        let charged = match (Side::in_index(old, at), Side::in_index(new, at)) {
            (None, None) => continue,
            (None, Some((n, _))) => units(size(n)),
            (Some((o, _)), None) => units(size(o)),
            // Moved to another index key: a delete and a put.
            (Some((o, from)), Some((n, to))) if from != to => units(size(o)) + units(size(n)),
            (Some((o, _)), Some((n, _))) => {
                // Unchanged as DynamoDB compares (sets regardless of their order): no write.
                let unchanged = match index.projected {
                    None => *whole_unchanged.get_or_insert_with(|| {
                        o.size == n.size && schema.same_entry(index, o.item, n.item)
                    }),
                    Some(_) => schema.same_entry(index, o.item, n.item),
                };
                if unchanged {
                    continue;
                }
                units(size(o).max(size(n)))
            }
        };
        capacity.add_index(&index.name, index.local, charged);
    }
    capacity
}

/// What UPDATED_OLD / UPDATED_NEW return (API reference, UpdateItem, ReturnValues: "only the
/// updated attributes, as they appeared before" / "as they appear after the UpdateItem
/// operation"): `paths` as they are in `item` (nested paths stay nested: `SET m.a = :v` returns
/// `{m: {a: ..}}`), or nothing when none of them is present. For UPDATED_OLD the paths are every
/// path the update names, in the old item (a list element SET past the end did not exist
/// before: nothing); for UPDATED_NEW those it wrote, where they landed in the new item
/// ([`eval::Applied::new_paths`]: `SET l[3]` on a list of one returns `l[1]`).
fn updated_paths(
    item: &Item,
    applied: &eval::Applied,
    paths: Vec<crate::expr::Path>,
) -> Option<Item> {
    if applied.touched.is_empty() {
        return None;
    }
    let out = eval::project(item, &paths);
    (!out.is_empty()).then_some(out)
}

/// The engine's requests; `Store` for `MemoryStore` (in `throttle`) calls them, through the
/// partition limits when they are enforced.
impl throttle::Engine for MemoryStore {
    fn get_item(&self, request: GetRequest<'_>) -> Result<GetOutput> {
        let table = self.table(&request.table)?;
        let (pk, sk) = table.schema.key(&request.key)?;
        plan::validate_projection(request.projection.as_deref())?;
        let (item, size) = read_lock(&table.data)
            .live(&pk, &sk, || self.now())
            .map_or((None, 0), |e| (Some(Arc::clone(&e.item)), e.size));
        let item = match (item, &request.projection) {
            (Some(item), Some(paths)) => Some(Arc::new(eval::project(&item, paths))),
            (item, _) => item,
        };
        Ok(GetOutput {
            item,
            consumed_capacity: Some(Capacity::table(read_units(size, request.consistent_read))),
        })
    }

    fn put_item(&self, request: PutRequest) -> Result<WriteOutput> {
        only_none_or_all_old(request.return_values, "PutItem")?;
        eval::check_empty_names(&request.item, None, request.condition.as_ref())?;
        check_expressions(None, request.condition.as_ref(), 0, eval::Clause::Condition)
            .map_err(|e| eval::item_first(&request.item, request.condition.as_ref(), e))?;
        let table = self.table(&request.table)?;
        let schema = &table.schema;
        let prepared = prepare_put(schema, request.item, eval::Layer::Current)?;
        let (size, index_keys) = (prepared.size, prepared.index_keys.clone());
        let mut data = self.write_data(&table);
        let (new, old) = data.put(schema, prepared, |old| {
            check_condition(
                request.condition.as_ref(),
                old,
                request.return_old_on_condition_failure,
            )
        })?;
        drop(data);
        let consumed_capacity = Some(write_capacity_of(
            schema,
            old.as_ref().map(data::Stored::side),
            Some(Side::prepared(&new, size, &index_keys)),
            1.0,
        ));
        let attributes = match request.return_values {
            ReturnValues::AllOld => old.map(|o| owned(o.entry.item)),
            _ => None,
        };
        Ok(WriteOutput {
            attributes,
            consumed_capacity,
        })
    }

    fn update_item(&self, request: UpdateRequest) -> Result<WriteOutput> {
        eval::check_empty_names(
            &request.key,
            Some(&request.update),
            request.condition.as_ref(),
        )?;
        check_expressions(
            Some(&request.update),
            request.condition.as_ref(),
            0,
            eval::Clause::Condition,
        )?;
        let table = self.table(&request.table)?;
        let schema = &table.schema;
        let (pk, sk) = schema.key(&request.key)?;
        let mut data = self.write_data(&table);
        let old = data.get(&pk, &sk).map(|e| Arc::clone(&e.item));
        check_condition(
            request.condition.as_ref(),
            old.as_ref(),
            request.return_old_on_condition_failure,
        )?;
        // The updated item's values are checked in the older layer's words (dynoxide): all its
        // request's literals were checked before, in the current layer's; what is left to find
        // is a set deeper in a literal that landed in the item.
        let (prepared, applied) = updated_item(
            schema,
            &request.key,
            old.as_ref(),
            &request.update,
            &pk,
            &sk,
            eval::Layer::Older,
        )?;
        let (size, index_keys) = (prepared.size, prepared.index_keys.clone());
        let (new, stored) = data.replace_stored(schema, prepared);
        drop(data);
        let consumed_capacity = Some(write_capacity_of(
            schema,
            stored.as_ref().map(data::Stored::side),
            Some(Side::prepared(&new, size, &index_keys)),
            1.0,
        ));
        drop(stored);
        let attributes = match request.return_values {
            ReturnValues::None => None,
            ReturnValues::AllOld => old.map(owned),
            ReturnValues::AllNew => Some(owned(new)),
            ReturnValues::UpdatedOld => old.and_then(|o| {
                updated_paths(&o, &applied, request.update.paths().cloned().collect())
            }),
            ReturnValues::UpdatedNew => {
                updated_paths(&new, &applied, applied.new_paths(&request.update))
            }
        };
        Ok(WriteOutput {
            attributes,
            consumed_capacity,
        })
    }

    fn delete_item(&self, request: DeleteRequest) -> Result<WriteOutput> {
        only_none_or_all_old(request.return_values, "DeleteItem")?;
        eval::check_empty_names(&request.key, None, request.condition.as_ref())?;
        check_expressions(None, request.condition.as_ref(), 0, eval::Clause::Condition)?;
        let table = self.table(&request.table)?;
        let schema = &table.schema;
        let (pk, sk) = schema.key(&request.key)?;
        let mut data = self.write_data(&table);
        let old = data.get(&pk, &sk).map(|e| Arc::clone(&e.item));
        check_condition(
            request.condition.as_ref(),
            old.as_ref(),
            request.return_old_on_condition_failure,
        )?;
        let stored = data.take(schema, &pk, &sk);
        drop(data);
        let consumed_capacity = Some(write_capacity_of(
            schema,
            stored.as_ref().map(data::Stored::side),
            None,
            1.0,
        ));
        drop(stored);
        let attributes = match request.return_values {
            ReturnValues::AllOld => old.map(owned),
            _ => None,
        };
        Ok(WriteOutput {
            attributes,
            consumed_capacity,
        })
    }

    fn query(&self, request: QueryRequest) -> Result<Page> {
        // The key condition's values take the first placeholders.
        eval::check_query_values(&request.key_condition, request.filter.as_ref())?;
        let key_values = eval::key_condition_values(&request.key_condition).len();
        check_expressions(
            None,
            request.filter.as_ref(),
            key_values,
            eval::Clause::Filter,
        )?;
        plan::validate_select(request.count_only, request.projection.as_deref())?;
        let table = self.table(&request.table)?;
        let plan = plan::plan_query(&table.schema, &request)?;
        let now = self.now();
        let data = read_lock(&table.data);
        let mut page = read::run_query(&table.schema, &data, &plan, &request, now)?;
        // A page that read nothing still costs the minimum.
        page.consumed_capacity.get_or_insert_with(|| {
            read_capacity(plan.index(), read_units(0, request.consistent_read))
        });
        Ok(page)
    }

    fn scan(&self, request: ScanRequest) -> Result<Page> {
        check_expressions(None, request.filter.as_ref(), 0, eval::Clause::Filter)?;
        plan::validate_select(request.count_only, request.projection.as_deref())?;
        let table = self.table(&request.table)?;
        let plan = plan::plan_scan(&table.schema, &request)?;
        let now = self.now();
        let data = read_lock(&table.data);
        let mut page = read::run_scan(&table.schema, &data, &plan, &request, now)?;
        page.consumed_capacity.get_or_insert_with(|| {
            read_capacity(plan.index(), read_units(0, request.consistent_read))
        });
        Ok(page)
    }

    fn batch_get(&self, request: BatchGetRequest) -> Result<BatchGetOutput> {
        batch::batch_get(self, request)
    }

    fn batch_write(&self, request: BatchWriteRequest) -> Result<BatchWriteOutput> {
        batch::batch_write(self, request)
    }

    fn transact_get(&self, request: TransactGetRequest) -> Result<TransactGetOutput> {
        txn::transact_get(self, request)
    }

    fn transact_write(&self, request: TransactWriteRequest) -> Result<TransactWriteOutput> {
        txn::transact_write(self, request)
    }

    fn create_table(&self, definition: &TableDef) -> Result<()> {
        let schema = Schema::new(definition)?;
        if let Some(ttl) = &definition.ttl_attribute {
            validate_ttl_attribute(ttl)?;
        }
        let mut tables = write_lock(&self.tables);
        if tables.contains_key(&definition.name) {
            return Err(Error::ResourceInUse {
                message: format!("Table already exists: {}", definition.name),
            });
        }
        let mut data = TableData::new(&schema);
        data.stream =
            StreamLog::for_table(definition, Arc::clone(&self.clock), self.stream_retention);
        let data = RwLock::new(data);
        tables.insert(
            definition.name.clone(),
            Arc::new(TableState { schema, data }),
        );
        Ok(())
    }

    fn delete_table(&self, name: &str) -> Result<()> {
        let table = write_lock(&self.tables)
            .remove(name)
            .ok_or_else(|| not_found(name))?;
        if let Some(log) = &read_lock(&table.data).stream {
            log.close();
        }
        Ok(())
    }

    fn describe_table(&self, name: &str) -> Result<TableDescription> {
        let table = self.table(name)?;
        let now = self.now();
        let data = read_lock(&table.data);
        let mut definition = table.schema.def.clone();
        definition.ttl_attribute = data.ttl_attribute.clone();
        let index_status = definition
            .global_indexes
            .iter()
            .map(|i| (i.name.clone(), crate::store::IndexStatus::Active))
            .collect();
        Ok(TableDescription {
            definition,
            item_count: Some(data.live_count(now) as u64),
            index_status,
        })
    }

    fn update_table(&self, request: UpdateTableRequest) -> Result<TableDescription> {
        update_table::update_table(self, request)
    }

    fn update_ttl(&self, table: &str, attribute: &str, enabled: bool) -> Result<()> {
        validate_ttl_attribute(attribute)?;
        let table = self.table(table)?;
        let mut data = write_lock(&table.data);
        match (&data.ttl_attribute, enabled) {
            (Some(current), true) => Err(Error::validation(format!(
                "TimeToLive is already enabled (on attribute {current}); disable it before enabling it on {attribute}"
            ))),
            (None, false) => Err(Error::validation("TimeToLive is already disabled")),
            (Some(current), false) if current != attribute => Err(Error::validation(format!(
                "TimeToLive is enabled on attribute {current}, not {attribute}; disable it with its attribute name"
            ))),
            (_, enabled) => {
                data.set_ttl(enabled.then(|| attribute.to_owned()));
                Ok(())
            }
        }
    }
}

fn validate_ttl_attribute(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > 255 {
        return Err(Error::validation(format!(
            "1 validation error detected: the TTL attribute name must have length between 1 and 255, found {}",
            name.len()
        )));
    }
    Ok(())
}
