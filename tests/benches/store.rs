//! MemoryStore against dynalite through the same `Store` trait, in one run: put, get, and a
//! 100-item query. dynalite joins when `DYNO_DYNALITE_ENDPOINT` is set (`scripts/bench` starts it).
//!
//! `cargo bench -p dyno-tests --bench store`

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use dyno_core::expr::KeyCondition;
use dyno_core::store::{GetRequest, PutRequest, QueryRequest, ReturnValues};
use dyno_core::table::TableDef;
use dyno_core::{AttributeValue, DynamoStore, Item, MemoryStore, Store};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// An order-like item of ten attributes.
fn order(user: u32, order: u32) -> Item {
    Item::from([
        ("PK".to_owned(), s(&format!("USER#{user}"))),
        ("SK".to_owned(), s(&format!("ORDER#{order:08}"))),
        ("GSI1PK".to_owned(), s("STATUS#PENDING")),
        ("GSI1SK".to_owned(), s("2024-05-01")),
        ("_type".to_owned(), s("Order")),
        ("user_id".to_owned(), s(&user.to_string())),
        ("order_id".to_owned(), s(&order.to_string())),
        ("status".to_owned(), s("PENDING")),
        ("total".to_owned(), AttributeValue::N("129.99".to_owned())),
        ("version".to_owned(), AttributeValue::N("1".to_owned())),
    ])
}

fn put(table: &str, item: Item) -> PutRequest {
    PutRequest {
        table: table.to_owned(),
        item,
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    }
}

fn bench_store(c: &mut Criterion, rt: &tokio::runtime::Runtime, name: &str, store: Arc<dyn Store>) {
    let table = format!("bench_{}_{}", name, std::process::id());
    let def = TableDef::new(&table, "PK", Some("SK")).global_index(
        dyno_core::table::IndexDef::new("GSI1", "GSI1PK", Some("GSI1SK")),
    );
    rt.block_on(async {
        store.create_table(&def).await.expect("create bench table");
        for i in 0..100 {
            store
                .put_item(put(&table, order(1, i)))
                .await
                .expect("seed");
        }
    });
    let key = Item::from([
        ("PK".to_owned(), s("USER#1")),
        ("SK".to_owned(), s("ORDER#00000007")),
    ]);

    let mut group = c.benchmark_group("store");
    group.bench_function(format!("{name}/put"), |b| {
        let mut i = 1000u32;
        b.to_async(rt).iter(|| {
            i += 1;
            let req = put(&table, order(2, i));
            let store = &store;
            async move { store.put_item(req).await.unwrap() }
        });
    });
    group.bench_function(format!("{name}/get"), |b| {
        b.to_async(rt).iter(|| {
            let req = GetRequest {
                table: table.clone(),
                key: key.clone(),
                consistent_read: false,
                projection: None,
            };
            let store = &store;
            async move { assert!(store.get_item(req).await.unwrap().item.is_some()) }
        });
    });
    group.bench_function(format!("{name}/query100"), |b| {
        b.to_async(rt).iter(|| {
            let req = QueryRequest::new(
                table.clone(),
                None,
                KeyCondition::partition("PK", s("USER#1")),
            );
            let store = &store;
            async move { assert_eq!(store.query(req).await.unwrap().items.len(), 100) }
        });
    });
    group.finish();
    rt.block_on(async { store.delete_table(&table).await.expect("drop bench table") });
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    bench_store(c, &rt, "memory", Arc::new(MemoryStore::new()));
    match std::env::var("DYNO_DYNALITE_ENDPOINT") {
        Ok(endpoint) => {
            let store = rt.block_on(DynamoStore::local(&endpoint));
            bench_store(c, &rt, "dynalite", Arc::new(store));
        }
        Err(_) => eprintln!("DYNO_DYNALITE_ENDPOINT unset: dynalite skipped (use scripts/bench)"),
    }
}

criterion_group!(store, benches);
criterion_main!(store);
