//! Store wrappers that state only what they change: [`Forward`].
//!
//! A test double, a latency injector or a metrics layer changes one or two of the [`Store`]
//! calls and passes the rest to the store it wraps. Implementing `Store` by hand repeats fifteen
//! forwarding methods each time; implementing [`Forward`] names the inner store and overrides
//! only the calls (or the [`Forward::around`] hook) that differ. Every type that implements
//! `Forward` is a `Store`.
//!
//! The trait is not re-exported by `dyno_core::store`, on purpose: its calls have the same names
//! as `Store`'s, and having both traits in scope would make `store.get_item(..)` ambiguous. Name
//! it by path (`impl dyno_core::store::forward::Forward for ..`).
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//!
//! use dyno_core::store::forward::{Call, Forward};
//! use dyno_core::{MemoryStore, Result};
//! use futures::future::BoxFuture;
//!
//! /// Counts the calls that read or write items (table administration is not counted).
//! #[derive(Debug)]
//! struct Counting {
//!     inner: MemoryStore,
//!     calls: AtomicUsize,
//! }
//!
//! #[async_trait::async_trait]
//! impl Forward for Counting {
//!     type Inner = MemoryStore;
//!     fn inner(&self) -> &MemoryStore {
//!         &self.inner
//!     }
//!     async fn around<T: Send>(&self, call: Call, inner: BoxFuture<'_, Result<T>>) -> Result<T> {
//!         if !call.is_admin() {
//!             self.calls.fetch_add(1, Ordering::SeqCst);
//!         }
//!         inner.await
//!     }
//! }
//! ```

use std::fmt::Debug;

use async_trait::async_trait;
use futures::future::BoxFuture;

use super::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, Reply, ScanRequest, Store, TableDescription,
    TransactGetOutput, TransactGetRequest, TransactWriteOutput, TransactWriteRequest,
    UpdateRequest, UpdateTableRequest, WriteOutput,
};
use crate::error::Result;
use crate::table::TableDef;

/// Which [`Store`] call a forwarded call is, for [`Forward::around`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Call {
    /// [`Store::get_item`].
    GetItem,
    /// [`Store::put_item`].
    PutItem,
    /// [`Store::update_item`].
    UpdateItem,
    /// [`Store::delete_item`].
    DeleteItem,
    /// [`Store::query`].
    Query,
    /// [`Store::scan`].
    Scan,
    /// [`Store::batch_get`].
    BatchGet,
    /// [`Store::batch_write`].
    BatchWrite,
    /// [`Store::transact_get`].
    TransactGet,
    /// [`Store::transact_write`].
    TransactWrite,
    /// [`Store::create_table`].
    CreateTable,
    /// [`Store::delete_table`].
    DeleteTable,
    /// [`Store::describe_table`].
    DescribeTable,
    /// [`Store::update_ttl`].
    UpdateTtl,
    /// [`Store::update_table`].
    UpdateTable,
}

impl Call {
    /// Reads items: get, query, scan, batch get, transactional get.
    pub fn is_read(self) -> bool {
        matches!(
            self,
            Call::GetItem | Call::Query | Call::Scan | Call::BatchGet | Call::TransactGet
        )
    }

    /// Writes items: put, update, delete, batch write, transactional write.
    pub fn is_write(self) -> bool {
        matches!(
            self,
            Call::PutItem
                | Call::UpdateItem
                | Call::DeleteItem
                | Call::BatchWrite
                | Call::TransactWrite
        )
    }

    /// Administers tables: create, delete, describe, TTL, update table.
    pub fn is_admin(self) -> bool {
        !self.is_read() && !self.is_write()
    }
}

/// A [`Store`] wrapper that forwards every call to [`Forward::inner`] unless it overrides it.
///
/// Override [`Forward::around`] to act on every call (count, delay, track what is in flight),
/// or one call's method to change that call (its request, its answer). Each call's default is
/// `self.around(call, self.inner().<call>(request))`. See the [module](self) for an example.
#[async_trait]
pub trait Forward: Send + Sync + Debug {
    /// The store the calls go to.
    type Inner: Store + ?Sized;

    /// The store the calls go to.
    fn inner(&self) -> &Self::Inner;

    /// Runs around every call that is not overridden: `inner` is the inner store's call, made
    /// when it is first polled (a wrapper that drops it unpolled, to inject a failure, sends
    /// nothing). The default awaits it.
    async fn around<T: Send>(&self, call: Call, inner: BoxFuture<'_, Result<T>>) -> Result<T> {
        let _ = call;
        inner.await
    }

    /// [`Store::get_item`].
    async fn get_item(&self, r: GetRequest<'_>) -> Result<GetOutput> {
        self.around(Call::GetItem, later(move || self.inner().get_item(r)))
            .await
    }
    /// [`Store::put_item`].
    async fn put_item(&self, r: PutRequest) -> Result<WriteOutput> {
        self.around(Call::PutItem, later(move || self.inner().put_item(r)))
            .await
    }
    /// [`Store::update_item`].
    async fn update_item(&self, r: UpdateRequest) -> Result<WriteOutput> {
        self.around(Call::UpdateItem, later(move || self.inner().update_item(r)))
            .await
    }
    /// [`Store::delete_item`].
    async fn delete_item(&self, r: DeleteRequest) -> Result<WriteOutput> {
        self.around(Call::DeleteItem, later(move || self.inner().delete_item(r)))
            .await
    }
    /// [`Store::query`].
    async fn query(&self, r: QueryRequest) -> Result<Page> {
        self.around(Call::Query, later(move || self.inner().query(r)))
            .await
    }
    /// [`Store::scan`].
    async fn scan(&self, r: ScanRequest) -> Result<Page> {
        self.around(Call::Scan, later(move || self.inner().scan(r)))
            .await
    }
    /// [`Store::batch_get`].
    async fn batch_get(&self, r: BatchGetRequest) -> Result<BatchGetOutput> {
        self.around(Call::BatchGet, later(move || self.inner().batch_get(r)))
            .await
    }
    /// [`Store::batch_write`].
    async fn batch_write(&self, r: BatchWriteRequest) -> Result<BatchWriteOutput> {
        self.around(Call::BatchWrite, later(move || self.inner().batch_write(r)))
            .await
    }
    /// [`Store::transact_get`].
    async fn transact_get(&self, r: TransactGetRequest) -> Result<TransactGetOutput> {
        self.around(
            Call::TransactGet,
            later(move || self.inner().transact_get(r)),
        )
        .await
    }
    /// [`Store::transact_write`].
    async fn transact_write(&self, r: TransactWriteRequest) -> Result<TransactWriteOutput> {
        self.around(
            Call::TransactWrite,
            later(move || self.inner().transact_write(r)),
        )
        .await
    }
    /// [`Store::create_table`].
    async fn create_table(&self, d: &TableDef) -> Result<()> {
        self.around(
            Call::CreateTable,
            later(move || self.inner().create_table(d)),
        )
        .await
    }
    /// [`Store::delete_table`].
    async fn delete_table(&self, n: &str) -> Result<()> {
        self.around(
            Call::DeleteTable,
            later(move || self.inner().delete_table(n)),
        )
        .await
    }
    /// [`Store::describe_table`].
    async fn describe_table(&self, n: &str) -> Result<TableDescription> {
        self.around(
            Call::DescribeTable,
            later(move || self.inner().describe_table(n)),
        )
        .await
    }
    /// [`Store::update_ttl`].
    async fn update_ttl(&self, t: &str, a: &str, e: bool) -> Result<()> {
        self.around(
            Call::UpdateTtl,
            later(move || self.inner().update_ttl(t, a, e)),
        )
        .await
    }
    /// [`Store::update_table`].
    async fn update_table(&self, r: UpdateTableRequest) -> Result<TableDescription> {
        self.around(
            Call::UpdateTable,
            later(move || self.inner().update_table(r)),
        )
        .await
    }
    /// [`Store::cursor_key`]: the inner store's, unless the wrapper seals its cursors with its
    /// own (an instance's view of a shared store, say).
    fn cursor_key(&self) -> &crate::store::CursorKey {
        self.inner().cursor_key()
    }
}

impl<F: Forward> Store for F {
    fn get_item<'a>(&'a self, r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        Forward::get_item(self, r).into()
    }
    fn put_item(&self, r: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        Forward::put_item(self, r).into()
    }
    fn update_item(&self, r: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        Forward::update_item(self, r).into()
    }
    fn delete_item(&self, r: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        Forward::delete_item(self, r).into()
    }
    fn query(&self, r: QueryRequest) -> Reply<'_, Result<Page>> {
        Forward::query(self, r).into()
    }
    fn scan(&self, r: ScanRequest) -> Reply<'_, Result<Page>> {
        Forward::scan(self, r).into()
    }
    fn batch_get(&self, r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        Forward::batch_get(self, r).into()
    }
    fn batch_write(&self, r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        Forward::batch_write(self, r).into()
    }
    fn transact_get(&self, r: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        Forward::transact_get(self, r).into()
    }
    fn transact_write(&self, r: TransactWriteRequest) -> Reply<'_, Result<TransactWriteOutput>> {
        Forward::transact_write(self, r).into()
    }
    fn create_table<'a>(&'a self, d: &'a TableDef) -> Reply<'a, Result<()>> {
        Forward::create_table(self, d).into()
    }
    fn delete_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<()>> {
        Forward::delete_table(self, n).into()
    }
    fn describe_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<TableDescription>> {
        Forward::describe_table(self, n).into()
    }
    fn update_ttl<'a>(&'a self, t: &'a str, a: &'a str, e: bool) -> Reply<'a, Result<()>> {
        Forward::update_ttl(self, t, a, e).into()
    }
    fn update_table(&self, r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        Forward::update_table(self, r).into()
    }
    fn cursor_key(&self) -> &crate::store::CursorKey {
        Forward::cursor_key(self)
    }
}

/// The inner store's call as a future that makes the call when it is first polled: a store
/// that answers at once would otherwise have done the work before [`Forward::around`] ran.
fn later<'a, T: Send + 'a>(call: impl FnOnce() -> Reply<'a, T> + Send + 'a) -> BoxFuture<'a, T> {
    Box::pin(async move { call().await })
}

#[cfg(all(test, feature = "memory"))]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use crate::value::{AttributeValue, Item};
    use crate::Error;

    /// Fails every write without sending it.
    #[derive(Debug)]
    struct Refusing(MemoryStore);

    #[async_trait]
    impl Forward for Refusing {
        type Inner = MemoryStore;
        fn inner(&self) -> &MemoryStore {
            &self.0
        }
        async fn around<T: Send>(&self, call: Call, inner: BoxFuture<'_, Result<T>>) -> Result<T> {
            if call.is_write() {
                return Err(Error::Validation {
                    message: "refused".into(),
                });
            }
            inner.await
        }
    }

    /// MemoryStore answers at once, when the call is made: `around` must get the call before it
    /// is made, or a refused write would have been written already.
    #[tokio::test]
    async fn a_call_around_drops_unpolled_is_never_made() {
        let store = Refusing(MemoryStore::new());
        Store::create_table(&store, &TableDef::new("Notes", "PK", None))
            .await
            .unwrap();
        let key = Item::from([("PK".to_owned(), AttributeValue::S("a".into()))]);
        let put = Store::put_item(&store, PutRequest::new("Notes", key.clone())).await;
        assert!(put.is_err());
        let got = Store::get_item(&store, GetRequest::new("Notes", key))
            .await
            .unwrap();
        assert_eq!(got.item, None, "the refused put reached the store");
    }
}
