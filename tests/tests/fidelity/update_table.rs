//! UpdateTable through the wrappers: the cache drops a removed index's pages and learns a new
//! index's, and the renaming store maps names both ways. Every `Store` implements it, so a
//! wrapper that does not forward it does not compile. (The engine's behaviour is in the
//! conformance suite, its races in memory_model.rs.)
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
    PutRequest::new("Shop", item)
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
