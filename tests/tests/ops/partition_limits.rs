//! `MemoryStore::with_partition_limits`: DynamoDB's per-partition throttling on a laptop, so the
//! retry paths and the batch engine meet it in tests. Time is tokio's paused clock, read by the
//! store through `with_clock`: the batch engine's backoff advances it, nothing sleeps for real.
//!
//! Limits are small (30 read / 10 write units a second) so that a few requests reach them.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use dyno_core::expr::{Path, SetValue};
use dyno_core::hot::PartitionLimits;
use dyno_core::ops::{BatchWriter, EntityExt, RetryPolicy, Transaction};
use dyno_core::store::WriteRequest;
use dyno_core::{AttributeValue, Error, Item, MemoryStore, Store};
use dyno_tests::model::{ecommerce_table, Product, TABLE};

/// A throttled store on tokio's clock (paused in these tests), with the e-commerce table.
async fn store() -> MemoryStore {
    let start = tokio::time::Instant::now();
    let epoch = SystemTime::UNIX_EPOCH + Duration::from_secs(1_750_000_000);
    let store = MemoryStore::with_clock(Arc::new(move || epoch + start.elapsed()))
        .with_partition_limits(PartitionLimits::new(30.0, 10.0));
    store.create_table(&ecommerce_table(TABLE)).await.unwrap();
    store
}

fn product(i: usize, category: &str) -> Product {
    Product {
        product_id: format!("p{i:04}"),
        name: format!("product {i}"),
        category: category.into(),
        price_cents: i as u32,
        stock: 1,
    }
}

/// Runs `n` writes at one instant, returning how many passed; every failure must be throttling.
async fn count_passed<F, Fut>(n: usize, write: F) -> usize
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = dyno_core::Result<()>>,
{
    let mut passed = 0;
    for i in 0..n {
        match write(i).await {
            Ok(()) => passed += 1,
            Err(e) => assert!(e.is_throttled(), "write {i}: {e:?}"),
        }
    }
    passed
}

async fn add_stock(store: &MemoryStore, id: &str) -> dyno_core::Result<()> {
    Product::update(Product::key(id)?)
        .add(Path::attr("stock"), AttributeValue::N("1".into()))
        .send(store)
        .await
        .map(drop)
}

#[tokio::test(start_paused = true)]
async fn a_burst_on_one_partition_key_is_throttled_and_the_same_load_over_shards_is_not() {
    let store = store().await;
    product(0, "c").create().send(&store).await.unwrap();
    tokio::time::advance(Duration::from_secs(1)).await;

    // 20 increments of one item at once: one partition's second holds 10 write units.
    let passed = count_passed(20, |_| add_stock(&store, "p0000")).await;
    assert_eq!(passed, 10);
    let stored = Product::get(Product::key("p0000").unwrap())
        .consistent()
        .send(&store)
        .await;
    // Reads and writes share the partition ("or a combination"): the get waits too.
    assert!(stored.unwrap_err().is_throttled());
    tokio::time::advance(Duration::from_secs(1)).await;
    let stored = Product::get(Product::key("p0000").unwrap())
        .consistent()
        .send(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.stock, 1 + 10, "a throttled write wrote nothing");

    // The same 20 writes spread over 20 items in 10 categories (each category a GSI1
    // partition, the shards of the load): none throttled.
    let passed = count_passed(20, |i| {
        let (p, store) = (product(100 + i, &format!("shard{}", i % 10)), &store);
        async move { p.create().send(store).await }
    })
    .await;
    assert_eq!(passed, 20);

    // 20 new items, each its own table partition, but all in one GSI1 partition: the hot
    // index key throttles the table's writes, as on DynamoDB.
    let passed = count_passed(20, |i| {
        let (p, store) = (product(200 + i, "hot"), &store);
        async move { p.create().send(store).await }
    })
    .await;
    assert_eq!(passed, 10);
    // A second later the partitions have their capacity back.
    tokio::time::advance(Duration::from_secs(1)).await;
    let in_index = Product::by_category("hot")
        .unwrap()
        .all(&store)
        .await
        .unwrap();
    assert_eq!(in_index.len(), 10);
    assert_eq!(count_passed(5, |_| add_stock(&store, "p0000")).await, 5);
}

#[tokio::test(start_paused = true)]
async fn typed_operations_on_a_spent_partition_are_throttled_and_write_nothing() {
    let store = store().await;
    product(0, "c").create().send(&store).await.unwrap();
    for _ in 0..9 {
        add_stock(&store, "p0000").await.unwrap();
    }
    let key = || Product::key("p0000").unwrap();

    let err = add_stock(&store, "p0000").await.unwrap_err();
    assert!(err.is_throttled(), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("ProvisionedThroughputExceededException")
            && message.contains("PRODUCT#p0000")
            && message.contains("nothing was written"),
        "{message}"
    );
    let err = Product::delete(key()).send(&store).await.unwrap_err();
    assert!(err.is_throttled(), "{err:?}");
    let err = product(0, "c").put().send(&store).await.unwrap_err();
    assert!(err.is_throttled(), "{err:?}");
    let err = Product::get(key()).send(&store).await.unwrap_err();
    assert!(err.is_throttled(), "{err:?}");
    // The category's GSI1 partition took the same 10 writes: a query of it is throttled.
    let err = Product::by_category("c")
        .unwrap()
        .all(&store)
        .await
        .unwrap_err();
    assert!(err.is_throttled(), "{err:?}");
    // A transaction touching the spent partition is cancelled, the action named.
    let err = Transaction::new()
        .create(&product(1, "elsewhere"))
        .update(Product::update(key()).set(
            Path::attr("name"),
            SetValue::value(AttributeValue::S("x".into())),
        ))
        .send(&store)
        .await
        .unwrap_err();
    match &err {
        Error::TransactionCanceled { reasons } => {
            let codes: Vec<Option<&str>> = reasons.iter().map(|r| r.code.as_deref()).collect();
            assert_eq!(codes, [Some("None"), Some("ThrottlingError")], "{err:?}");
        }
        other => panic!("expected TransactionCanceled, got {other:?}"),
    }

    tokio::time::advance(Duration::from_secs(1)).await;
    let p = Product::get(key())
        .consistent()
        .send(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (p.stock, p.name.as_str()),
        (10, "product 0"),
        "nothing written"
    );
    assert_eq!(
        Product::get(Product::key("p0001").unwrap())
            .send(&store)
            .await
            .unwrap(),
        None
    );
    // Another partition key value was never limited by this one.
    product(2, "other").create().send(&store).await.unwrap();
}

fn number_of(w: &WriteRequest) -> usize {
    let item: &Item = match w {
        WriteRequest::Put { item, .. } => item,
        WriteRequest::Delete { key, .. } => key,
    };
    match item.get("PK") {
        Some(AttributeValue::S(pk)) => pk.trim_start_matches("PRODUCT#p").parse().unwrap(),
        other => panic!("no PK: {other:?}"),
    }
}

async fn stored(store: &MemoryStore) -> BTreeSet<usize> {
    Product::scan()
        .all(store)
        .await
        .unwrap()
        .iter()
        .map(|p| p.price_cents as usize)
        .collect()
}

/// 200 products in 2 categories: 100 writes on each GSI1 partition, 10 a second pass.
fn two_hot_categories() -> Vec<Product> {
    (0..200)
        .map(|i| product(i, if i % 2 == 0 { "even" } else { "odd" }))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn the_batch_engine_writes_every_item_through_throttling_given_the_attempts() {
    let store = store().await;
    let start = tokio::time::Instant::now();
    let mut batch = BatchWriter::new()
        .retry(RetryPolicy {
            max_attempts: 200,
            base_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(1),
        })
        .concurrency(4);
    batch.put_all(&two_hot_categories()).unwrap();
    let report = batch.send(&store).await.unwrap();
    assert_eq!(report.written, 200);
    assert!(report.unprocessed.is_empty() && report.errors.is_empty());
    assert_eq!(stored(&store).await, (0..200).collect());
    // 100 writes on a partition taking 10 a second: at least 9 seconds (of virtual time).
    assert!(
        start.elapsed() >= Duration::from_secs(9),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test(start_paused = true)]
async fn the_batch_engine_out_of_attempts_hands_back_every_unwritten_item() {
    let store = store().await;
    let mut batch = BatchWriter::new()
        .retry(RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(2),
        })
        .concurrency(2);
    batch.put_all(&two_hot_categories()).unwrap();
    let report = batch.send_report(&store).await;
    let left: BTreeSet<usize> = report.unprocessed.iter().map(number_of).collect();
    assert_eq!(
        left.len(),
        report.unprocessed.len(),
        "an item handed back twice"
    );
    let written = stored(&store).await;
    assert!(!left.is_empty() && report.written > 0, "{report:?}");
    assert_eq!(written.len(), report.written);
    assert!(
        written.is_disjoint(&left),
        "an item both written and handed back"
    );
    assert_eq!(
        written.union(&left).count(),
        200,
        "every item is written or handed back"
    );
    assert!(
        !report.errors.is_empty() && report.errors.iter().all(Error::is_throttled),
        "{:?}",
        report.errors
    );
}

#[tokio::test(start_paused = true)]
async fn a_raw_batch_returns_what_a_spent_partition_refused_and_fails_when_it_refused_all() {
    use dyno_core::store::{BatchGetRequest, BatchWriteRequest, TableKey};
    use dyno_core::Entity;

    let store = store().await;
    product(0, "c").create().send(&store).await.unwrap();
    for _ in 0..9 {
        add_stock(&store, "p0000").await.unwrap();
    }
    let key_item = |i: usize| Product::key(&format!("p{i:04}")).unwrap().into_item();
    // Three reads: p0000's partition is spent (by writes: they share it), the others are not.
    let out = store
        .batch_get(BatchGetRequest::new(
            (0..3)
                .map(|i| TableKey {
                    table: TABLE.into(),
                    key: key_item(i),
                })
                .collect(),
        ))
        .await
        .unwrap();
    assert_eq!(out.unprocessed_keys.len(), 1);
    assert_eq!(out.unprocessed_keys[0].key, key_item(0));
    // Only the spent partition: the request itself is throttled.
    let err = store
        .batch_get(BatchGetRequest::new(vec![TableKey {
            table: TABLE.into(),
            key: key_item(0),
        }]))
        .await
        .unwrap_err();
    assert!(err.is_throttled(), "{err:?}");

    // Writes: one on the spent partition comes back, the other is written.
    let put = |i: usize, category: &str| {
        WriteRequest::put(TABLE, product(i, category).to_item().unwrap())
    };
    let out = store
        .batch_write(BatchWriteRequest::new(vec![put(0, "c"), put(5, "d")]))
        .await
        .unwrap();
    assert_eq!(out.unprocessed, [put(0, "c")]);
    assert_eq!(stored(&store).await, BTreeSet::from([0, 5]));
    let err = store
        .batch_write(BatchWriteRequest::new(vec![put(0, "c")]))
        .await
        .unwrap_err();
    assert!(err.is_throttled(), "{err:?}");
}

#[tokio::test(start_paused = true)]
async fn an_update_moving_an_item_into_an_index_partition_is_charged_there() {
    let store = store().await;
    product(0, "cold").create().send(&store).await.unwrap();
    // 9 of the 10 write units of GSI1's CATEGORY#warm partition.
    for i in 1..10 {
        product(i, "warm").create().send(&store).await.unwrap();
    }
    // Moving p0000 into CATEGORY#warm writes an entry there (half of the delete and put).
    Product::update(Product::key("p0000").unwrap())
        .set(
            Path::attr("GSI1PK"),
            SetValue::value(AttributeValue::S("CATEGORY#warm".into())),
        )
        .send(&store)
        .await
        .unwrap();
    let err = product(10, "warm").create().send(&store).await.unwrap_err();
    assert!(err.is_throttled(), "{err:?}");
    product(11, "cold").create().send(&store).await.unwrap();
}
