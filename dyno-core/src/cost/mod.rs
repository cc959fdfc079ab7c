//! Capacity and cost per access pattern, measured: [`Metered`], a store wrapper that attributes
//! every call's consumed capacity to its access pattern and to its partition while real
//! application code runs, and a [`Report`] with the monthly cost at stated request rates.
//!
//! # What is measured
//!
//! Every call goes to the wrapped store ([`MemoryStore`](crate::MemoryStore),
//! [`DynamoStore`](crate::DynamoStore), a cache...), and the wrapper adds up the consumed
//! capacity the answer carries: DynamoStore asks DynamoDB for it on every request
//! (`ReturnConsumedCapacity = INDEXES`), and MemoryStore computes it with DynamoDB's rules
//! (compared with dynoxide's, per index, by the fidelity tests). The figures are DynamoDB's own,
//! summed: the total, the table's share and each index's, read units for reads and write units
//! for writes (transactional calls in rows of their own, at their doubled rates).
//!
//! # Access patterns
//!
//! A typed get or query (`Order::get`, `Order::gsi1`, `Task::by_status`) carries the entity
//! whose code made it, and is that entity's pattern when the entity is registered with
//! [`Metered::entity`]. A raw request names a table, an index and keys, not an entity. The
//! wrapper recognises the registered entities by their key templates: an item or key by its
//! primary key (or its entity-type attribute), a query by its partition value matched against
//! each entity's partition template in the index queried, narrowed by the sort-key condition to
//! the entities whose sort-key prefix it can select. A pattern is a row per table, set of
//! entities, [`Operation`] and index: `Order get`, `Order query GSI1`, `Order+User query` (a
//! collection), `Order+Product transact write`. What matches no registered entity lands in the
//! table's `(unattributed)` row, and a scan in the table's own row. On a multi-attribute index
//! the keys are the items' own attributes, with no prefix to tell the entities apart: a raw
//! query there, or a collection read of its members, is reported under every entity mapped
//! onto the index (`Task+Bug query ByStatus`). An index query can carry the
//! name of the access pattern it serves instead of the index's (see [`Metered::query_names`]).
//!
//! # Partitions
//!
//! Each call's units are also charged to the partitions it addressed: a get, put, update or
//! delete to the item's partition key value, a query to the partition it reads (of the table or
//! of the index), a write's index units to the index partition the item goes to when the
//! request says it (a put's item, an update that sets the index key), else to the index's
//! `(not in the request)` row. A batch or a transaction reports one figure per table, which is
//! shared evenly among its items. [`Report::hottest`] lists the partitions by units.
//!
//! # Cost
//!
//! [`Report::cost`] prices each pattern at the request rate the caller states for it, on demand
//! and provisioned, with [`Prices`] (defaults: AWS's published us-east-1 prices, see there).
//!
//! # What it costs
//!
//! A call through the wrapper adds to counters of its thread's own: no lock and no
//! read-modify-write on the way (a thread finds its counters in a thread-local list and adds
//! with plain loads and stores; the report adds every thread's up, those of threads that have
//! ended included), and no strings built for a call to a partition seen before (names are
//! numbered once; a thread's partitions are in one table, found by a short hash of the space
//! and the key). A get or a query finds its pattern's and partition's counters before it is
//! sent, while it can still read its key, and adds to them when the answer comes; a typed call
//! skips matching key templates. No future is allocated either: the wrapper looks at the inner
//! store's [`Reply`] in place ([`Reply::peek`]), so over MemoryStore, which answers at once, a
//! metered call allocates nothing. (A reply that answers later, from a server, is recorded
//! when it completes, by the partition's key, copied as the call is made.)
//!
//! The `metering` benchmark times MemoryStore calls with and without the wrapper side by side
//! (`cargo bench -p dyno-tests --bench metering -- paired`). On a quiet two-core machine (load
//! average 1.2-1.4, December 2026; medians of 7 runs, each pairing 41 rounds) it added 43 ns
//! to a typed get of 1.01 µs (+4.3%, runs from +2.5% to +5.6%; the goal is 5%), 128 ns to a
//! typed index query of 2.1 µs (+6.1%) and 87 ns to an untyped get of 264 ns (+33%; matching
//! its key against the registered templates is most of the difference). Callgrind counts
//! about 740 instructions per metered typed get besides the store's; cachegrind puts much of
//! the time in instruction-cache misses (about 20 per call in the wrapper's code, in a typed
//! get whose code does not fit in the cache), which is why the search for a thread's counters
//! is one function shared by every call rather than inlined into each.
//!
//! # What it does not see
//!
//! A call that fails (a condition that does not hold, a throttled request) is counted in
//! `failed`, without units: DynamoDB charges a failed conditional write, but the error does not
//! carry its capacity. A store that reports no capacity is counted in `unreported`, and the
//! means per call leave those calls out: over a cache (`Metered::new(CachedStore::new(..))`)
//! the hits are `unreported`. To count what reaches DynamoDB through a cache, meter under it
//! and keep a handle for the report: `let m = Arc::new(Metered::new(store));
//! CachedStore::new(m.clone())` (`Arc<Metered<_>>` is a store too).
//!
//! # Example
//!
//! ```
//! use dyno_core::cost::{Metered, Prices, Rates};
//! use dyno_core::prelude::*;
//! use dyno_core::{Entity, Table};
//!
//! #[derive(Table)]
//! #[dyno(name = "Shop", pk = "PK", sk = "SK")]
//! #[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
//! pub struct Shop;
//!
//! #[derive(Debug, Clone, PartialEq, Entity)]
//! #[dyno(table = Shop, pk = "PRODUCT#{id}", sk = "PRODUCT")]
//! #[dyno(index(GSI1, pk = "CATEGORY#{category}", sk = "{id}"))]
//! pub struct Product { pub id: String, pub category: String }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> dyno_core::Result<()> {
//! let store = Metered::new(MemoryStore::new()).entity::<Product>();
//! store.create_table(Shop::definition()).await?;
//! for id in ["p1", "p2"] {
//!     Product { id: id.into(), category: "books".into() }.put().send(&store).await?;
//! }
//! let books = Product::gsi1("books").all(&store).await?;
//! assert_eq!(books.len(), 2);
//!
//! let report = store.report();
//! let puts = report.pattern("Product put").expect("measured");
//! assert_eq!((puts.calls, puts.mean_write_units()), (2, 2.0)); // table + GSI1
//! assert_eq!(puts.write_amplification(), Some(1.0));
//! let query = report.pattern("Product query GSI1").expect("measured");
//! assert_eq!((query.items_read, query.items_returned), (2, 2));
//!
//! let cost = report.cost(
//!     &Rates::new().rate("Product put", 10.0).rate("Product query GSI1", 100.0),
//!     &Prices::default(),
//! )?;
//! println!("{report}\n{cost}");
//! # Ok(())
//! # }
//! ```

mod model;
mod price;
mod report;
mod tally;

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};

use self::model::Model;
pub use self::price::HOURS_PER_MONTH;
pub use self::price::{CostReport, CostRow, Prices, Rates};
pub use self::report::{PartitionReport, PatternReport, Report, Totals};
use self::tally::{Local, Measured, Name, PatternKey, Plan, Shared, Slot, Space, Touch, Touches};
use crate::entity::Entity;
use crate::error::Result;
use crate::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, Reply, ScanRequest, Store, TableDescription,
    TransactGetOutput, TransactGetRequest, TransactWriteItem, TransactWriteOutput,
    TransactWriteRequest, UpdateRequest, UpdateTableRequest, WriteOutput, WriteRequest,
};
use crate::table::TableDef;
use crate::value::Item;

/// The kind of call an access pattern is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Operation {
    /// GetItem.
    Get,
    /// PutItem.
    Put,
    /// UpdateItem.
    Update,
    /// DeleteItem.
    Delete,
    /// Query.
    Query,
    /// Scan.
    Scan,
    /// BatchGetItem.
    BatchGet,
    /// BatchWriteItem.
    BatchWrite,
    /// TransactGetItems.
    TransactGet,
    /// TransactWriteItems.
    TransactWrite,
}

impl Operation {
    /// The name the report uses (`get`, `batch write`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Get => "get",
            Operation::Put => "put",
            Operation::Update => "update",
            Operation::Delete => "delete",
            Operation::Query => "query",
            Operation::Scan => "scan",
            Operation::BatchGet => "batch get",
            Operation::BatchWrite => "batch write",
            Operation::TransactGet => "transact get",
            Operation::TransactWrite => "transact write",
        }
    }

    /// Reads items (its units are read units).
    pub fn is_read(self) -> bool {
        matches!(
            self,
            Operation::Get
                | Operation::Query
                | Operation::Scan
                | Operation::BatchGet
                | Operation::TransactGet
        )
    }

    /// A transaction (its units are twice a standard call's).
    pub fn is_transactional(self) -> bool {
        matches!(self, Operation::TransactGet | Operation::TransactWrite)
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Names an index query's access pattern: `(entity type, index)` to the pattern's name, or
/// `None` to show the index's name.
type QueryNamesFn = dyn Fn(&str, &str) -> Option<String> + Send + Sync;
type QueryNames = Arc<QueryNamesFn>;

/// The bit that marks a name numbered by the wrapper (a table or index no registered entity
/// declares) rather than by the model.
const OTHER_NAME: Name = 1 << 31;

/// The number of the next [`Metered`] made: what a thread's counters are filed under.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A thread's counters of one wrapper it made calls through.
struct Entry {
    /// The wrapper's number.
    id: u64,
    shared: Weak<Shared>,
    local: Local,
}

impl Drop for Entry {
    /// The thread ends (or the wrapper was dropped): its counts are folded into the wrapper's
    /// retired tally, for the report.
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.retire(&self.local);
        }
    }
}

thread_local! {
    /// A thread's counters of each wrapper it made calls through, the one last used first. A
    /// wrapper's entry goes when the thread ends, or when another wrapper's is added after the
    /// first was dropped.
    static LOCALS: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// Every table and index name a report shows: the model's, then the wrapper's others.
pub(super) struct Names<'m> {
    model: &'m [String],
    other: Vec<Box<str>>,
}

impl Names<'_> {
    pub(super) fn get(&self, id: Name) -> &str {
        if id & OTHER_NAME != 0 {
            &self.other[(id & !OTHER_NAME) as usize]
        } else {
            &self.model[id as usize - 1]
        }
    }
}

/// A [`Store`] that attributes every call's consumed capacity to its access pattern and its
/// partition. See the [module](self).
pub struct Metered<S> {
    inner: S,
    model: Model,
    query_names: Option<QueryNames>,
    /// Names of tables and indexes that no registered entity declares, as calls bring them.
    other_names: RwLock<Vec<Box<str>>>,
    /// This wrapper's number, unique in the process.
    id: u64,
    /// Every thread's counters.
    shared: Arc<Shared>,
    /// The counters of calls made where a thread's own cannot be reached (from a thread-local
    /// value's destructor, as the thread ends).
    fallback: Mutex<Option<Local>>,
}

impl<S: fmt::Debug> fmt::Debug for Metered<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Metered")
            .field("inner", &self.inner)
            .field(
                "entities",
                &self
                    .model
                    .entities
                    .iter()
                    .map(|e| e.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl<S> Metered<S> {
    /// Meters `inner`. Register the application's entities with [`Metered::entity`]: what
    /// matches none of them is reported as unattributed.
    pub fn new(inner: S) -> Self {
        Metered {
            inner,
            model: Model::default(),
            query_names: None,
            other_names: RwLock::new(Vec::new()),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            shared: Arc::default(),
            fallback: Mutex::new(None),
        }
    }

    /// Recognises `E`'s items, keys and queries by its key templates and index mappings, and
    /// attributes `E`'s typed gets and queries (`Order::get`, `Task::by_status`) to `E` without
    /// matching anything: on an index that several entities share without key prefixes (a
    /// multi-attribute index), a raw query is reported under every entity mapped onto it
    /// (`Task+Bug query ByStatus`, in registration order), a typed one under its own. A query
    /// on an index mapping named after its access pattern (`query = "by_status"`) is reported
    /// under that name (`Order query by_status`).
    ///
    /// # Panics
    ///
    /// When more than 127 entities are registered.
    #[must_use]
    pub fn entity<E: Entity>(mut self) -> Self {
        self.model.add::<E>();
        self
    }

    /// Names index queries by the access pattern they serve: `names(entity type, index)` gives
    /// the name shown instead of the index's (`Order query by_status` for `Order query GSI1`),
    /// or `None` to keep the name the entity's mapping gives (its `query = ".."`, else the
    /// index's). For hand-written entities, or to rename. Applied when the report is made.
    #[must_use]
    pub fn query_names(
        mut self,
        names: impl Fn(&str, &str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.query_names = Some(Arc::new(names));
        self
    }

    /// The wrapped store.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// What was measured so far.
    pub fn report(&self) -> Report {
        let all = self
            .shared
            .registry
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .sum();
        let names = Names {
            model: &self.model.names,
            other: self
                .other_names
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
        };
        Report::new(&all, &names, &self.model, self.query_names.as_deref())
    }

    /// Forgets what was measured (after a warm-up, say), on every thread. A call that runs
    /// while the reset does may be counted or not.
    pub fn reset(&self) {
        self.shared.reset();
    }

    /// Runs `f` on this thread's counters, found without a lock: the thread's first wrapper
    /// is this one, as long as a thread uses one wrapper at a time. Where the thread's own
    /// cannot be reached (in a thread-local value's destructor, as the thread ends), on the
    /// wrapper's fallback counters, under a lock.
    fn with_local<R>(&self, f: impl FnOnce(&mut Local, &Shared) -> R) -> R {
        let (mut f, mut out) = (Some(f), None);
        on_local(
            self.id,
            &self.shared,
            &self.fallback,
            &mut |local, shared| {
                out = f.take().map(|f| f(local, shared));
            },
        );
        out.expect("on_local runs its function once")
    }

    /// Adds a call to this thread's counters.
    fn record(&self, plan: &Plan<'_>, measured: Measured<'_>, items: (u64, u64)) {
        let name = |n: &str| self.name(n);
        self.with_local(|local, shared| local.record(shared, plan, measured, items, &name));
    }

    /// Finds the counters of a call to one partition before it is sent ([`Local::slot`]).
    fn slot(&self, key: PatternKey, space: Space, partition: &str) -> Slot {
        self.with_local(|local, shared| local.slot(shared, key, space, partition))
    }

    /// `reply`, the answer of the call found at `slot`, added to the counters when it comes:
    /// at once when it is ready (the counters found before the call, nothing copied), else
    /// when the future completes, perhaps on another thread, by the partition's key (copied
    /// now).
    fn answer<'s, T: Capacitied + Send + 's>(
        &'s self,
        reply: Reply<'s, Result<T>>,
        slot: Slot,
        items: fn(&Result<T>) -> (u64, u64),
    ) -> Reply<'s, Result<T>>
    where
        S: Sync,
    {
        if let Some(out) = reply.peek() {
            let name = |n: &str| self.name(n);
            self.with_local(|local, shared| {
                local.add(shared, slot, measured(out), items(out), &name);
            });
            return reply;
        }
        let plan = self.with_local(|local, shared| local.plan_of(shared, slot));
        reply.inspect(move |out| {
            if let Some(plan) = &plan {
                self.record(plan, measured(out), items(out));
            }
        })
    }

    /// The number of a table's or index's name.
    fn name(&self, name: &str) -> Name {
        if let Some(id) = self.model.name_id(name) {
            return id;
        }
        let position = |names: &[Box<str>]| names.iter().position(|n| **n == *name);
        let read = self
            .other_names
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(i) = position(&read) {
            return i as Name | OTHER_NAME;
        }
        drop(read);
        let mut names = self
            .other_names
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        let i = position(&names).unwrap_or_else(|| {
            names.push(name.into());
            names.len() - 1
        });
        i as Name | OTHER_NAME
    }

    /// The registered table named `name` and the name's number.
    fn table_id(&self, name: &str) -> (Option<usize>, Name) {
        match self.model.table(name) {
            Some(i) => (Some(i), self.model.tables[i].id),
            None => (None, self.name(name)),
        }
    }

    /// The number of index `index` of table `table` (0: none).
    fn index_id(&self, table: Option<usize>, index: Option<&str>) -> Name {
        let Some(index) = index else { return 0 };
        table
            .and_then(|t| {
                let indexes = &self.model.tables[t].indexes;
                indexes.iter().find(|i| i.name == index).map(|i| i.id)
            })
            .unwrap_or_else(|| self.name(index))
    }

    /// A touch of the item or key `item` in `table`: its partition, and for a whole item (a
    /// put) the index partitions it is written to.
    fn item_touch<'s>(
        &'s self,
        table: Option<usize>,
        name: Name,
        item: &Item,
        whole: bool,
    ) -> Touch<'s> {
        let partition = match table {
            Some(t) => model::attr(item, &self.model.tables[t].pk)
                .map(|v| Cow::Owned(model::key_text(v).into_owned())),
            None => None,
        };
        let mut index_partitions = Vec::new();
        if let (true, Some(t)) = (whole, table) {
            for index in &self.model.tables[t].indexes {
                if let Some(p) = model::index_partition(item, index) {
                    index_partitions.push((index.id, p));
                }
            }
        }
        Touch {
            table: name,
            space: 0,
            partition: partition.unwrap_or(Cow::Borrowed(tally::UNKNOWN_PARTITION)),
            index_partitions,
        }
    }

    fn update_touch<'s>(
        &'s self,
        table: Option<usize>,
        name: Name,
        key: &Item,
        update: &crate::expr::Update,
    ) -> Touch<'s> {
        let mut touch = self.item_touch(table, name, key, false);
        if let Some(t) = table {
            for index in &self.model.tables[t].indexes {
                if let Some(p) = model::updated_partition(update, index) {
                    touch.index_partitions.push((index.id, p));
                }
            }
        }
        touch
    }

    fn single_write<'s>(
        &'s self,
        table: &str,
        key: &Item,
        whole: bool,
        op: Operation,
        update: Option<&crate::expr::Update>,
    ) -> Plan<'s> {
        let (t, name) = self.table_id(table);
        let entities = self.model.classify_item(t, key, whole);
        let touch = match update {
            Some(u) => self.update_touch(t, name, key, u),
            None => self.item_touch(t, name, key, whole),
        };
        Plan {
            table: name,
            entities,
            op,
            index: 0,
            touches: Touches::One(touch),
        }
    }

    /// The plan of a call over several items, perhaps in several tables: its pattern's table is
    /// the first item's.
    fn many<'s, 'i>(
        &'s self,
        op: Operation,
        items: impl Iterator<Item = (&'i str, &'i Item, bool, Option<&'i crate::expr::Update>)>,
    ) -> Plan<'s> {
        let mut entities = 0u128;
        let mut touches = Vec::new();
        let mut first: Option<Name> = None;
        for (table, item, whole, update) in items {
            let (t, name) = self.table_id(table);
            entities |= self.model.classify_item(t, item, whole);
            first.get_or_insert(name);
            touches.push(match update {
                Some(u) => self.update_touch(t, name, item, u),
                None => self.item_touch(t, name, item, whole),
            });
        }
        Plan {
            table: first.unwrap_or_else(|| self.name("")),
            entities,
            op,
            index: 0,
            touches: Touches::Many(touches),
        }
    }
}

/// [`Metered::with_local`]'s search for the thread's counters of wrapper `id`: one body for
/// every call and every store type, not one per closure, so that the two visits of a call
/// (before it is sent and after it answers) run the same code.
#[inline(never)]
fn on_local(
    id: u64,
    shared: &Arc<Shared>,
    fallback: &Mutex<Option<Local>>,
    f: &mut dyn FnMut(&mut Local, &Shared),
) {
    let done = LOCALS.try_with(|locals| {
        let Ok(mut locals) = locals.try_borrow_mut() else {
            return false;
        };
        let i = match locals.iter().position(|e| e.id == id) {
            Some(i) => i,
            None => {
                // The entries of dropped wrappers go before a new one is added.
                locals.retain(|e| e.shared.strong_count() > 0);
                locals.push(Entry {
                    id,
                    shared: Arc::downgrade(shared),
                    local: Local::new(shared),
                });
                locals.len() - 1
            }
        };
        if i > 0 {
            locals.swap(0, i);
        }
        f(&mut locals[0].local, shared);
        true
    });
    if done != Ok(true) {
        let mut fallback = fallback.lock().unwrap_or_else(PoisonError::into_inner);
        f(fallback.get_or_insert_with(|| Local::new(shared)), shared);
    }
}

fn measured<'o>(result: &'o Result<impl Capacitied>) -> Measured<'o> {
    match result {
        Err(_) => Measured::Failed,
        Ok(out) => out.measured(),
    }
}

/// An output that carries consumed capacity.
trait Capacitied {
    fn measured(&self) -> Measured<'_>;
}

macro_rules! capacitied {
    (one: $($t:ty),*) => {$(
        impl Capacitied for $t {
            fn measured(&self) -> Measured<'_> {
                self.consumed_capacity.as_ref().map_or(Measured::Unreported, Measured::One)
            }
        }
    )*};
    (tables: $($t:ty),*) => {$(
        impl Capacitied for $t {
            fn measured(&self) -> Measured<'_> {
                self.consumed_capacity.as_deref().map_or(Measured::Unreported, Measured::Tables)
            }
        }
    )*};
}
capacitied!(one: GetOutput, WriteOutput, Page);
capacitied!(tables: BatchGetOutput, BatchWriteOutput, TransactGetOutput, TransactWriteOutput);

impl<S: Store> Store for Metered<S> {
    fn get_item<'a>(&'a self, r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        let (t, name) = self.table_id(&r.table);
        let entities = match self.model.tagged(r.tag, t) {
            Some(e) => model::bit(e),
            None => self.model.classify_item(t, &r.key, false),
        };
        let key = PatternKey {
            table: name,
            entities,
            op: Operation::Get,
            index: 0,
        };
        let slot = {
            let partition = t
                .and_then(|t| model::attr(&r.key, &self.model.tables[t].pk))
                .map_or(Cow::Borrowed(tally::UNKNOWN_PARTITION), model::key_text);
            self.slot(key, (name, 0), &partition)
        };
        self.answer(self.inner.get_item(r), slot, |out| {
            let found = out.as_ref().map_or(0, |o| u64::from(o.item.is_some()));
            (1, found)
        })
    }

    fn put_item(&self, r: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        let plan = self.single_write(&r.table, &r.item, true, Operation::Put, None);
        self.inner
            .put_item(r)
            .inspect(move |out| self.record(&plan, measured(out), (0, 0)))
    }

    fn update_item(&self, r: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        let plan = self.single_write(&r.table, &r.key, false, Operation::Update, Some(&r.update));
        self.inner
            .update_item(r)
            .inspect(move |out| self.record(&plan, measured(out), (0, 0)))
    }

    fn delete_item(&self, r: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        let plan = self.single_write(&r.table, &r.key, false, Operation::Delete, None);
        self.inner
            .delete_item(r)
            .inspect(move |out| self.record(&plan, measured(out), (0, 0)))
    }

    fn query(&self, r: QueryRequest) -> Reply<'_, Result<Page>> {
        let (t, name) = self.table_id(&r.table);
        let index = self.index_id(t, r.index.as_deref());
        let entities = match self.model.tagged(r.tag, t) {
            Some(e) if self.model.reads(e, r.index.as_deref()) => model::bit(e),
            _ => self
                .model
                .classify_query(t, r.index.as_deref(), &r.key_condition),
        };
        let key = PatternKey {
            table: name,
            entities,
            op: Operation::Query,
            index,
        };
        let slot = self.slot(
            key,
            (name, index),
            &model::query_partition(&r.key_condition),
        );
        self.answer(self.inner.query(r), slot, page_items)
    }

    fn scan(&self, r: ScanRequest) -> Reply<'_, Result<Page>> {
        let (t, name) = self.table_id(&r.table);
        let index = self.index_id(t, r.index.as_deref());
        let touch = Touch {
            table: name,
            space: index,
            partition: Cow::Borrowed("(scan: every partition)"),
            index_partitions: Vec::new(),
        };
        let plan = Plan {
            table: name,
            entities: 0,
            op: Operation::Scan,
            index,
            touches: Touches::One(touch),
        };
        self.inner
            .scan(r)
            .inspect(move |out| self.record(&plan, measured(out), page_items(out)))
    }

    fn batch_get(&self, r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        let plan = self.many(
            Operation::BatchGet,
            r.keys
                .iter()
                .map(|k| (k.table.as_str(), &k.key, false, None)),
        );
        let asked = r.keys.len() as u64;
        self.inner.batch_get(r).inspect(move |out| {
            let items = out.as_ref().map_or((0, 0), |o| {
                (
                    asked - o.unprocessed_keys.len() as u64,
                    o.items.len() as u64,
                )
            });
            self.record(&plan, measured(out), items);
        })
    }

    fn batch_write(&self, r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        let plan = self.many(
            Operation::BatchWrite,
            r.writes.iter().map(|w| match w {
                WriteRequest::Put { table, item } => (table.as_str(), item, true, None),
                WriteRequest::Delete { table, key } => (table.as_str(), key, false, None),
            }),
        );
        self.inner
            .batch_write(r)
            .inspect(move |out| self.record(&plan, measured(out), (0, 0)))
    }

    fn transact_get(&self, r: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        let plan = self.many(
            Operation::TransactGet,
            r.gets
                .iter()
                .map(|g| (g.table.as_str(), &g.key, false, None)),
        );
        let asked = r.gets.len() as u64;
        self.inner.transact_get(r).inspect(move |out| {
            let items = out.as_ref().map_or((0, 0), |o| {
                (asked, o.items.iter().filter(|i| i.is_some()).count() as u64)
            });
            self.record(&plan, measured(out), items);
        })
    }

    fn transact_write(&self, r: TransactWriteRequest) -> Reply<'_, Result<TransactWriteOutput>> {
        let plan = self.many(
            Operation::TransactWrite,
            r.actions.iter().map(|a| match a {
                TransactWriteItem::Put { table, item, .. } => (table.as_str(), item, true, None),
                TransactWriteItem::Update {
                    table, key, update, ..
                } => (table.as_str(), key, false, Some(update)),
                TransactWriteItem::Delete { table, key, .. }
                | TransactWriteItem::ConditionCheck { table, key, .. } => {
                    (table.as_str(), key, false, None)
                }
            }),
        );
        self.inner
            .transact_write(r)
            .inspect(move |out| self.record(&plan, measured(out), (0, 0)))
    }

    fn create_table<'a>(&'a self, d: &'a TableDef) -> Reply<'a, Result<()>> {
        self.inner.create_table(d)
    }
    fn delete_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<()>> {
        self.inner.delete_table(n)
    }
    fn describe_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<TableDescription>> {
        self.inner.describe_table(n)
    }
    fn update_ttl<'a>(&'a self, t: &'a str, a: &'a str, e: bool) -> Reply<'a, Result<()>> {
        self.inner.update_ttl(t, a, e)
    }
    fn update_table(&self, r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        self.inner.update_table(r)
    }
    fn cursor_key(&self) -> &crate::ops::CursorKey {
        self.inner.cursor_key()
    }
}

/// Items read and returned by a page.
fn page_items(out: &Result<Page>) -> (u64, u64) {
    out.as_ref()
        .map_or((0, 0), |p| (p.scanned_count as u64, p.count as u64))
}

#[cfg(all(test, feature = "derive", feature = "memory"))]
mod tests {
    use std::sync::mpsc;

    use super::Metered;
    use crate::expr::KeyCondition;
    use crate::prelude::*;
    use crate::store::{GetRequest, QueryRequest, Reply};
    use crate::value::AttributeValue;

    #[derive(Table)]
    #[dyno(name = "Notes", pk = "PK", sk = "SK")]
    #[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
    struct Notes;

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Notes, pk = "USER#{user}", sk = "NOTE#{n}")]
    #[dyno(index(GSI1, pk = "TOPIC#{topic}", sk = "{n}"))]
    struct Note {
        user: String,
        n: u32,
        topic: String,
    }

    fn note(n: u32) -> Note {
        Note {
            user: "u".into(),
            n,
            topic: "rust".into(),
        }
    }

    async fn metered_over<S: Store>(inner: S) -> Metered<S> {
        let store = Metered::new(inner).entity::<Note>();
        store.create_table(Notes::definition()).await.unwrap();
        note(1).put().send(&store).await.unwrap();
        store
    }

    async fn metered() -> Metered<MemoryStore> {
        metered_over(MemoryStore::new()).await
    }

    /// Answers every call later, as a store on the network does: its replies are pending.
    #[derive(Debug)]
    struct Later(MemoryStore);

    #[async_trait::async_trait]
    impl crate::store::forward::Forward for Later {
        type Inner = MemoryStore;
        fn inner(&self) -> &MemoryStore {
            &self.0
        }
        async fn around<T: Send>(
            &self,
            _: crate::store::forward::Call,
            inner: futures::future::BoxFuture<'_, crate::Result<T>>,
        ) -> crate::Result<T> {
            tokio::task::yield_now().await;
            inner.await
        }
    }

    /// A get, a miss, a query of the table, a query of the index and a failed get (no such
    /// table) through `store`, each answer awaited by `answer`.
    async fn reads<S: Store>(store: &Metered<S>, answer: impl AsyncFn(Reply<'_, ()>)) {
        let key = Note::key("u", 1u32).into_item();
        let missing = Note::key("u", 2u32).into_item();
        let get = |k| {
            store
                .get_item(GetRequest::borrowed("Notes", k))
                .map(|r| drop(r.unwrap()))
        };
        answer(get(&key)).await;
        answer(get(&missing)).await;
        let pk = AttributeValue::S("USER#u".into());
        let table = QueryRequest::new("Notes", None, KeyCondition::partition("PK", pk));
        answer(store.query(table).map(|r| drop(r.unwrap()))).await;
        let topic = AttributeValue::S("TOPIC#rust".into());
        let index = KeyCondition::partition("GSI1PK", topic);
        let index = QueryRequest::new("Notes", Some("GSI1"), index);
        answer(store.query(index).map(|r| drop(r.unwrap()))).await;
        let failed = store.get_item(GetRequest::borrowed("Nowhere", &key));
        answer(failed.map(|r| assert!(r.is_err()))).await;
    }

    /// A get or query answered later, on another thread than the one that made the call, lands
    /// in the same rows, with the same units, as one answered at once: the wrapper found its
    /// counters on the calling thread and records it by its partition's key.
    #[tokio::test]
    async fn calls_answered_later_on_another_thread_are_counted_as_ready_ones_are() {
        let ready = metered().await;
        reads(&ready, async |reply| reply.await).await;
        let later = metered_over(Later(MemoryStore::new())).await;
        reads(&later, async |reply| {
            // Made here, awaited (and answered) on a thread of its own.
            on_a_thread(async || reply.await);
        })
        .await;
        let (ready, later) = (ready.report(), later.report());
        assert_eq!(later, ready);
        let get = ready.pattern("Note get").expect("the gets");
        assert_eq!((get.calls, get.items_read, get.items_returned), (2, 2, 1));
        let index = ready.pattern("Note query GSI1").expect("the index query");
        assert!(index.global_indexes[0].1 > 0.0);
        let topic = ready
            .partitions
            .iter()
            .find(|p| p.key == "TOPIC#rust")
            .expect("the index partition");
        assert_eq!(topic.index.as_deref(), Some("GSI1"));
        assert_eq!(topic.read_units, index.read_units);
        let failed = ready.patterns.iter().find(|p| p.failed == 1);
        assert!(failed.is_some(), "{:?}", ready.patterns);
    }

    /// One call of [`the_two_ways_of_recording_a_call_agree`]'s sequences.
    #[derive(Debug, Clone)]
    enum Op {
        Get { user: u8, n: u8 },
        QueryUser(u8),
        QueryTopic(u8),
        Put { user: u8, n: u8, topic: u8 },
        Delete { user: u8, n: u8 },
        GetElsewhere(u8),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            (0..3u8, 0..4u8).prop_map(|(user, n)| Op::Get { user, n }),
            (0..3u8).prop_map(Op::QueryUser),
            (0..2u8).prop_map(Op::QueryTopic),
            (0..3u8, 0..4u8, 0..2u8).prop_map(|(user, n, topic)| Op::Put { user, n, topic }),
            (0..3u8, 0..4u8).prop_map(|(user, n)| Op::Delete { user, n }),
            (0..3u8).prop_map(Op::GetElsewhere),
        ]
    }

    /// Runs `ops` through `store`, typed and raw, failures included.
    async fn run_ops<S: Store>(store: &Metered<S>, ops: &[Op]) {
        for op in ops {
            match op {
                Op::Get { user, n } => {
                    let key = Note::key(format!("u{user}").as_str(), u32::from(*n));
                    Note::get(key).send(store).await.unwrap();
                }
                Op::QueryUser(user) => {
                    let pk = AttributeValue::S(format!("USER#u{user}"));
                    let q = QueryRequest::new("Notes", None, KeyCondition::partition("PK", pk));
                    store.query(q).await.unwrap();
                }
                Op::QueryTopic(topic) => {
                    let pk = AttributeValue::S(format!("TOPIC#t{topic}"));
                    let condition = KeyCondition::partition("GSI1PK", pk);
                    let q = QueryRequest::new("Notes", Some("GSI1"), condition);
                    store.query(q).await.unwrap();
                }
                Op::Put { user, n, topic } => {
                    let note = Note {
                        user: format!("u{user}"),
                        n: u32::from(*n),
                        topic: format!("t{topic}"),
                    };
                    note.put().send(store).await.unwrap();
                }
                Op::Delete { user, n } => {
                    let key = Note::key(format!("u{user}").as_str(), u32::from(*n));
                    Note::delete(key).send(store).await.unwrap();
                }
                Op::GetElsewhere(user) => {
                    let key = Note::key(format!("u{user}").as_str(), 0u32).into_item();
                    let r = store.get_item(GetRequest::borrowed("Nowhere", &key)).await;
                    assert!(r.is_err());
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// A get or query is recorded through the counters it found before it was sent when
        /// its answer is ready, and by its plan when the answer comes later: over any sequence
        /// of reads and writes, typed and raw, the two give the same report.
        #[test]
        fn the_two_ways_of_recording_a_call_agree(
            ops in proptest::collection::vec(op(), 1..40),
        ) {
            let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let (ready, later) = rt.block_on(async {
                let ready = metered().await;
                run_ops(&ready, &ops).await;
                let later = metered_over(Later(MemoryStore::new())).await;
                run_ops(&later, &ops).await;
                (ready.report(), later.report())
            });
            proptest::prop_assert_eq!(later, ready);
        }
    }

    /// A metered store inside a metered store (`Metered<Arc<Metered<_>>>`): each counts every
    /// call.
    #[tokio::test]
    async fn a_metered_store_inside_another_counts_every_call() {
        let inner = std::sync::Arc::new(metered().await);
        let outer = Metered::new(std::sync::Arc::clone(&inner)).entity::<Note>();
        reads(&outer, async |reply| reply.await).await;
        gets(&outer, 2).await;
        let (outer, inner) = (outer.report(), inner.report());
        assert_eq!(calls_in(&outer, "Note get"), 4);
        assert_eq!(calls_in(&inner, "Note get"), 4);
        // The inner one also has the put that seeded it.
        assert_eq!(calls_in(&inner, "Note put"), 1);
        let rows = |r: &crate::cost::Report| {
            let mut v: Vec<_> = r
                .patterns
                .iter()
                .filter(|p| p.operation != crate::cost::Operation::Put)
                .map(|p| (p.name.clone(), p.calls, p.failed, p.read_units))
                .collect();
            v.sort_by(|a, b| a.0.cmp(&b.0));
            v
        };
        assert_eq!(rows(&outer), rows(&inner));
    }

    fn calls_in(report: &crate::cost::Report, pattern: &str) -> u64 {
        report.pattern(pattern).map_or(0, |p| p.calls)
    }

    /// A reset between a call and its answer: the call is counted at most once, in the new
    /// generation's rows with its partition (never in counters the reset dropped), and the
    /// calls after it are counted.
    #[tokio::test]
    async fn a_reset_while_a_call_is_out_leaves_consistent_counts() {
        let store = metered_over(Later(MemoryStore::new())).await;
        let key = Note::key("u", 1u32).into_item();
        let touches = |store: &Metered<Later>| {
            let report = store.report();
            report.partitions.iter().map(|p| p.touches).sum::<u64>()
        };
        for elsewhere in [false, true] {
            let reply = store.get_item(GetRequest::borrowed("Notes", &key));
            store.reset();
            if elsewhere {
                on_a_thread(async || reply.await.unwrap());
            } else {
                reply.await.unwrap();
            }
            let counted = calls(&store, "Note get");
            assert!(counted <= 1);
            assert_eq!(touches(&store), counted);
            store
                .get_item(GetRequest::borrowed("Notes", &key))
                .await
                .unwrap();
            assert_eq!(calls(&store, "Note get"), counted + 1);
            assert_eq!(touches(&store), counted + 1);
        }
    }

    async fn gets<S: Store>(store: &Metered<S>, n: usize) {
        for _ in 0..n {
            let got = Note::get(Note::key("u", 1u32)).send(store).await.unwrap();
            assert!(got.is_some());
        }
    }

    fn calls<S>(store: &Metered<S>, pattern: &str) -> u64 {
        calls_in(&store.report(), pattern)
    }

    /// Runs `f` on a thread of its own, with a runtime of its own.
    fn on_a_thread<T: Send>(f: impl AsyncFnOnce() -> T + Send) -> T {
        std::thread::scope(|s| {
            s.spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap()
                    .block_on(f())
            })
            .join()
            .unwrap()
        })
    }

    /// A thread's counters outlive it: the report still has the calls of a thread that ended.
    #[tokio::test]
    async fn the_calls_of_a_thread_that_has_ended_are_in_the_report() {
        let store = metered().await;
        on_a_thread(async || gets(&store, 3).await);
        assert_eq!(calls(&store, "Note get"), 3);
        // Folded into one tally as the thread ended: the registry keeps no counter of it.
        let live = || store.shared.registry.lock().unwrap().live();
        let before = live();
        on_a_thread(async || gets(&store, 1).await);
        assert_eq!(live(), before);
        assert_eq!(calls(&store, "Note get"), 4);
        on_a_thread(async || gets(&store, 1).await);
        assert_eq!(calls(&store, "Note get"), 5);
        gets(&store, 2).await;
        assert_eq!(calls(&store, "Note get"), 7);
        let report = store.report();
        let partition = report
            .partitions
            .iter()
            .find(|p| p.key == "USER#u" && p.index.is_none())
            .expect("the partition");
        // The put and seven gets.
        assert_eq!(partition.touches, 8);
    }

    /// A thread keeps counters per wrapper: two wrappers used in turn on one thread, and one
    /// made after another was dropped, count their own calls only.
    #[tokio::test]
    async fn two_wrappers_on_one_thread_count_their_own_calls() {
        let (a, b) = (metered().await, metered().await);
        gets(&a, 3).await;
        gets(&b, 2).await;
        gets(&a, 1).await;
        assert_eq!((calls(&a, "Note get"), calls(&b, "Note get")), (4, 2));
        drop(a);
        let c = metered().await;
        gets(&c, 1).await;
        gets(&b, 1).await;
        assert_eq!((calls(&b, "Note get"), calls(&c, "Note get")), (3, 1));
        assert_eq!(calls(&c, "Note put"), 1);
    }

    /// `reset` forgets the counts of every thread, the ones still running included, and each
    /// thread counts from zero after it.
    #[tokio::test]
    async fn a_reset_forgets_every_threads_counts() {
        let store = metered().await;
        let (go, wait) = mpsc::channel::<()>();
        let (done, finished) = mpsc::channel::<()>();
        let store = &store;
        std::thread::scope(|s| {
            s.spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                rt.block_on(gets(store, 2));
                done.send(()).unwrap();
                // Waits for the reset, then counts again.
                wait.recv().unwrap();
                rt.block_on(gets(store, 1));
                done.send(()).unwrap();
            });
            finished.recv().unwrap();
            assert_eq!(calls(store, "Note get"), 2);
            store.reset();
            assert!(store.report().patterns.is_empty());
            assert!(store.report().partitions.is_empty());
            go.send(()).unwrap();
            finished.recv().unwrap();
        });
        assert_eq!(calls(store, "Note get"), 1);
        gets(store, 1).await;
        assert_eq!(calls(store, "Note get"), 2);
        assert_eq!(calls(store, "Note put"), 0);
    }
}
