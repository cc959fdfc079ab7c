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

use dyno_core::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, Reply, ScanRequest, Store, TableDescription,
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

impl Store for LaggingStore {
    fn get_item<'a>(&'a self, r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        Reply::new(async move {
            if r.consistent_read {
                self.primary.get_item(r).await
            } else {
                self.replica.get_item(r).await
            }
        })
    }
    fn put_item(&self, r: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move {
            let out = self.primary.put_item(r.clone()).await?;
            self.replay(Write::Put(r));
            Ok(out)
        })
    }
    fn update_item(&self, r: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move {
            let out = self.primary.update_item(r.clone()).await?;
            self.replay(Write::Update(r));
            Ok(out)
        })
    }
    fn delete_item(&self, r: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move {
            let out = self.primary.delete_item(r.clone()).await?;
            self.replay(Write::Delete(r));
            Ok(out)
        })
    }
    fn query(&self, r: QueryRequest) -> Reply<'_, Result<Page>> {
        Reply::new(async move {
            if r.consistent_read && r.index.is_none() {
                self.primary.query(r).await
            } else {
                self.replica.query(r).await
            }
        })
    }
    fn scan(&self, r: ScanRequest) -> Reply<'_, Result<Page>> {
        Reply::new(async move {
            if r.consistent_read && r.index.is_none() {
                self.primary.scan(r).await
            } else {
                self.replica.scan(r).await
            }
        })
    }
    fn batch_get(&self, r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        Reply::new(async move {
            if r.consistent_read {
                self.primary.batch_get(r).await
            } else {
                self.replica.batch_get(r).await
            }
        })
    }
    fn batch_write(&self, r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        Reply::new(async move {
            let out = self.primary.batch_write(r.clone()).await?;
            self.replay(Write::Batch(r));
            Ok(out)
        })
    }
    fn transact_get(&self, r: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        Reply::new(async move { self.primary.transact_get(r).await })
    }
    fn transact_write(&self, r: TransactWriteRequest) -> Reply<'_, Result<TransactWriteOutput>> {
        Reply::new(async move {
            let out = self.primary.transact_write(r.clone()).await?;
            self.replay(Write::Transact(r));
            Ok(out)
        })
    }
    fn create_table<'a>(&'a self, d: &'a TableDef) -> Reply<'a, Result<()>> {
        Reply::new(async move {
            self.primary.create_table(d).await?;
            self.replica.create_table(d).await
        })
    }
    fn delete_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<()>> {
        Reply::new(async move {
            self.primary.delete_table(n).await?;
            self.replica.delete_table(n).await
        })
    }
    fn describe_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<TableDescription>> {
        Reply::new(async move { self.primary.describe_table(n).await })
    }
    fn update_ttl<'a>(&'a self, t: &'a str, a: &'a str, e: bool) -> Reply<'a, Result<()>> {
        Reply::new(async move {
            self.primary.update_ttl(t, a, e).await?;
            self.replica.update_ttl(t, a, e).await
        })
    }
    fn update_table(&self, r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        Reply::new(async move {
            self.primary.update_table(r.clone()).await?;
            self.replica.update_table(r).await
        })
    }
}
