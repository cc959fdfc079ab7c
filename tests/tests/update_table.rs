//! UpdateTable through the wrappers: the cache drops a removed index's pages and learns a new
//! index's, the renaming store maps names both ways, and a store that does not implement it says
//! so. (The engine's behaviour is in the conformance suite, its races in memory_model.rs.)

use std::sync::Arc;

use dyno_cache::CachedStore;
use dyno_core::expr::KeyCondition;
use dyno_core::store::*;
use dyno_core::table::IndexDef;
use dyno_core::{AttributeValue, Error, Item, MemoryStore, TableDef};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// Users and their orders in one table; orders carry a `status`.
fn shop() -> TableDef {
    TableDef::new("Shop", "PK", Some("SK")).global_index(IndexDef::new("GSI1", "GSI1PK", None))
}

fn order(user: &str, id: &str, status: &str) -> Item {
    Item::from([
        ("PK".to_owned(), s(&format!("USER#{user}"))),
        ("SK".to_owned(), s(&format!("ORDER#{id}"))),
        ("status".to_owned(), s(status)),
        ("GSI1PK".to_owned(), s("ORDERS")),
    ])
}

fn put(item: Item) -> PutRequest {
    PutRequest {
        table: "Shop".into(),
        item,
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    }
}

fn by_status(status: &str) -> QueryRequest {
    QueryRequest::new(
        "Shop",
        Some("ByStatus"),
        KeyCondition::partition("status", s(status)),
    )
}

fn sks(page: &Page) -> Vec<String> {
    let mut out: Vec<String> = page
        .items
        .iter()
        .map(|i| match &i["SK"] {
            AttributeValue::S(v) => v.clone(),
            other => panic!("SK {other:?}"),
        })
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn the_cache_follows_an_index_added_and_removed() {
    let cache = CachedStore::new(MemoryStore::new());
    cache.create_table(&shop()).await.unwrap();
    cache
        .put_item(put(order("u1", "1", "SHIPPED")))
        .await
        .unwrap();
    cache
        .put_item(put(order("u2", "2", "PENDING")))
        .await
        .unwrap();

    cache
        .update_table(UpdateTableRequest::create_index(
            "Shop",
            IndexDef::new("ByStatus", "status", None),
        ))
        .await
        .unwrap();
    let page = cache.query(by_status("SHIPPED")).await.unwrap();
    assert_eq!(sks(&page), ["ORDER#1"], "backfilled");
    let again = cache.query(by_status("SHIPPED")).await.unwrap();
    assert_eq!(sks(&again), ["ORDER#1"]);
    assert!(cache.metrics().query.hits > 0, "the page is cached");
    // A write after the index was added invalidates its cached pages.
    cache
        .put_item(put(order("u2", "3", "SHIPPED")))
        .await
        .unwrap();
    let page = cache.query(by_status("SHIPPED")).await.unwrap();
    assert_eq!(
        sks(&page),
        ["ORDER#1", "ORDER#3"],
        "the new index's pages follow writes"
    );

    cache
        .update_table(UpdateTableRequest::delete_index("Shop", "ByStatus"))
        .await
        .unwrap();
    match cache.query(by_status("SHIPPED")).await {
        Err(Error::Validation { .. }) => {}
        other => panic!("a removed index's cached page was served: {other:?}"),
    }
    let description = cache.describe_table("Shop").await.unwrap();
    assert!(description.definition.index("ByStatus").is_none());
}

#[tokio::test]
async fn a_renaming_store_maps_update_table_names_both_ways() {
    let store = TableNames::new(MemoryStore::new()).prefix("t1-");
    store.create_table(&shop()).await.unwrap();
    let answer = store
        .update_table(UpdateTableRequest::create_index(
            "Shop",
            IndexDef::new("ByStatus", "status", None),
        ))
        .await
        .unwrap();
    assert_eq!(
        answer.definition.name, "Shop",
        "the logical name comes back"
    );
    assert_eq!(answer.status_of("ByStatus"), Some(IndexStatus::Creating));
    let physical = store.inner().describe_table("t1-Shop").await.unwrap();
    assert!(physical.definition.index("ByStatus").is_some());
    let waited = wait_for_indexes(&store, "Shop", std::time::Duration::from_secs(5))
        .await
        .unwrap();
    assert!(waited.indexes_active());
}

/// A wrapper written before UpdateTable existed, which does not forward it.
#[derive(Debug)]
struct Old(MemoryStore);

#[async_trait::async_trait]
impl Store for Old {
    async fn get_item(&self, r: GetRequest<'_>) -> dyno_core::Result<GetOutput> {
        self.0.get_item(r).await
    }
    async fn put_item(&self, r: PutRequest) -> dyno_core::Result<WriteOutput> {
        self.0.put_item(r).await
    }
    async fn update_item(&self, r: UpdateRequest) -> dyno_core::Result<WriteOutput> {
        self.0.update_item(r).await
    }
    async fn delete_item(&self, r: DeleteRequest) -> dyno_core::Result<WriteOutput> {
        self.0.delete_item(r).await
    }
    async fn query(&self, r: QueryRequest) -> dyno_core::Result<Page> {
        self.0.query(r).await
    }
    async fn scan(&self, r: ScanRequest) -> dyno_core::Result<Page> {
        self.0.scan(r).await
    }
    async fn batch_get(&self, r: BatchGetRequest) -> dyno_core::Result<BatchGetOutput> {
        self.0.batch_get(r).await
    }
    async fn batch_write(&self, r: BatchWriteRequest) -> dyno_core::Result<BatchWriteOutput> {
        self.0.batch_write(r).await
    }
    async fn transact_get(&self, r: TransactGetRequest) -> dyno_core::Result<TransactGetOutput> {
        self.0.transact_get(r).await
    }
    async fn transact_write(&self, r: TransactWriteRequest) -> dyno_core::Result<()> {
        self.0.transact_write(r).await
    }
    async fn create_table(&self, d: &TableDef) -> dyno_core::Result<()> {
        self.0.create_table(d).await
    }
    async fn delete_table(&self, n: &str) -> dyno_core::Result<()> {
        self.0.delete_table(n).await
    }
    async fn describe_table(&self, n: &str) -> dyno_core::Result<TableDescription> {
        self.0.describe_table(n).await
    }
    async fn update_ttl(&self, t: &str, a: &str, e: bool) -> dyno_core::Result<()> {
        self.0.update_ttl(t, a, e).await
    }
}

#[tokio::test]
async fn a_store_without_update_table_refuses_and_changes_nothing() {
    let store: Arc<dyn Store> = Arc::new(Old(MemoryStore::new()));
    store.create_table(&shop()).await.unwrap();
    let err = store
        .update_table(UpdateTableRequest::delete_index("Shop", "GSI1"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Configuration { message, .. } if message.contains("does not implement UpdateTable")),
        "{err:?}"
    );
    let description = store.describe_table("Shop").await.unwrap();
    assert!(description.definition.index("GSI1").is_some());
}
