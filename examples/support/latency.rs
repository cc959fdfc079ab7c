//! A store wrapper that adds a fixed latency to every call and counts the reads that reach the
//! store behind it: a stand-in for a remote DynamoDB in benchmarks (`#[path =
//! "support/latency.rs"]`). Examples cannot use the tests package's `FaultStore`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use dyno_core::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, ScanRequest, TableDescription, TransactGetOutput,
    TransactGetRequest, TransactWriteOutput, TransactWriteRequest, UpdateRequest,
    UpdateTableRequest, WriteOutput,
};
use dyno_core::{Result, Store, TableDef};

/// `inner`, each call delayed by `delay` (a timer, not a busy wait: tasks keep running).
#[derive(Debug)]
pub struct Latency<S> {
    inner: S,
    delay: Duration,
    reads: AtomicU64,
}

impl<S: Store> Latency<S> {
    pub fn new(inner: S, delay: Duration) -> Self {
        Latency {
            inner,
            delay,
            reads: AtomicU64::new(0),
        }
    }

    /// Reads (gets, batch gets, queries, scans, transactional gets) that reached `inner`.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    async fn read(&self) {
        self.reads.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(self.delay).await;
    }

    async fn write(&self) {
        tokio::time::sleep(self.delay).await;
    }
}

#[async_trait]
impl<S: Store> Store for Latency<S> {
    async fn get_item(&self, r: GetRequest<'_>) -> Result<GetOutput> {
        self.read().await;
        self.inner.get_item(r).await
    }
    async fn put_item(&self, r: PutRequest) -> Result<WriteOutput> {
        self.write().await;
        self.inner.put_item(r).await
    }
    async fn update_item(&self, r: UpdateRequest) -> Result<WriteOutput> {
        self.write().await;
        self.inner.update_item(r).await
    }
    async fn delete_item(&self, r: DeleteRequest) -> Result<WriteOutput> {
        self.write().await;
        self.inner.delete_item(r).await
    }
    async fn query(&self, r: QueryRequest) -> Result<Page> {
        self.read().await;
        self.inner.query(r).await
    }
    async fn scan(&self, r: ScanRequest) -> Result<Page> {
        self.read().await;
        self.inner.scan(r).await
    }
    async fn batch_get(&self, r: BatchGetRequest) -> Result<BatchGetOutput> {
        self.read().await;
        self.inner.batch_get(r).await
    }
    async fn batch_write(&self, r: BatchWriteRequest) -> Result<BatchWriteOutput> {
        self.write().await;
        self.inner.batch_write(r).await
    }
    async fn transact_get(&self, r: TransactGetRequest) -> Result<TransactGetOutput> {
        self.read().await;
        self.inner.transact_get(r).await
    }
    async fn transact_write(&self, r: TransactWriteRequest) -> Result<TransactWriteOutput> {
        self.write().await;
        self.inner.transact_write(r).await
    }
    async fn create_table(&self, d: &TableDef) -> Result<()> {
        self.inner.create_table(d).await
    }
    async fn delete_table(&self, n: &str) -> Result<()> {
        self.inner.delete_table(n).await
    }
    async fn describe_table(&self, n: &str) -> Result<TableDescription> {
        self.inner.describe_table(n).await
    }
    async fn update_ttl(&self, t: &str, a: &str, e: bool) -> Result<()> {
        self.inner.update_ttl(t, a, e).await
    }
    async fn update_table(&self, r: UpdateTableRequest) -> Result<TableDescription> {
        self.inner.update_table(r).await
    }
}
