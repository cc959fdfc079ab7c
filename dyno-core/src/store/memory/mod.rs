//! `MemoryStore`: an embedded engine with DynamoDB's semantics.

mod eval;

/// The in-process engine.
#[derive(Debug, Default)]
pub struct MemoryStore {}

impl MemoryStore {
    /// An empty engine with no tables.
    pub fn new() -> Self {
        Self::default()
    }
}

// TEMPORARY placeholder so `Arc<dyn Store>` of a MemoryStore compiles (the test harness in
// tests/src/backend.rs needs it) until the memory helper lands the real engine: replace this
// whole impl with it. Every call fails with a clear error rather than pretending to work.
#[async_trait::async_trait]
impl super::Store for MemoryStore {
    async fn get_item(&self, _r: super::GetRequest) -> crate::Result<super::GetOutput> {
        Err(not_yet())
    }
    async fn put_item(&self, _r: super::PutRequest) -> crate::Result<super::WriteOutput> {
        Err(not_yet())
    }
    async fn update_item(&self, _r: super::UpdateRequest) -> crate::Result<super::WriteOutput> {
        Err(not_yet())
    }
    async fn delete_item(&self, _r: super::DeleteRequest) -> crate::Result<super::WriteOutput> {
        Err(not_yet())
    }
    async fn query(&self, _r: super::QueryRequest) -> crate::Result<super::Page> {
        Err(not_yet())
    }
    async fn scan(&self, _r: super::ScanRequest) -> crate::Result<super::Page> {
        Err(not_yet())
    }
    async fn batch_get(&self, _r: super::BatchGetRequest) -> crate::Result<super::BatchGetOutput> {
        Err(not_yet())
    }
    async fn batch_write(&self, _r: super::BatchWriteRequest) -> crate::Result<super::BatchWriteOutput> {
        Err(not_yet())
    }
    async fn transact_get(&self, _r: super::TransactGetRequest) -> crate::Result<super::TransactGetOutput> {
        Err(not_yet())
    }
    async fn transact_write(&self, _r: super::TransactWriteRequest) -> crate::Result<()> {
        Err(not_yet())
    }
    async fn create_table(&self, _d: &crate::TableDef) -> crate::Result<()> {
        Err(not_yet())
    }
    async fn delete_table(&self, _n: &str) -> crate::Result<()> {
        Err(not_yet())
    }
    async fn describe_table(&self, _n: &str) -> crate::Result<super::TableDescription> {
        Err(not_yet())
    }
    async fn update_ttl(&self, _t: &str, _a: &str, _e: bool) -> crate::Result<()> {
        Err(not_yet())
    }
}

fn not_yet() -> crate::Error {
    crate::Error::Service { code: None, message: "MemoryStore is not implemented yet".into(), source: None }
}
