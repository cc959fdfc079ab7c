//! The requests and responses of the item operations (get, put, update, delete, query, scan,
//! batches, transactions): plain data a wrapper can read. Requests are `#[non_exhaustive]`:
//! build them with their constructor and `with_*` setters, so that a field DynamoDB adds later is
//! not a breaking change.

use std::any::TypeId;
use std::borrow::Cow;
use std::fmt;

use super::{Capacity, TableCapacity};
use crate::expr::{Condition, KeyCondition, Path, Update};
pub use crate::item::{TableKey, WriteRequest};
use crate::value::{Item, SharedItem};

/// The access pattern a typed call serves: the entity whose typed builder made the request, or
/// none (the default: a raw request). Set by dyno's typed gets and queries for
/// [`cost::Metered`](crate::cost::Metered), which attributes the call to it without matching
/// key templates; every store ignores it and it is never sent. Two requests that differ only
/// in their tag are equal.
#[doc(hidden)]
#[derive(Clone, Copy, Default)]
pub struct Tag(Option<fn() -> TypeId>);

impl Tag {
    /// The tag of entity `E`'s own access patterns. A function pointer: it keeps the requests
    /// as small as they were but for one word.
    pub fn entity<E: 'static>() -> Self {
        Tag(Some(TypeId::of::<E>))
    }

    /// The entity's type, when the request has one.
    pub fn entity_id(&self) -> Option<TypeId> {
        self.0.map(|of| of())
    }
}

impl PartialEq for Tag {
    /// Always: a tag says who asked, not what is asked.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Tag(typed)"
        } else {
            "Tag(none)"
        })
    }
}

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
#[non_exhaustive]
pub struct GetRequest<'a> {
    /// Table name.
    pub table: Cow<'a, str>,
    /// The primary key.
    pub key: Cow<'a, Item>,
    /// Strongly consistent read.
    pub consistent_read: bool,
    /// Attributes to return (all when `None`).
    pub projection: Option<Vec<Path>>,
    /// The typed access pattern that made the request (see [`Tag`]).
    #[doc(hidden)]
    pub tag: Tag,
}

impl<'a> GetRequest<'a> {
    /// An eventually consistent get of every attribute, owning its key.
    pub fn new(table: impl Into<Cow<'a, str>>, key: Item) -> Self {
        GetRequest {
            table: table.into(),
            key: Cow::Owned(key),
            consistent_read: false,
            projection: None,
            tag: Tag::default(),
        }
    }

    /// An eventually consistent get of every attribute, borrowing its table name and key.
    pub fn borrowed(table: &'a str, key: &'a Item) -> Self {
        GetRequest {
            table: Cow::Borrowed(table),
            key: Cow::Borrowed(key),
            consistent_read: false,
            projection: None,
            tag: Tag::default(),
        }
    }

    /// A strongly consistent read.
    #[must_use]
    pub fn consistent(mut self) -> Self {
        self.consistent_read = true;
        self
    }

    /// A strongly consistent read when `consistent` is true.
    #[must_use]
    pub fn with_consistent_read(mut self, consistent: bool) -> Self {
        self.consistent_read = consistent;
        self
    }

    /// The attributes to return (`None`: all).
    #[must_use]
    pub fn with_projection(mut self, projection: impl Into<Option<Vec<Path>>>) -> Self {
        self.projection = projection.into();
        self
    }

    /// The same request owning its table name and key (copied if borrowed).
    pub fn into_owned(self) -> GetRequest<'static> {
        GetRequest {
            table: Cow::Owned(self.table.into_owned()),
            key: Cow::Owned(self.key.into_owned()),
            consistent_read: self.consistent_read,
            projection: self.projection,
            tag: self.tag,
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
#[non_exhaustive]
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

impl PutRequest {
    /// A put of `item` (keys included) into `table`: unconditional, returning nothing.
    pub fn new(table: impl Into<String>, item: Item) -> Self {
        PutRequest {
            table: table.into(),
            item,
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        }
    }

    /// The condition that must hold on the existing item (`None`: none).
    #[must_use]
    pub fn with_condition(mut self, condition: impl Into<Option<Condition>>) -> Self {
        self.condition = condition.into();
        self
    }

    /// What the write returns of the item.
    #[must_use]
    pub fn with_return_values(mut self, return_values: ReturnValues) -> Self {
        self.return_values = return_values;
        self
    }

    /// Return the existing item when the condition fails (`ALL_OLD`).
    #[must_use]
    pub fn with_return_old_on_condition_failure(mut self, yes: bool) -> Self {
        self.return_old_on_condition_failure = yes;
        self
    }
}

/// UpdateItem.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
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

impl UpdateRequest {
    /// The actions `update` on the item at `key` in `table`: unconditional (an upsert),
    /// returning nothing.
    pub fn new(table: impl Into<String>, key: Item, update: Update) -> Self {
        UpdateRequest {
            table: table.into(),
            key,
            update,
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        }
    }

    /// The condition that must hold on the existing item (`None`: none).
    #[must_use]
    pub fn with_condition(mut self, condition: impl Into<Option<Condition>>) -> Self {
        self.condition = condition.into();
        self
    }

    /// What the write returns of the item.
    #[must_use]
    pub fn with_return_values(mut self, return_values: ReturnValues) -> Self {
        self.return_values = return_values;
        self
    }

    /// Return the existing item when the condition fails (`ALL_OLD`).
    #[must_use]
    pub fn with_return_old_on_condition_failure(mut self, yes: bool) -> Self {
        self.return_old_on_condition_failure = yes;
        self
    }
}

/// DeleteItem.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
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

impl DeleteRequest {
    /// A delete of the item at `key` in `table`: unconditional, returning nothing.
    pub fn new(table: impl Into<String>, key: Item) -> Self {
        DeleteRequest {
            table: table.into(),
            key,
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        }
    }

    /// The condition that must hold on the existing item (`None`: none).
    #[must_use]
    pub fn with_condition(mut self, condition: impl Into<Option<Condition>>) -> Self {
        self.condition = condition.into();
        self
    }

    /// What the write returns of the item.
    #[must_use]
    pub fn with_return_values(mut self, return_values: ReturnValues) -> Self {
        self.return_values = return_values;
        self
    }

    /// Return the existing item when the condition fails (`ALL_OLD`).
    #[must_use]
    pub fn with_return_old_on_condition_failure(mut self, yes: bool) -> Self {
        self.return_old_on_condition_failure = yes;
        self
    }
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
#[non_exhaustive]
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
    /// The typed access pattern that made the request (see [`Tag`]).
    #[doc(hidden)]
    pub tag: Tag,
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
            tag: Tag::default(),
        }
    }

    /// The filter applied after reading (it does not reduce capacity or the 1 MB page).
    #[must_use]
    pub fn with_filter(mut self, filter: impl Into<Option<Condition>>) -> Self {
        self.filter = filter.into();
        self
    }

    /// The attributes to return (`None`: all).
    #[must_use]
    pub fn with_projection(mut self, projection: impl Into<Option<Vec<Path>>>) -> Self {
        self.projection = projection.into();
        self
    }

    /// The most items to evaluate in one page, before the filter (`None`: up to 1 MB).
    #[must_use]
    pub fn with_limit(mut self, limit: impl Into<Option<u32>>) -> Self {
        self.limit = limit.into();
        self
    }

    /// Where to resume: a previous page's `last_evaluated_key` (`None`: from the start).
    #[must_use]
    pub fn with_exclusive_start_key(mut self, key: impl Into<Option<Item>>) -> Self {
        self.exclusive_start_key = key.into();
        self
    }

    /// A strongly consistent read (not allowed on a global index).
    #[must_use]
    pub fn with_consistent_read(mut self, consistent: bool) -> Self {
        self.consistent_read = consistent;
        self
    }

    /// Count only (`Select = COUNT`): the page carries counts and no items.
    #[must_use]
    pub fn with_count_only(mut self, count_only: bool) -> Self {
        self.count_only = count_only;
        self
    }

    /// Ascending sort-key order when true (the default), descending when false
    /// (`ScanIndexForward`).
    #[must_use]
    pub fn with_scan_forward(mut self, forward: bool) -> Self {
        self.scan_forward = forward;
        self
    }
}

/// Scan.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
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

impl ScanRequest {
    /// A scan of every item of `table`, eventually consistent, in one segment.
    pub fn new(table: impl Into<String>) -> Self {
        ScanRequest {
            table: table.into(),
            ..ScanRequest::default()
        }
    }

    /// Scan index `index` instead of the table (`None`: the table).
    #[must_use]
    pub fn with_index(mut self, index: Option<&str>) -> Self {
        self.index = index.map(str::to_owned);
        self
    }

    /// The filter applied after reading (it does not reduce capacity or the 1 MB page).
    #[must_use]
    pub fn with_filter(mut self, filter: impl Into<Option<Condition>>) -> Self {
        self.filter = filter.into();
        self
    }

    /// The attributes to return (`None`: all).
    #[must_use]
    pub fn with_projection(mut self, projection: impl Into<Option<Vec<Path>>>) -> Self {
        self.projection = projection.into();
        self
    }

    /// The most items to evaluate in one page, before the filter (`None`: up to 1 MB).
    #[must_use]
    pub fn with_limit(mut self, limit: impl Into<Option<u32>>) -> Self {
        self.limit = limit.into();
        self
    }

    /// Where to resume: a previous page's `last_evaluated_key` (`None`: from the start).
    #[must_use]
    pub fn with_exclusive_start_key(mut self, key: impl Into<Option<Item>>) -> Self {
        self.exclusive_start_key = key.into();
        self
    }

    /// A strongly consistent read (not allowed on a global index).
    #[must_use]
    pub fn with_consistent_read(mut self, consistent: bool) -> Self {
        self.consistent_read = consistent;
        self
    }

    /// Count only (`Select = COUNT`): the page carries counts and no items.
    #[must_use]
    pub fn with_count_only(mut self, count_only: bool) -> Self {
        self.count_only = count_only;
        self
    }

    /// A parallel scan's segment `segment` of `total` (`Segment`, `TotalSegments`).
    #[must_use]
    pub fn with_segment(mut self, segment: impl Into<Option<(u32, u32)>>) -> Self {
        self.segment = segment.into();
        self
    }
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

/// BatchGetItem: up to 100 keys, no duplicates.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct BatchGetRequest {
    /// The keys to read.
    pub keys: Vec<TableKey>,
    /// Strongly consistent reads.
    pub consistent_read: bool,
}

impl BatchGetRequest {
    /// An eventually consistent batch read of `keys`.
    pub fn new(keys: Vec<TableKey>) -> Self {
        BatchGetRequest {
            keys,
            consistent_read: false,
        }
    }

    /// Strongly consistent reads when `consistent` is true.
    #[must_use]
    pub fn with_consistent_read(mut self, consistent: bool) -> Self {
        self.consistent_read = consistent;
        self
    }
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

/// BatchWriteItem: up to 25 writes, no two on one key.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct BatchWriteRequest {
    /// The writes.
    pub writes: Vec<WriteRequest>,
}

impl BatchWriteRequest {
    /// A batch of `writes`.
    pub fn new(writes: Vec<WriteRequest>) -> Self {
        BatchWriteRequest { writes }
    }
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
#[non_exhaustive]
pub struct TransactGetItem {
    /// Table name.
    pub table: String,
    /// The primary key.
    pub key: Item,
    /// Attributes to return.
    pub projection: Option<Vec<Path>>,
}

impl TransactGetItem {
    /// A transactional read of every attribute of the item at `key` in `table`.
    pub fn new(table: impl Into<String>, key: Item) -> Self {
        TransactGetItem {
            table: table.into(),
            key,
            projection: None,
        }
    }

    /// The attributes to return (`None`: all).
    #[must_use]
    pub fn with_projection(mut self, projection: impl Into<Option<Vec<Path>>>) -> Self {
        self.projection = projection.into();
        self
    }
}

/// TransactGetItems: up to 100 reads, isolated from concurrent transactions.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct TransactGetRequest {
    /// The reads.
    pub gets: Vec<TransactGetItem>,
}

impl TransactGetRequest {
    /// A transaction of `gets`.
    pub fn new(gets: Vec<TransactGetItem>) -> Self {
        TransactGetRequest { gets }
    }
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

/// One action of a write transaction. Build it with [`put`](TransactWriteItem::put),
/// [`update`](TransactWriteItem::update), [`delete`](TransactWriteItem::delete) or
/// [`condition_check`](TransactWriteItem::condition_check) and the `with_*` setters; the
/// variants are `#[non_exhaustive]`, so a field DynamoDB adds later is not a breaking change
/// (match them with `..`).
///
/// ```
/// use dyno_core::expr::{Condition, Path};
/// use dyno_core::store::TransactWriteItem;
/// use dyno_core::{AttributeValue, Item};
///
/// let item = Item::from([("PK".to_owned(), AttributeValue::S("USER#1".into()))]);
/// let create = TransactWriteItem::put("Shop", item)
///     .with_condition(Condition::not_exists(Path::attr("PK")))
///     .with_return_old_on_condition_failure(true);
/// assert!(matches!(&create, TransactWriteItem::Put { condition: Some(_), .. }));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum TransactWriteItem {
    /// Put a whole item.
    #[non_exhaustive]
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
    #[non_exhaustive]
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
    #[non_exhaustive]
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
    #[non_exhaustive]
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
    /// A put of `item` (keys included) into `table`, unconditional.
    pub fn put(table: impl Into<String>, item: Item) -> Self {
        TransactWriteItem::Put {
            table: table.into(),
            item,
            condition: None,
            return_old_on_condition_failure: false,
        }
    }

    /// The actions `update` on the item at `key` in `table`, unconditional (an upsert).
    pub fn update(table: impl Into<String>, key: Item, update: Update) -> Self {
        TransactWriteItem::Update {
            table: table.into(),
            key,
            update,
            condition: None,
            return_old_on_condition_failure: false,
        }
    }

    /// A delete of the item at `key` in `table`, unconditional.
    pub fn delete(table: impl Into<String>, key: Item) -> Self {
        TransactWriteItem::Delete {
            table: table.into(),
            key,
            condition: None,
            return_old_on_condition_failure: false,
        }
    }

    /// A check that `condition` holds on the item at `key` in `table`, writing nothing.
    pub fn condition_check(table: impl Into<String>, key: Item, condition: Condition) -> Self {
        TransactWriteItem::ConditionCheck {
            table: table.into(),
            key,
            condition,
            return_old_on_condition_failure: false,
        }
    }

    /// The condition that must hold on the existing item. On a put, update or delete `None`
    /// removes it; a condition check always has one, so there `Some` replaces it and `None`
    /// keeps it.
    #[must_use]
    pub fn with_condition(mut self, condition: impl Into<Option<Condition>>) -> Self {
        let condition = condition.into();
        match &mut self {
            TransactWriteItem::Put { condition: c, .. }
            | TransactWriteItem::Update { condition: c, .. }
            | TransactWriteItem::Delete { condition: c, .. } => *c = condition,
            TransactWriteItem::ConditionCheck { condition: c, .. } => {
                if let Some(condition) = condition {
                    *c = condition;
                }
            }
        }
        self
    }

    /// Return the existing item in the cancellation reason when the condition fails
    /// (`ALL_OLD`).
    #[must_use]
    pub fn with_return_old_on_condition_failure(mut self, yes: bool) -> Self {
        match &mut self {
            TransactWriteItem::Put {
                return_old_on_condition_failure: r,
                ..
            }
            | TransactWriteItem::Update {
                return_old_on_condition_failure: r,
                ..
            }
            | TransactWriteItem::Delete {
                return_old_on_condition_failure: r,
                ..
            }
            | TransactWriteItem::ConditionCheck {
                return_old_on_condition_failure: r,
                ..
            } => *r = yes,
        }
        self
    }

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
#[non_exhaustive]
pub struct TransactWriteRequest {
    /// The actions.
    pub actions: Vec<TransactWriteItem>,
    /// Idempotency token: a retry with the same token within 10 minutes is not applied twice.
    pub client_request_token: Option<String>,
}

impl TransactWriteRequest {
    /// A transaction of `actions`, without an idempotency token.
    pub fn new(actions: Vec<TransactWriteItem>) -> Self {
        TransactWriteRequest {
            actions,
            client_request_token: None,
        }
    }

    /// The idempotency token: a retry with the same token within 10 minutes is not applied
    /// twice (`None`: no token).
    #[must_use]
    pub fn with_client_request_token(mut self, token: impl Into<Option<String>>) -> Self {
        self.client_request_token = token.into();
        self
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::AttributeValue;

    fn key() -> Item {
        Item::from([("PK".to_owned(), AttributeValue::S("A".into()))])
    }

    #[test]
    fn transaction_action_setters_reach_every_kind() {
        let owned = Condition::exists("PK");
        let other = Condition::not_exists("PK");
        let actions = [
            TransactWriteItem::put("T", key()),
            TransactWriteItem::update("T", key(), Update::default()),
            TransactWriteItem::delete("T", key()),
            TransactWriteItem::condition_check("T", key(), owned.clone()),
        ];
        for action in actions {
            let set = action
                .clone()
                .with_condition(other.clone())
                .with_return_old_on_condition_failure(true);
            let (condition, returns) = match &set {
                TransactWriteItem::Put {
                    condition,
                    return_old_on_condition_failure,
                    ..
                }
                | TransactWriteItem::Update {
                    condition,
                    return_old_on_condition_failure,
                    ..
                }
                | TransactWriteItem::Delete {
                    condition,
                    return_old_on_condition_failure,
                    ..
                } => (condition.clone(), *return_old_on_condition_failure),
                TransactWriteItem::ConditionCheck {
                    condition,
                    return_old_on_condition_failure,
                    ..
                } => (Some(condition.clone()), *return_old_on_condition_failure),
            };
            assert_eq!(condition.as_ref(), Some(&other), "{action:?}");
            assert!(returns, "{action:?}");
            assert_eq!(set.table(), "T");
            // `None` removes a write's condition; a check keeps the one it must have.
            let cleared = set.with_condition(None);
            match cleared {
                TransactWriteItem::ConditionCheck { condition, .. } => assert_eq!(condition, other),
                TransactWriteItem::Put { condition, .. }
                | TransactWriteItem::Update { condition, .. }
                | TransactWriteItem::Delete { condition, .. } => assert_eq!(condition, None),
            }
        }
    }

    #[test]
    fn batch_writes_are_built_by_their_constructors() {
        let put = WriteRequest::put("T", key());
        let delete = WriteRequest::delete(String::from("U"), key());
        assert!(
            matches!(&put, WriteRequest::Put { table, item } if table == "T" && *item == key())
        );
        assert!(
            matches!(&delete, WriteRequest::Delete { table, key: k } if table == "U" && *k == key())
        );
        assert_eq!((put.table(), delete.table()), ("T", "U"));
    }
}
