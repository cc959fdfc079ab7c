//! The `Store` trait and its requests and responses, as plain Rust data so that wrappers (the
//! cache, a fault injector, a metrics layer) can read them.
//!
//! Implementations: [`DynamoStore`] (aws-sdk-dynamodb) and [`MemoryStore`] (the embedded engine).

mod cursor_key;
mod dynamo;
pub mod forward;
#[cfg(feature = "memory")]
pub(crate) mod memory;
mod table_names;

use std::borrow::Cow;
use std::fmt::Debug;
use std::time::Duration;

use async_trait::async_trait;

pub use self::cursor_key::{CursorKey, CURSOR_KEY_ENV};
pub use self::dynamo::{DynamoStore, DynamoStoreBuilder, Timeouts};
#[cfg(feature = "memory")]
#[cfg_attr(docsrs, doc(cfg(feature = "memory")))]
pub use self::memory::{MemoryFeed, MemoryStore, StreamRetention};
pub use self::table_names::TableNames;
pub use crate::capacity::{read_units, write_units, Capacity, TableCapacity};
use crate::error::{Error, Result};
use crate::expr::{Condition, KeyCondition, Path, Update};
use crate::table::{IndexDef, TableDef};
use crate::value::{Item, SharedItem};

/// What a write returns of the item (`ReturnValues`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ReturnValues {
    /// Nothing.
    #[default]
    None,
    /// The whole item as it was.
    AllOld,
    /// The updated attributes as they were (update only).
    UpdatedOld,
    /// The whole item as it is now (update only).
    AllNew,
    /// The updated attributes as they are now (update only).
    UpdatedNew,
}

/// GetItem. It may borrow its table name and key (a read has no reason to take them), so that
/// a get served from memory or a cache copies and frees nothing of them; `'static` when owned.
///
/// ```
/// use dyno_core::store::GetRequest;
/// use dyno_core::{AttributeValue, Item};
///
/// let key = Item::from([("PK".to_owned(), AttributeValue::S("USER#1".into()))]);
/// let borrowed = GetRequest::borrowed("Shop", &key);
/// let owned: GetRequest<'static> = GetRequest::new("Shop", key.clone());
/// assert_eq!(borrowed, owned);
/// // A request that must outlive what it borrows (queued, or shared with other tasks):
/// let kept: GetRequest<'static> = borrowed.consistent().into_owned();
/// assert!(kept.consistent_read && kept.key == owned.key);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GetRequest<'a> {
    /// Table name.
    pub table: Cow<'a, str>,
    /// The primary key.
    pub key: Cow<'a, Item>,
    /// Strongly consistent read.
    pub consistent_read: bool,
    /// Attributes to return (all when `None`).
    pub projection: Option<Vec<Path>>,
}

impl<'a> GetRequest<'a> {
    /// An eventually consistent get of every attribute, owning its key.
    pub fn new(table: impl Into<Cow<'a, str>>, key: Item) -> Self {
        GetRequest {
            table: table.into(),
            key: Cow::Owned(key),
            consistent_read: false,
            projection: None,
        }
    }

    /// An eventually consistent get of every attribute, borrowing its table name and key.
    pub fn borrowed(table: &'a str, key: &'a Item) -> Self {
        GetRequest {
            table: Cow::Borrowed(table),
            key: Cow::Borrowed(key),
            consistent_read: false,
            projection: None,
        }
    }

    /// A strongly consistent read.
    #[must_use]
    pub fn consistent(mut self) -> Self {
        self.consistent_read = true;
        self
    }

    /// The same request owning its table name and key (copied if borrowed).
    pub fn into_owned(self) -> GetRequest<'static> {
        GetRequest {
            table: Cow::Owned(self.table.into_owned()),
            key: Cow::Owned(self.key.into_owned()),
            consistent_read: self.consistent_read,
            projection: self.projection,
        }
    }
}

/// GetItem's result.
#[derive(Debug, Clone, Default)]
pub struct GetOutput {
    /// The item, when it exists.
    pub item: Option<SharedItem>,
    /// Capacity consumed, with its split between the table and its indexes, when the backend
    /// reports it.
    pub consumed_capacity: Option<Capacity>,
}

/// PutItem.
#[derive(Debug, Clone, PartialEq)]
pub struct PutRequest {
    /// Table name.
    pub table: String,
    /// The whole item, keys included.
    pub item: Item,
    /// Condition that must hold on the existing item.
    pub condition: Option<Condition>,
    /// `None` or `AllOld`.
    pub return_values: ReturnValues,
    /// Return the existing item when the condition fails (`ALL_OLD`).
    pub return_old_on_condition_failure: bool,
}

/// UpdateItem.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateRequest {
    /// Table name.
    pub table: String,
    /// The primary key.
    pub key: Item,
    /// The actions.
    pub update: Update,
    /// Condition that must hold on the existing item.
    pub condition: Option<Condition>,
    /// What to return.
    pub return_values: ReturnValues,
    /// Return the existing item when the condition fails.
    pub return_old_on_condition_failure: bool,
}

/// DeleteItem.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteRequest {
    /// Table name.
    pub table: String,
    /// The primary key.
    pub key: Item,
    /// Condition that must hold on the existing item.
    pub condition: Option<Condition>,
    /// `None` or `AllOld`.
    pub return_values: ReturnValues,
    /// Return the existing item when the condition fails.
    pub return_old_on_condition_failure: bool,
}

/// The result of a put, update or delete.
#[derive(Debug, Clone, Default)]
pub struct WriteOutput {
    /// The attributes asked for with [`ReturnValues`].
    pub attributes: Option<Item>,
    /// Capacity consumed, with its split between the table and its indexes, when the backend
    /// reports it.
    pub consumed_capacity: Option<Capacity>,
}

/// Query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRequest {
    /// Table name.
    pub table: String,
    /// Index name, or `None` for the table.
    pub index: Option<String>,
    /// The key condition.
    pub key_condition: KeyCondition,
    /// Filter applied after reading (it does not reduce capacity or the 1 MB page).
    pub filter: Option<Condition>,
    /// Attributes to return.
    pub projection: Option<Vec<Path>>,
    /// Maximum items to evaluate (before the filter).
    pub limit: Option<u32>,
    /// Ascending sort-key order when true (`ScanIndexForward`).
    pub scan_forward: bool,
    /// Where to resume (a previous page's `last_evaluated_key`).
    pub exclusive_start_key: Option<Item>,
    /// Strongly consistent read (not allowed on a GSI).
    pub consistent_read: bool,
    /// Count only (`Select = COUNT`): no items are returned.
    pub count_only: bool,
}

impl QueryRequest {
    /// A query on `table` (or one of its indexes) with defaults: forward, no limit, eventual
    /// consistency.
    pub fn new(table: impl Into<String>, index: Option<&str>, key_condition: KeyCondition) -> Self {
        QueryRequest {
            table: table.into(),
            index: index.map(str::to_owned),
            key_condition,
            filter: None,
            projection: None,
            limit: None,
            scan_forward: true,
            exclusive_start_key: None,
            consistent_read: false,
            count_only: false,
        }
    }
}

/// Scan.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScanRequest {
    /// Table name.
    pub table: String,
    /// Index name, or `None` for the table.
    pub index: Option<String>,
    /// Filter applied after reading.
    pub filter: Option<Condition>,
    /// Attributes to return.
    pub projection: Option<Vec<Path>>,
    /// Maximum items to evaluate.
    pub limit: Option<u32>,
    /// Where to resume.
    pub exclusive_start_key: Option<Item>,
    /// Strongly consistent read.
    pub consistent_read: bool,
    /// Parallel scan: this segment and the total (`Segment`, `TotalSegments`).
    pub segment: Option<(u32, u32)>,
    /// Count only.
    pub count_only: bool,
}

/// One page of a query or scan.
#[derive(Debug, Clone, Default)]
pub struct Page {
    /// Items, after the filter.
    pub items: Vec<SharedItem>,
    /// Items returned (after the filter).
    pub count: usize,
    /// Items evaluated (before the filter).
    pub scanned_count: usize,
    /// Where the next page starts; `None` on the last page.
    pub last_evaluated_key: Option<Item>,
    /// Capacity consumed, with its split between the table and its indexes, when the backend
    /// reports it.
    pub consumed_capacity: Option<Capacity>,
}

/// A key in a named table (batch and transactional reads).
#[derive(Debug, Clone, PartialEq)]
pub struct TableKey {
    /// Table name.
    pub table: String,
    /// The primary key.
    pub key: Item,
}

/// BatchGetItem: up to 100 keys, no duplicates.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BatchGetRequest {
    /// The keys to read.
    pub keys: Vec<TableKey>,
    /// Strongly consistent reads.
    pub consistent_read: bool,
}

/// BatchGetItem's result. Items come back in no particular order.
#[derive(Debug, Clone, Default)]
pub struct BatchGetOutput {
    /// Items found, with their table.
    pub items: Vec<(String, SharedItem)>,
    /// Keys the service did not process; retry them.
    pub unprocessed_keys: Vec<TableKey>,
    /// Capacity the request consumed per table, when the backend reports it: each key read
    /// as a GetItem (a missing item costs the minimum), unprocessed keys not at all.
    pub consumed_capacity: Option<Vec<TableCapacity>>,
}

/// One write of a batch.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteRequest {
    /// Put a whole item.
    Put {
        /// Table name.
        table: String,
        /// The item.
        item: Item,
    },
    /// Delete by key.
    Delete {
        /// Table name.
        table: String,
        /// The primary key.
        key: Item,
    },
}

impl WriteRequest {
    /// The table written.
    pub fn table(&self) -> &str {
        match self {
            WriteRequest::Put { table, .. } | WriteRequest::Delete { table, .. } => table,
        }
    }
}

/// BatchWriteItem: up to 25 writes, no two on one key.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BatchWriteRequest {
    /// The writes.
    pub writes: Vec<WriteRequest>,
}

/// BatchWriteItem's result.
#[derive(Debug, Clone, Default)]
pub struct BatchWriteOutput {
    /// Writes the service did not process; retry them.
    pub unprocessed: Vec<WriteRequest>,
    /// Capacity the request consumed per table, when the backend reports it: each write
    /// charged as the single-item write it is, index writes included.
    pub consumed_capacity: Option<Vec<TableCapacity>>,
}

/// One read of a transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct TransactGetItem {
    /// Table name.
    pub table: String,
    /// The primary key.
    pub key: Item,
    /// Attributes to return.
    pub projection: Option<Vec<Path>>,
}

/// TransactGetItems: up to 100 reads, isolated from concurrent transactions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TransactGetRequest {
    /// The reads.
    pub gets: Vec<TransactGetItem>,
}

/// TransactGetItems' result: one entry per read, in order.
#[derive(Debug, Clone, Default)]
pub struct TransactGetOutput {
    /// The items, `None` where absent.
    pub items: Vec<Option<SharedItem>>,
    /// Capacity the request consumed per table, when the backend reports it: a
    /// transactional read costs twice a strongly consistent one, for a missing item too.
    pub consumed_capacity: Option<Vec<TableCapacity>>,
}

/// One action of a write transaction.
#[derive(Debug, Clone, PartialEq)]
pub enum TransactWriteItem {
    /// Put a whole item.
    Put {
        /// Table name.
        table: String,
        /// The item.
        item: Item,
        /// Condition on the existing item.
        condition: Option<Condition>,
        /// Return the existing item in the cancellation reason when the condition fails.
        return_old_on_condition_failure: bool,
    },
    /// Update an item.
    Update {
        /// Table name.
        table: String,
        /// The primary key.
        key: Item,
        /// The actions.
        update: Update,
        /// Condition on the existing item.
        condition: Option<Condition>,
        /// Return the existing item in the cancellation reason when the condition fails.
        return_old_on_condition_failure: bool,
    },
    /// Delete an item.
    Delete {
        /// Table name.
        table: String,
        /// The primary key.
        key: Item,
        /// Condition on the existing item.
        condition: Option<Condition>,
        /// Return the existing item in the cancellation reason when the condition fails.
        return_old_on_condition_failure: bool,
    },
    /// Check a condition on an item without writing it.
    ConditionCheck {
        /// Table name.
        table: String,
        /// The primary key.
        key: Item,
        /// The condition.
        condition: Condition,
        /// Return the existing item in the cancellation reason when the condition fails.
        return_old_on_condition_failure: bool,
    },
}

impl TransactWriteItem {
    /// The table the action touches.
    pub fn table(&self) -> &str {
        match self {
            TransactWriteItem::Put { table, .. }
            | TransactWriteItem::Update { table, .. }
            | TransactWriteItem::Delete { table, .. }
            | TransactWriteItem::ConditionCheck { table, .. } => table,
        }
    }
}

/// TransactWriteItems: up to 100 actions, all or nothing, one action per item.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TransactWriteRequest {
    /// The actions.
    pub actions: Vec<TransactWriteItem>,
    /// Idempotency token: a retry with the same token within 10 minutes is not applied twice.
    pub client_request_token: Option<String>,
}

/// TransactWriteItems' result.
#[derive(Debug, Clone, Default)]
pub struct TransactWriteOutput {
    /// Capacity the transaction consumed per table, when the backend reports it: each action's
    /// write to its table at twice the units of the single-item write (a condition check as a
    /// write of the item it read), its index writes at their single-item cost (as DynamoDB
    /// reports them: the factor applies to the table's share only). A retry answered from its
    /// idempotency token is charged as a transactional read of the items the first call wrote.
    pub consumed_capacity: Option<Vec<TableCapacity>>,
}

/// A table's description.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDescription {
    /// The definition (TTL attribute included when TTL is enabled). A global index being
    /// deleted is still listed, with [`IndexStatus::Deleting`].
    pub definition: TableDef,
    /// Approximate number of items.
    pub item_count: Option<u64>,
    /// The status of each global secondary index, by name, in the definition's order (DynamoDB
    /// reports none for local indexes, which exist as long as their table).
    pub index_status: Vec<(String, IndexStatus)>,
}

impl TableDescription {
    /// The status of global index `name`, if the table has it.
    pub fn status_of(&self, name: &str) -> Option<IndexStatus> {
        self.index_status
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }

    /// True when every global index is [`IndexStatus::Active`]: none is being built or deleted.
    pub fn indexes_active(&self) -> bool {
        self.index_status
            .iter()
            .all(|(_, s)| *s == IndexStatus::Active)
    }
}

/// The state of a global secondary index, as DescribeTable reports it (`IndexStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IndexStatus {
    /// Being created: DynamoDB fills it from the table's items (backfilling) and refuses
    /// queries on it until it is active.
    Creating,
    /// Its settings are changing; it can be read.
    Updating,
    /// Being deleted.
    Deleting,
    /// Ready to be queried.
    Active,
}

impl IndexStatus {
    /// The name DynamoDB gives the status (`CREATING`, `ACTIVE`...).
    pub fn as_str(self) -> &'static str {
        match self {
            IndexStatus::Creating => "CREATING",
            IndexStatus::Updating => "UPDATING",
            IndexStatus::Deleting => "DELETING",
            IndexStatus::Active => "ACTIVE",
        }
    }
}

/// One change of UpdateTable's `GlobalSecondaryIndexUpdates`.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexChange {
    /// Adds a global secondary index, filled from the items already in the table. An item whose
    /// value for one of the index's key attributes has another type, is empty, or is over the key
    /// size limit is left out of the index (DynamoDB's "index key violations"), not refused.
    Create(IndexDef),
    /// Removes a global secondary index (by name).
    Delete(String),
}

/// UpdateTable, for what dyno manages: a global secondary index added to or removed from a table,
/// populated or not. DynamoDB accepts one create or delete per request (API Reference,
/// UpdateTable, `GlobalSecondaryIndexUpdates`: "You can create or delete only one global
/// secondary index per UpdateTable operation").
///
/// ```
/// # futures::executor::block_on(async {
/// use dyno_core::store::{IndexStatus, Store, UpdateTableRequest};
/// use dyno_core::table::IndexDef;
/// use dyno_core::{MemoryStore, TableDef};
///
/// let store = MemoryStore::new();
/// store.create_table(&TableDef::new("Shop", "PK", Some("SK"))).await?;
/// let answer = store
///     .update_table(UpdateTableRequest::create_index(
///         "Shop",
///         IndexDef::new("ByEmail", "email", None),
///     ))
///     .await?;
/// // As DynamoDB answers: the new index is being created...
/// assert_eq!(answer.status_of("ByEmail"), Some(IndexStatus::Creating));
/// // ...and active once described again (MemoryStore fills it before answering).
/// let now = store.describe_table("Shop").await?;
/// assert!(now.indexes_active() && now.definition.index("ByEmail").is_some());
/// # Ok::<(), dyno_core::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateTableRequest {
    /// Table name.
    pub table: String,
    /// The index changes (DynamoDB takes exactly one create or delete).
    pub index_changes: Vec<IndexChange>,
}

impl UpdateTableRequest {
    /// Adds global index `index` to `table`.
    pub fn create_index(table: impl Into<String>, index: IndexDef) -> Self {
        UpdateTableRequest {
            table: table.into(),
            index_changes: vec![IndexChange::Create(index)],
        }
    }

    /// Removes global index `name` from `table`.
    pub fn delete_index(table: impl Into<String>, name: impl Into<String>) -> Self {
        UpdateTableRequest {
            table: table.into(),
            index_changes: vec![IndexChange::Delete(name.into())],
        }
    }
}

/// Describes `table` until every global index is active and none is being deleted (after
/// [`Store::update_table`]: DynamoDB builds a new index in the background, from minutes to hours
/// on a large table), polling with a delay that grows to 5 s, for at most `timeout`. Returns the
/// last description; an index still changing at the deadline is [`Error::DeadlineExceeded`].
pub async fn wait_for_indexes<S: Store + ?Sized>(
    store: &S,
    table: &str,
    timeout: Duration,
) -> Result<TableDescription> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut delay = Duration::from_millis(20);
    loop {
        let description = store.describe_table(table).await?;
        if description.indexes_active() {
            return Ok(description);
        }
        let now = tokio::time::Instant::now();
        if now >= deadline {
            let changing: Vec<String> = description
                .index_status
                .iter()
                .filter(|(_, s)| *s != IndexStatus::Active)
                .map(|(n, s)| format!("{n} {}", s.as_str()))
                .collect();
            return Err(Error::DeadlineExceeded {
                message: format!(
                    "the indexes of table {table} are still changing after {timeout:?}: {}",
                    changing.join(", ")
                ),
            });
        }
        tokio::time::sleep(delay.min(deadline - now)).await;
        delay = (delay * 2).min(Duration::from_secs(5));
    }
}

/// A DynamoDB-compatible store: the one trait dyno's typed operations, the cache and test
/// wrappers are written against. Object safe: `Arc<dyn Store>` works.
#[async_trait]
pub trait Store: Send + Sync + Debug {
    /// GetItem.
    async fn get_item(&self, request: GetRequest<'_>) -> Result<GetOutput>;
    /// PutItem.
    async fn put_item(&self, request: PutRequest) -> Result<WriteOutput>;
    /// UpdateItem.
    async fn update_item(&self, request: UpdateRequest) -> Result<WriteOutput>;
    /// DeleteItem.
    async fn delete_item(&self, request: DeleteRequest) -> Result<WriteOutput>;
    /// Query: one page.
    async fn query(&self, request: QueryRequest) -> Result<Page>;
    /// Scan: one page.
    async fn scan(&self, request: ScanRequest) -> Result<Page>;
    /// BatchGetItem: one request (at most 100 keys); unprocessed keys are returned, not retried.
    async fn batch_get(&self, request: BatchGetRequest) -> Result<BatchGetOutput>;
    /// BatchWriteItem: one request (at most 25 writes); unprocessed writes are returned.
    async fn batch_write(&self, request: BatchWriteRequest) -> Result<BatchWriteOutput>;
    /// TransactGetItems.
    async fn transact_get(&self, request: TransactGetRequest) -> Result<TransactGetOutput>;
    /// TransactWriteItems.
    async fn transact_write(&self, request: TransactWriteRequest) -> Result<TransactWriteOutput>;
    /// CreateTable (waits until the table is active).
    async fn create_table(&self, definition: &TableDef) -> Result<()>;
    /// DeleteTable.
    async fn delete_table(&self, name: &str) -> Result<()>;
    /// DescribeTable (with DescribeTimeToLive).
    async fn describe_table(&self, name: &str) -> Result<TableDescription>;
    /// UpdateTimeToLive: enables TTL on `attribute`, or disables it.
    async fn update_ttl(&self, table: &str, attribute: &str, enabled: bool) -> Result<()>;
    /// UpdateTable: adds or removes a global secondary index. Returns the table as the response
    /// describes it, without waiting: a new index is [`IndexStatus::Creating`], a removed one
    /// [`IndexStatus::Deleting`] (see [`wait_for_indexes`]).
    async fn update_table(&self, request: UpdateTableRequest) -> Result<TableDescription>;

    /// The key this store's pagination cursors are sealed with (see
    /// [`CursorKey`](crate::store::CursorKey)): by default the process's
    /// ([`CursorKey::process_default`](crate::store::CursorKey::process_default)). A wrapper
    /// forwards its inner store's ([`forward::Forward`] does).
    fn cursor_key(&self) -> &crate::store::CursorKey {
        crate::store::CursorKey::process_default()
    }
}

// `Arc<S>` forwards without the extra boxed future a `Forward` impl would add; `Box<S>` cannot
// be written the same way beside `Forward`'s blanket impl (a `Box` of a local type is local to
// other crates), so it forwards through `Forward`.
#[async_trait]
impl<S: Store + ?Sized> Store for std::sync::Arc<S> {
    async fn get_item(&self, r: GetRequest<'_>) -> Result<GetOutput> {
        (**self).get_item(r).await
    }
    async fn put_item(&self, r: PutRequest) -> Result<WriteOutput> {
        (**self).put_item(r).await
    }
    async fn update_item(&self, r: UpdateRequest) -> Result<WriteOutput> {
        (**self).update_item(r).await
    }
    async fn delete_item(&self, r: DeleteRequest) -> Result<WriteOutput> {
        (**self).delete_item(r).await
    }
    async fn query(&self, r: QueryRequest) -> Result<Page> {
        (**self).query(r).await
    }
    async fn scan(&self, r: ScanRequest) -> Result<Page> {
        (**self).scan(r).await
    }
    async fn batch_get(&self, r: BatchGetRequest) -> Result<BatchGetOutput> {
        (**self).batch_get(r).await
    }
    async fn batch_write(&self, r: BatchWriteRequest) -> Result<BatchWriteOutput> {
        (**self).batch_write(r).await
    }
    async fn transact_get(&self, r: TransactGetRequest) -> Result<TransactGetOutput> {
        (**self).transact_get(r).await
    }
    async fn transact_write(&self, r: TransactWriteRequest) -> Result<TransactWriteOutput> {
        (**self).transact_write(r).await
    }
    async fn create_table(&self, d: &TableDef) -> Result<()> {
        (**self).create_table(d).await
    }
    async fn delete_table(&self, n: &str) -> Result<()> {
        (**self).delete_table(n).await
    }
    async fn describe_table(&self, n: &str) -> Result<TableDescription> {
        (**self).describe_table(n).await
    }
    async fn update_ttl(&self, t: &str, a: &str, e: bool) -> Result<()> {
        (**self).update_ttl(t, a, e).await
    }
    async fn update_table(&self, r: UpdateTableRequest) -> Result<TableDescription> {
        (**self).update_table(r).await
    }
    fn cursor_key(&self) -> &crate::store::CursorKey {
        (**self).cursor_key()
    }
}

impl<S: Store + ?Sized> forward::Forward for Box<S> {
    type Inner = S;
    fn inner(&self) -> &S {
        self
    }
}

/// DynamoDB's ValidationException for a request list with nothing in it: `requestItems` of a batch,
/// `transactItems` of a transaction. MemoryStore answers it; DynamoStore before sending. Hidden:
/// shared by the stores, not part of the semver promise.
#[doc(hidden)]
pub fn empty_list_error(member: &str) -> Error {
    Error::validation(format!(
        "1 validation error detected: Value at '{member}' failed to satisfy constraint: Member must have length greater than or equal to 1"
    ))
}

/// DynamoDB's ValidationException for a parallel scan's `Segment` and `TotalSegments`, if they
/// are invalid. MemoryStore answers it; DynamoStore before sending. Hidden: shared by the stores,
/// not part of the semver promise.
#[doc(hidden)]
pub fn segment_error(segment: u32, total: u32) -> Option<Error> {
    if total == 0 || total > 1_000_000 {
        return Some(Error::validation(format!(
            "1 validation error detected: Value '{total}' at 'totalSegments' failed to satisfy constraint: Member must have value between 1 and 1000000"
        )));
    }
    (segment >= total).then(|| {
        Error::validation(format!(
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: {segment} is not less than TotalSegments: {total}"
        ))
    })
}

/// DynamoDB's ValidationException for a query's or scan's `Limit`, if it is out of range (1 to
/// `i32::MAX`). MemoryStore answers it; DynamoStore before sending. Hidden: shared by the stores,
/// not part of the semver promise.
#[doc(hidden)]
pub fn limit_error(limit: u32) -> Option<Error> {
    if limit == 0 {
        return Some(Error::validation(
            "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
        ));
    }
    (i32::try_from(limit).is_err()).then(|| {
        Error::validation(format!(
            "1 validation error detected: Value '{limit}' at 'limit' failed to satisfy constraint: Member must have value less than or equal to {}",
            i32::MAX
        ))
    })
}
