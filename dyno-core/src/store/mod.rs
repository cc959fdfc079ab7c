//! The `Store` trait and its requests and responses, as plain Rust data so that wrappers (the
//! cache, a fault injector, a metrics layer) can read them.
//!
//! Implementations: [`DynamoStore`] (aws-sdk-dynamodb) and [`MemoryStore`] (the embedded engine).

mod admin;
mod cursor_key;
mod dynamo;
pub mod forward;
#[cfg(feature = "memory")]
pub(crate) mod memory;
mod reply;
mod request;
mod table_names;

use std::fmt::Debug;

pub use self::admin::{
    wait_for_indexes, IndexChange, IndexStatus, TableDescription, UpdateTableRequest,
};
pub use self::cursor_key::{CursorKey, CURSOR_KEY_ENV};
pub use self::dynamo::{DynamoStore, DynamoStoreBuilder, Timeouts};
#[cfg(feature = "memory")]
#[cfg_attr(docsrs, doc(cfg(feature = "memory")))]
pub use self::memory::{MemoryFeed, MemoryStore, StreamRetention};
pub use self::reply::Reply;
#[doc(hidden)]
pub use self::request::Tag;
pub use self::request::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, ReturnValues, ScanRequest, TableKey,
    TransactGetItem, TransactGetOutput, TransactGetRequest, TransactWriteItem, TransactWriteOutput,
    TransactWriteRequest, UpdateRequest, WriteOutput, WriteRequest,
};
pub use self::table_names::TableNames;
pub use crate::capacity::{read_units, write_units, Capacity, TableCapacity};
use crate::error::{Error, Result};
use crate::table::TableDef;

/// A DynamoDB-compatible store: the one trait dyno's typed operations, the cache and test
/// wrappers are written against. Object safe: `Arc<dyn Store>` works.
///
/// Each call returns a [`Reply`]: a store that answers at once (MemoryStore) answers with
/// [`Reply::ready`] and allocates nothing, one that waits on the network with [`Reply::new`]
/// (an `async` block, boxed). So the call may do its work when it is made, before the reply is
/// awaited, as a request sent to DynamoDB does: dropping the reply does not undo it. A wrapper
/// passes the inner store's reply on, through [`Reply::map`] or [`Reply::inspect`] when it
/// looks at the answer, and keeps a ready answer ready; [`forward::Forward`] writes the
/// forwarding for a wrapper that changes one or two calls.
pub trait Store: Send + Sync + Debug {
    /// GetItem.
    fn get_item<'a>(&'a self, request: GetRequest<'a>) -> Reply<'a, Result<GetOutput>>;
    /// PutItem.
    fn put_item(&self, request: PutRequest) -> Reply<'_, Result<WriteOutput>>;
    /// UpdateItem.
    fn update_item(&self, request: UpdateRequest) -> Reply<'_, Result<WriteOutput>>;
    /// DeleteItem.
    fn delete_item(&self, request: DeleteRequest) -> Reply<'_, Result<WriteOutput>>;
    /// Query: one page.
    fn query(&self, request: QueryRequest) -> Reply<'_, Result<Page>>;
    /// Scan: one page.
    fn scan(&self, request: ScanRequest) -> Reply<'_, Result<Page>>;
    /// BatchGetItem: one request (at most 100 keys); unprocessed keys are returned, not retried.
    fn batch_get(&self, request: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>>;
    /// BatchWriteItem: one request (at most 25 writes); unprocessed writes are returned.
    fn batch_write(&self, request: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>>;
    /// TransactGetItems.
    fn transact_get(&self, request: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>>;
    /// TransactWriteItems.
    fn transact_write(
        &self,
        request: TransactWriteRequest,
    ) -> Reply<'_, Result<TransactWriteOutput>>;
    /// CreateTable (waits until the table is active).
    fn create_table<'a>(&'a self, definition: &'a TableDef) -> Reply<'a, Result<()>>;
    /// DeleteTable.
    fn delete_table<'a>(&'a self, name: &'a str) -> Reply<'a, Result<()>>;
    /// DescribeTable (with DescribeTimeToLive).
    fn describe_table<'a>(&'a self, name: &'a str) -> Reply<'a, Result<TableDescription>>;
    /// UpdateTimeToLive: enables TTL on `attribute`, or disables it.
    fn update_ttl<'a>(
        &'a self,
        table: &'a str,
        attribute: &'a str,
        enabled: bool,
    ) -> Reply<'a, Result<()>>;
    /// UpdateTable: adds or removes a global secondary index. Returns the table as the response
    /// describes it, without waiting: a new index is [`IndexStatus::Creating`], a removed one
    /// [`IndexStatus::Deleting`] (see [`wait_for_indexes`]).
    fn update_table(&self, request: UpdateTableRequest) -> Reply<'_, Result<TableDescription>>;

    /// The key this store's pagination cursors are sealed with (see [`CursorKey`]): by default
    /// the process's ([`CursorKey::process_default`]). A wrapper forwards its inner store's
    /// ([`forward::Forward`] does).
    fn cursor_key(&self) -> &crate::store::CursorKey {
        crate::store::CursorKey::process_default()
    }
}

// `Arc<S>` passes the inner store's reply on as it is. `Box<S>` cannot be written the same way
// beside `Forward`'s blanket impl (a `Box` of a local type is local to other crates), so it
// forwards through `Forward`.
impl<S: Store + ?Sized> Store for std::sync::Arc<S> {
    fn get_item<'a>(&'a self, r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        (**self).get_item(r)
    }
    fn put_item(&self, r: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        (**self).put_item(r)
    }
    fn update_item(&self, r: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        (**self).update_item(r)
    }
    fn delete_item(&self, r: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        (**self).delete_item(r)
    }
    fn query(&self, r: QueryRequest) -> Reply<'_, Result<Page>> {
        (**self).query(r)
    }
    fn scan(&self, r: ScanRequest) -> Reply<'_, Result<Page>> {
        (**self).scan(r)
    }
    fn batch_get(&self, r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        (**self).batch_get(r)
    }
    fn batch_write(&self, r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        (**self).batch_write(r)
    }
    fn transact_get(&self, r: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        (**self).transact_get(r)
    }
    fn transact_write(&self, r: TransactWriteRequest) -> Reply<'_, Result<TransactWriteOutput>> {
        (**self).transact_write(r)
    }
    fn create_table<'a>(&'a self, d: &'a TableDef) -> Reply<'a, Result<()>> {
        (**self).create_table(d)
    }
    fn delete_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<()>> {
        (**self).delete_table(n)
    }
    fn describe_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<TableDescription>> {
        (**self).describe_table(n)
    }
    fn update_ttl<'a>(&'a self, t: &'a str, a: &'a str, e: bool) -> Reply<'a, Result<()>> {
        (**self).update_ttl(t, a, e)
    }
    fn update_table(&self, r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        (**self).update_table(r)
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
/// `transactItems` of a transaction. MemoryStore answers it; DynamoStore before sending.
#[doc(hidden)]
pub fn empty_list_error(member: &str) -> Error {
    Error::validation(format!(
        "1 validation error detected: Value at '{member}' failed to satisfy constraint: Member must have length greater than or equal to 1"
    ))
}

/// DynamoDB's ValidationException for a parallel scan's `Segment` and `TotalSegments`, if they
/// are invalid. MemoryStore answers it; DynamoStore before sending.
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
/// `i32::MAX`). MemoryStore answers it; DynamoStore before sending.
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
