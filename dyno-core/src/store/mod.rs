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
mod request;
mod table_names;

use std::fmt::Debug;

use async_trait::async_trait;

pub use self::admin::{
    wait_for_indexes, IndexChange, IndexStatus, TableDescription, UpdateTableRequest,
};
pub use self::cursor_key::{CursorKey, CURSOR_KEY_ENV};
pub use self::dynamo::{DynamoStore, DynamoStoreBuilder, Timeouts};
#[cfg(feature = "memory")]
#[cfg_attr(docsrs, doc(cfg(feature = "memory")))]
pub use self::memory::{MemoryFeed, MemoryStore, StreamRetention};
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
