//! MemoryStore against dynoxide embedded (the `dynoxide-rs` engine on in-memory SQLite, called
//! in-process) and dynalite, in one run and on one workload: put, get, a 100-item query and a
//! filtered scan of 1,000 items (100 match). MemoryStore and dynalite run through the `Store`
//! trait; dynoxide through its own API, with the same tables (one GSI) and items. dynalite joins
//! when `DYNO_DYNALITE_ENDPOINT` is set (`scripts/bench` starts it). The timing covers the store
//! call: requests are built before it (a get borrows its table name and key, so it has nothing to
//! build), outputs dropped after it.
//!
//! `scripts/bench store`

#[path = "support/dynoxide.rs"]
mod dynoxide_support;
#[path = "support/orders.rs"]
mod orders;

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use dyno_core::expr::{Condition, KeyCondition};
use dyno_core::store::{GetRequest, QueryRequest, ScanRequest};
use dyno_core::table::TableDef;
use dyno_core::{DynamoStore, Item, MemoryStore, Store};
use dynoxide_support::{create_table, request, wire};
use orders::{order, put, s};

/// Requests are built, and outputs dropped, outside the timing, in batches this small (so that
/// a batch's requests and outputs stay in warm memory).
const BATCH: BatchSize = BatchSize::NumIterations(64);

/// Distinct keys the put benchmark cycles over.
const PUT_KEYS: u32 = 10_000;

/// Items of the scan table; every tenth is shipped, so the filter keeps 100.
const SCAN_ITEMS: u32 = 1_000;

/// An item of the scan table: orders of one user, every tenth shipped.
fn scanned(i: u32) -> Item {
    let mut item = order(3, i);
    if i.is_multiple_of(10) {
        item.insert("status".to_owned(), s("SHIPPED"));
    }
    item
}

fn bench_store(c: &mut Criterion, rt: &tokio::runtime::Runtime, name: &str, store: Arc<dyn Store>) {
    let table = format!("bench_{}_{}", name, std::process::id());
    let scan_table = format!("{table}_scan");
    let def = |name: &str| {
        TableDef::new(name, "PK", Some("SK")).global_index(dyno_core::table::IndexDef::new(
            "GSI1",
            "GSI1PK",
            Some("GSI1SK"),
        ))
    };
    rt.block_on(async {
        store
            .create_table(&def(&table))
            .await
            .expect("create bench table");
        store
            .create_table(&def(&scan_table))
            .await
            .expect("create scan table");
        for i in 0..100 {
            store
                .put_item(put(&table, order(1, i)))
                .await
                .expect("seed");
        }
        for i in 0..SCAN_ITEMS {
            store
                .put_item(put(&scan_table, scanned(i)))
                .await
                .expect("seed scan table");
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
    group.bench_function(format!("{name}/scan_filtered"), |b| {
        b.to_async(rt).iter_batched(
            || ScanRequest::new(scan_table.clone())
                .with_filter(Some(Condition::eq("status", s("SHIPPED")))),
            |req| async {
                let page = store.scan(req).await.unwrap();
                assert_eq!((page.count, page.scanned_count), (100, SCAN_ITEMS as usize));
                page
            },
            BATCH,
        );
    });
    group.finish();
    rt.block_on(async {
        store.delete_table(&table).await.expect("drop bench table");
        store
            .delete_table(&scan_table)
            .await
            .expect("drop scan table");
    });
}

/// The same tables, items and four operations on dynoxide embedded: `Database::memory()`, called
/// in-process (no HTTP), each call a synchronous SQLite transaction.
fn bench_dynoxide(c: &mut Criterion) {
    let db = dynoxide::Database::memory().expect("dynoxide in-memory database");
    let put_req = |table: &str, item: &Item| -> dynoxide::actions::put_item::PutItemRequest {
        request(serde_json::json!({ "TableName": table, "Item": wire(item) }))
    };
    create_table(&db, "orders");
    create_table(&db, "scan");
    for i in 0..100 {
        db.put_item(put_req("orders", &order(1, i))).expect("seed");
    }
    for i in 0..SCAN_ITEMS {
        db.put_item(put_req("scan", &scanned(i)))
            .expect("seed scan table");
    }
    let key = Item::from([
        ("PK".to_owned(), s("USER#1")),
        ("SK".to_owned(), s("ORDER#00000007")),
    ]);

    let mut group = c.benchmark_group("store");
    group.bench_function("dynoxide-embedded/put", |b| {
        let mut i = 0u32;
        b.iter_batched(
            || {
                i = (i + 1) % PUT_KEYS;
                put_req("orders", &order(2, i))
            },
            |req| db.put_item(req).unwrap(),
            BATCH,
        );
    });
    group.bench_function("dynoxide-embedded/get", |b| {
        b.iter_batched(
            || -> dynoxide::actions::get_item::GetItemRequest {
                request(serde_json::json!({ "TableName": "orders", "Key": wire(&key) }))
            },
            |req| {
                let out = db.get_item(req).unwrap();
                assert!(out.item.is_some());
                out
            },
            BATCH,
        );
    });
    group.bench_function("dynoxide-embedded/query100", |b| {
        b.iter_batched(
            || -> dynoxide::actions::query::QueryRequest {
                request(serde_json::json!({
                    "TableName": "orders",
                    "KeyConditionExpression": "PK = :p",
                    "ExpressionAttributeValues": {":p": {"S": "USER#1"}}
                }))
            },
            |req| {
                let page = db.query(req).unwrap();
                assert_eq!(page.count, 100);
                page
            },
            BATCH,
        );
    });
    group.bench_function("dynoxide-embedded/scan_filtered", |b| {
        b.iter_batched(
            || -> dynoxide::actions::scan::ScanRequest {
                request(serde_json::json!({
                    "TableName": "scan",
                    "FilterExpression": "#s = :v",
                    "ExpressionAttributeNames": {"#s": "status"},
                    "ExpressionAttributeValues": {":v": {"S": "SHIPPED"}}
                }))
            },
            |req| {
                let page = db.scan(req).unwrap();
                assert_eq!((page.count, page.scanned_count), (100, SCAN_ITEMS as usize));
                page
            },
            BATCH,
        );
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    bench_store(c, &rt, "memory", Arc::new(MemoryStore::new()));
    bench_dynoxide(c);
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
