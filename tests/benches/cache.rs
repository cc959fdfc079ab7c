//! dyno-cache's `CachedStore` on a hit, against a raw moka cache and uncached stores, in one run:
//!
//! - `cached_typed`: `Order::get(key).send(&cached)` on a hit, `key` an `Order::key(..)` made
//!   before the timing: the request, the cache lookup, the TTL check and one decode.
//! - `cached_shared`: `cached.get_shared(&key)` on a hit: the same lookup, then a clone of the
//!   `Arc<Order>` the cache keeps decoded beside the item (decoding nothing).
//! - `cached_untyped`: `cached.get_item(request)` on a hit, the `GetRequest` borrowing the table
//!   name and key (both made before the timing): the cache key encoding, the lookup.
//! - `moka_raw`: the same `Arc<Item>` from a plain `moka::future::Cache<String, Arc<Item>>`,
//!   keyed by a string built in the timing from the table name and key attributes (the user's
//!   counterpart of the cache's key encoding): what a hand-rolled cache costs.
//! - `memory_typed` / `dynalite_typed`: the typed get without a cache, on MemoryStore and on
//!   dynalite (`DYNO_DYNALITE_ENDPOINT`, set by `scripts/bench`).
//!
//! - `contended/memory_consistent` / `contended/cached_consistent`: strongly consistent untyped
//!   gets by 8 tasks on a 2-worker runtime, spread over 3 hot keys, on MemoryStore and through a
//!   `CachedStore` over one (each such read goes to the backend and refreshes the entry): wall
//!   time per get, so the ratio is the cache's bookkeeping under contention.
//!
//! Inputs are made and outputs dropped outside the timing in every case (but in `contended`).
//!
//! `scripts/bench cache`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use dyno_cache::CachedStore;
use dyno_core::ops::EntityExt;
use dyno_core::store::{DeleteRequest, GetRequest};
use dyno_core::{AttributeValue, DynamoStore, Error, Item, MemoryStore, Store, Table};
use dyno_tests::ecommerce::{self, ECommerce, Order};
use tokio::runtime::Runtime;

/// Inputs are made before, and outputs dropped after, the timing, in batches this small (so that
/// a batch's inputs and outputs stay in warm memory).
const BATCH: BatchSize = BatchSize::NumIterations(64);

/// The order the gets read (version 0: never stored, so its first put creates it).
fn sample() -> Order {
    Order {
        version: 0,
        ..ecommerce::full_order()
    }
}

fn key_of(o: &Order) -> dyno_core::ops::Key<Order> {
    Order::key(o.user_id.as_str(), o.order_id.as_str())
}

/// Creates the table (tolerating a leftover one) and stores the sample.
async fn seed<S: Store + ?Sized>(store: &S, order: &Order) {
    match ecommerce::create_table(store).await {
        Ok(()) | Err(Error::ResourceInUse { .. }) => {}
        Err(e) => panic!("create table: {e}"),
    }
    let leftover = DeleteRequest::new(table(), key_of(order).into_item());
    store
        .delete_item(leftover)
        .await
        .expect("delete leftover order");
    order.put().send(store).await.expect("seed order");
}

fn table() -> String {
    <ECommerce as Table>::definition().name.clone()
}

/// A user's cache key for an item: table and key attribute values.
fn user_key(table: &str, key: &Item) -> String {
    let (Some(AttributeValue::S(pk)), Some(AttributeValue::S(sk))) = (key.get("PK"), key.get("SK"))
    else {
        panic!("string PK and SK expected")
    };
    let mut k = String::with_capacity(table.len() + pk.len() + sk.len() + 2);
    k.push_str(table);
    k.push('\0');
    k.push_str(pk);
    k.push('\0');
    k.push_str(sk);
    k
}

fn typed_get<S: Store + ?Sized>(
    c: &mut Criterion,
    rt: &Runtime,
    name: &str,
    store: &S,
    expected: &Order,
) {
    let key = key_of(expected);
    c.benchmark_group("cache").bench_function(name, |b| {
        b.to_async(rt).iter_batched(
            || key.clone(),
            |key| async {
                let got = Order::get(key).send(store).await.unwrap();
                debug_assert_eq!(got.as_ref(), Some(expected));
                got
            },
            BATCH,
        )
    });
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let order = sample();
    let table = table();
    let key = key_of(&order).into_item();

    let cached = CachedStore::new(MemoryStore::new());
    let item: Arc<Item> = rt.block_on(async {
        seed(&cached, &order).await;
        let req = GetRequest::borrowed(&table, &key);
        cached.get_item(req).await.unwrap().item.expect("seeded")
    });
    let stored = Order::from_item(&item).unwrap();
    assert_eq!(stored.version, 1);
    let before = cached.metrics().item;

    let moka: moka::future::Cache<String, Arc<Item>> = moka::future::Cache::new(10_000);
    rt.block_on(moka.insert(user_key(&table, &key), item.clone()));

    typed_get(c, &rt, "cached_typed", &cached, &stored);
    let shared_key = key_of(&stored);
    // The first shared read decodes and keeps the order; every timed one is a hit.
    rt.block_on(cached.get_shared(&shared_key))
        .unwrap()
        .expect("seeded");
    c.benchmark_group("cache")
        .bench_function("cached_shared", |b| {
            b.to_async(&rt).iter_batched(
                || (),
                |()| async {
                    let got = cached.get_shared(black_box(&shared_key)).await.unwrap();
                    debug_assert_eq!(got.as_deref(), Some(&stored));
                    got
                },
                BATCH,
            )
        });
    c.benchmark_group("cache")
        .bench_function("cached_untyped", |b| {
            b.to_async(&rt).iter_batched(
                || (),
                |()| async {
                    let req = GetRequest::borrowed(black_box(&table), black_box(&key));
                    let got = cached.get_item(req).await.unwrap().item;
                    debug_assert!(got.is_some());
                    got
                },
                BATCH,
            )
        });
    c.benchmark_group("cache").bench_function("moka_raw", |b| {
        b.to_async(&rt).iter_batched(
            || (),
            |()| async {
                let got = moka
                    .get(&user_key(black_box(&table), black_box(&key)))
                    .await;
                debug_assert!(got.is_some());
                got
            },
            BATCH,
        )
    });
    let metrics = cached.metrics();
    assert_eq!(
        metrics.item.misses, before.misses,
        "every cached get must be a hit"
    );

    let memory = MemoryStore::new();
    rt.block_on(seed(&memory, &order));
    typed_get(c, &rt, "memory_typed", &memory, &stored);

    match std::env::var("DYNO_DYNALITE_ENDPOINT") {
        Ok(endpoint) => {
            let dynalite = rt.block_on(DynamoStore::local(&endpoint));
            rt.block_on(seed(&dynalite, &order));
            typed_get(c, &rt, "dynalite_typed", &dynalite, &stored);
        }
        Err(_) => eprintln!("DYNO_DYNALITE_ENDPOINT unset: dynalite skipped (use scripts/bench)"),
    }
}

/// Tasks and hot keys of the `contended` benchmarks.
const TASKS: u64 = 8;
const HOT: usize = 3;

/// `iters` strongly consistent gets of the hot orders, split over [`TASKS`] tasks: wall time.
fn consistent_gets<S: Store + 'static>(
    rt: &Runtime,
    store: &Arc<S>,
    keys: &Arc<Vec<Item>>,
    iters: u64,
) -> std::time::Duration {
    rt.block_on(async {
        let start = std::time::Instant::now();
        let tasks: Vec<_> = (0..TASKS)
            .map(|t| {
                let (store, keys) = (store.clone(), keys.clone());
                tokio::spawn(async move {
                    let table = table();
                    for i in 0..iters.div_ceil(TASKS) {
                        let key = &keys[(t + i) as usize % HOT];
                        let mut req = GetRequest::borrowed(&table, key);
                        req.consistent_read = true;
                        let got = store.get_item(req).await.unwrap().item;
                        debug_assert!(got.is_some());
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        start.elapsed()
    })
}

fn contended(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let orders: Vec<Order> = (0..HOT)
        .map(|i| Order {
            order_id: format!("hot{i}"),
            ..sample()
        })
        .collect();
    let keys: Arc<Vec<Item>> = Arc::new(orders.iter().map(|o| key_of(o).into_item()).collect());
    let memory = Arc::new(MemoryStore::new());
    let cached = Arc::new(CachedStore::new(MemoryStore::new()));
    rt.block_on(async {
        for o in &orders {
            seed(&*memory, o).await;
            seed(&*cached, o).await;
        }
    });
    let mut group = c.benchmark_group("contended");
    group.bench_function("memory_consistent", |b| {
        b.iter_custom(|iters| consistent_gets(&rt, &memory, &keys, iters))
    });
    group.bench_function("cached_consistent", |b| {
        b.iter_custom(|iters| consistent_gets(&rt, &cached, &keys, iters))
    });
    group.finish();
}

criterion_group!(cache, benches, contended);
criterion_main!(cache);
