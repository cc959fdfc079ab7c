//! Shared fixtures of the cache tests: a CachedStore over a FaultStore over MemoryStore, on a
//! manual clock, with the table registered (so no DescribeTable calls are counted).

#![allow(dead_code)]

use std::time::Duration;

use dyno_cache::{CachedStore, CachedStoreBuilder, ManualClock};
use dyno_core::expr::{Condition, KeyCondition, Path, SetValue, Update};
use dyno_core::store::{
    DeleteRequest, GetRequest, PutRequest, QueryRequest, Store, UpdateRequest, WriteOutput,
};
use dyno_core::table::IndexDef;
use dyno_core::value::SharedItem;
use dyno_core::{AttributeValue, Item, MemoryStore, TableDef};
use dyno_tests::fault::FaultStore;

pub const TABLE: &str = "Shop";

/// The cache under test and what it sits on.
pub type Cached = CachedStore<FaultStore<MemoryStore>>;

pub fn table() -> TableDef {
    TableDef::new(TABLE, "PK", Some("SK"))
        .global_index(IndexDef::new("GSI1", "GSI1PK", Some("GSI1SK")))
        .ttl("ttl")
}

/// A cache built by `configure` over an empty `Shop` table; returns it with its clock.
pub async fn cached_with(
    configure: impl FnOnce(
        CachedStoreBuilder<FaultStore<MemoryStore>>,
    ) -> CachedStoreBuilder<FaultStore<MemoryStore>>,
) -> (Cached, ManualClock) {
    let memory = MemoryStore::new();
    memory.create_table(&table()).await.unwrap();
    let clock = ManualClock::new();
    // MemoryStore has no replicas to lag: these tests count what the cache does over a
    // strongly consistent store (the replica-lag guard is tested in `feed_faults`).
    let builder = CachedStore::builder(FaultStore::new(memory))
        .clock(clock.clone())
        .replica_lag(std::time::Duration::ZERO)
        .table(table());
    (configure(builder).build(), clock)
}

pub async fn cached() -> (Cached, ManualClock) {
    cached_with(|b| b).await
}

pub fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

pub fn key(pk: &str, sk: &str) -> Item {
    Item::from([("PK".to_owned(), s(pk)), ("SK".to_owned(), s(sk))])
}

/// An item with its key and `attrs` (string values).
pub fn item(pk: &str, sk: &str, attrs: &[(&str, &str)]) -> Item {
    let mut item = key(pk, sk);
    for (name, value) in attrs {
        item.insert((*name).to_owned(), s(value));
    }
    item
}

pub fn get(k: Item) -> GetRequest<'static> {
    GetRequest::new(TABLE, k)
}

/// The item at `k` through `store` (an eventually consistent get), which must not fail.
pub async fn read<S: Store + ?Sized>(store: &S, k: Item) -> Option<SharedItem> {
    store.get_item(get(k)).await.expect("get").item
}

/// Puts `item` through `store` (unconditionally), which must not fail.
pub async fn write<S: Store + ?Sized>(store: &S, item: Item) -> WriteOutput {
    store.put_item(put(item)).await.expect("put")
}

pub fn consistent_get(k: Item) -> GetRequest<'static> {
    get(k).consistent()
}

pub fn put(item: Item) -> PutRequest {
    PutRequest::new(TABLE, item)
}

pub fn put_if_absent(item: Item) -> PutRequest {
    put(item).with_condition(Some(Condition::not_exists("PK")))
}

/// `SET name = value, ...`
pub fn set(k: Item, pairs: &[(&str, &str)]) -> UpdateRequest {
    let update = Update {
        set: pairs
            .iter()
            .map(|(n, v)| (Path::attr(*n), SetValue::value(s(v))))
            .collect(),
        ..Update::default()
    };
    UpdateRequest::new(TABLE, k, update)
}

pub fn delete(k: Item) -> DeleteRequest {
    DeleteRequest::new(TABLE, k)
}

/// All items of a table partition.
pub fn partition(pk: &str) -> QueryRequest {
    QueryRequest::new(TABLE, None, KeyCondition::partition("PK", s(pk)))
}

/// All items of a GSI1 partition.
pub fn gsi1(pk: &str) -> QueryRequest {
    QueryRequest::new(
        TABLE,
        Some("GSI1"),
        KeyCondition::partition("GSI1PK", s(pk)),
    )
}

/// The sort keys of a page's items, in order.
pub fn sks(page: &dyno_core::store::Page) -> Vec<String> {
    page.items
        .iter()
        .map(|i| match i.get("SK") {
            Some(AttributeValue::S(sk)) => sk.clone(),
            other => panic!("item without a string SK: {other:?}"),
        })
        .collect()
}

/// The value of a string attribute.
pub fn attr(item: &Item, name: &str) -> Option<String> {
    match item.get(name) {
        Some(AttributeValue::S(v)) => Some(v.clone()),
        _ => None,
    }
}

pub const SECOND: Duration = Duration::from_secs(1);
