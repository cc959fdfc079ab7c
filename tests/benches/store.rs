//! MemoryStore against dynalite through the same `Store` trait, in one run: put, get, and a
//! 100-item query. dynalite joins when `DYNO_DYNALITE_ENDPOINT` is set (`scripts/bench` starts it).
//! The timing covers the store call: requests are built before it (a get borrows its table name
//! and key, so it has nothing to build), outputs dropped after it.
//!
//! `scripts/bench store`

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use dyno_core::expr::KeyCondition;
use dyno_core::store::{GetRequest, PutRequest, QueryRequest, ReturnValues};
use dyno_core::table::TableDef;
use dyno_core::{AttributeValue, DynamoStore, Item, MemoryStore, Store};

/// Requests are built, and outputs dropped, outside the timing, in batches this small (so that
/// a batch's requests and outputs stay in warm memory).
const BATCH: BatchSize = BatchSize::NumIterations(64);

/// Distinct keys the put benchmark cycles over.
const PUT_KEYS: u32 = 10_000;

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
        // Cycling over PUT_KEYS keys keeps the table at a steady size: after the first round
        // every put replaces an item, so the figure is the put itself, not a table (and heap)
        // that grows by hundreds of thousands of items during the run.
        let mut i = 0u32;
        b.to_async(rt).iter_batched(
            || {
                i = (i + 1) % PUT_KEYS;
                put(&table, order(2, i))
            },
            |req| store.put_item(req),
            BATCH,
        );
    });
    group.bench_function(format!("{name}/get"), |b| {
        b.to_async(rt).iter_batched(
            || (),
            |()| async {
                let out = store
                    .get_item(GetRequest::borrowed(&table, &key))
                    .await
                    .unwrap();
                assert!(out.item.is_some());
                out
            },
            BATCH,
        );
    });
    group.bench_function(format!("{name}/query100"), |b| {
        b.to_async(rt).iter_batched(
            || {
                QueryRequest::new(
                    table.clone(),
                    None,
                    KeyCondition::partition("PK", s("USER#1")),
                )
            },
            |req| async {
                let page = store.query(req).await.unwrap();
                assert_eq!(page.items.len(), 100);
                page
            },
            BATCH,
        );
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
