//! `LaggingStore`: a primary and a replica, the replica applying every write a fixed time after
//! the primary did, as DynamoDB's replicas (and GSIs) may. Strongly consistent reads go to the
//! primary, eventually consistent ones (and every GSI query) to the replica, so a test sees the
//! older image a real replica serves while it lags (both local servers are strongly consistent).
//!
//! Writes are replayed on the replica in the order they were acknowledged by the primary, each
//! `lag` after it; tests that use it write from one task at a time, so that order is the commit
//! order.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use dyno_core::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, ScanRequest, Store, TableDescription,
    TransactGetOutput, TransactGetRequest, TransactWriteOutput, TransactWriteRequest,
    UpdateRequest, UpdateTableRequest, WriteOutput,
};
use dyno_core::{MemoryStore, Result, TableDef};
use tokio::sync::mpsc;
use tokio::time::Instant;

enum Write {
    Put(PutRequest),
    Update(UpdateRequest),
    Delete(DeleteRequest),
    Batch(BatchWriteRequest),
    Transact(TransactWriteRequest),
}

/// A primary MemoryStore and a replica `lag` behind it.
#[derive(Debug)]
pub struct LaggingStore {
    pub primary: Arc<MemoryStore>,
    pub replica: Arc<MemoryStore>,
    queue: mpsc::UnboundedSender<(Instant, Write)>,
}

impl std::fmt::Debug for Write {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Write")
    }
}

impl LaggingStore {
    /// Starts the replica's applier (on the current runtime).
    pub fn new(lag: Duration) -> Arc<Self> {
        let (primary, replica) = (Arc::new(MemoryStore::new()), Arc::new(MemoryStore::new()));
        let (queue, mut rx) = mpsc::unbounded_channel::<(Instant, Write)>();
        let target = replica.clone();
        tokio::spawn(async move {
            while let Some((at, write)) = rx.recv().await {
                tokio::time::sleep_until(at + lag).await;
                // The primary accepted it in this order: the replica reaches the same states.
                let _ = match write {
                    Write::Put(r) => target.put_item(r).await.map(drop),
                    Write::Update(r) => target.update_item(r).await.map(drop),
                    Write::Delete(r) => target.delete_item(r).await.map(drop),
                    Write::Batch(r) => target.batch_write(r).await.map(drop),
                    Write::Transact(r) => target.transact_write(r).await.map(drop),
                };
            }
        });
        Arc::new(LaggingStore {
            primary,
            replica,
            queue,
        })
    }

    fn replay(&self, write: Write) {
        let _ = self.queue.send((Instant::now(), write));
    }
}

#[async_trait]
impl Store for LaggingStore {
    async fn get_item(&self, r: GetRequest<'_>) -> Result<GetOutput> {
        if r.consistent_read {
            self.primary.get_item(r).await
        } else {
            self.replica.get_item(r).await
        }
    }
    async fn put_item(&self, r: PutRequest) -> Result<WriteOutput> {
        let out = self.primary.put_item(r.clone()).await?;
        self.replay(Write::Put(r));
        Ok(out)
    }
    async fn update_item(&self, r: UpdateRequest) -> Result<WriteOutput> {
        let out = self.primary.update_item(r.clone()).await?;
        self.replay(Write::Update(r));
        Ok(out)
    }
    async fn delete_item(&self, r: DeleteRequest) -> Result<WriteOutput> {
        let out = self.primary.delete_item(r.clone()).await?;
        self.replay(Write::Delete(r));
        Ok(out)
    }
    async fn query(&self, r: QueryRequest) -> Result<Page> {
        if r.consistent_read && r.index.is_none() {
            self.primary.query(r).await
        } else {
            self.replica.query(r).await
        }
    }
    async fn scan(&self, r: ScanRequest) -> Result<Page> {
        if r.consistent_read && r.index.is_none() {
            self.primary.scan(r).await
        } else {
            self.replica.scan(r).await
        }
    }
    async fn batch_get(&self, r: BatchGetRequest) -> Result<BatchGetOutput> {
        if r.consistent_read {
            self.primary.batch_get(r).await
        } else {
            self.replica.batch_get(r).await
        }
    }
    async fn batch_write(&self, r: BatchWriteRequest) -> Result<BatchWriteOutput> {
        let out = self.primary.batch_write(r.clone()).await?;
        self.replay(Write::Batch(r));
        Ok(out)
    }
    async fn transact_get(&self, r: TransactGetRequest) -> Result<TransactGetOutput> {
        self.primary.transact_get(r).await
    }
    async fn transact_write(&self, r: TransactWriteRequest) -> Result<TransactWriteOutput> {
        let out = self.primary.transact_write(r.clone()).await?;
        self.replay(Write::Transact(r));
        Ok(out)
    }
    async fn create_table(&self, d: &TableDef) -> Result<()> {
        self.primary.create_table(d).await?;
        self.replica.create_table(d).await
    }
    async fn delete_table(&self, n: &str) -> Result<()> {
        self.primary.delete_table(n).await?;
        self.replica.delete_table(n).await
    }
    async fn describe_table(&self, n: &str) -> Result<TableDescription> {
        self.primary.describe_table(n).await
    }
    async fn update_ttl(&self, t: &str, a: &str, e: bool) -> Result<()> {
        self.primary.update_ttl(t, a, e).await?;
        self.replica.update_ttl(t, a, e).await
    }
    async fn update_table(&self, r: UpdateTableRequest) -> Result<TableDescription> {
        self.primary.update_table(r.clone()).await?;
        self.replica.update_table(r).await
    }
}
