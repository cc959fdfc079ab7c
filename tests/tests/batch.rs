//! The batch engine through a fault-injecting store: 1,000 items written and read with unprocessed
//! items and throttling, every item accounted for, whether retries succeed or run out.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use dyno_core::ops::{BatchGet, BatchWriter, EntityExt, RetryPolicy};
use dyno_core::store::*;
use dyno_core::{AttributeValue, Error, Item, MemoryStore, Result, Store, TableDef};
use dyno_tests::model::{ecommerce_table, Product, TABLE};

type KeyFilter = Arc<dyn Fn(&Item) -> bool + Send + Sync>;

/// A minimal fault injector for batch calls (the shared one in `dyno_tests` was not in main when
/// this was written): every `throttle_every`-th batch call fails with `Throttled`; each batch call
/// leaves the last `unprocessed_percent`% of its items (rounded down) unprocessed; keys matching
/// `poisoned` are never processed; keys matching `invalid` fail their whole call with a
/// validation error. Also counts calls and the most calls in flight at once.
struct FaultStore {
    inner: MemoryStore,
    throttle_every: usize,
    unprocessed_percent: usize,
    poisoned: KeyFilter,
    invalid: KeyFilter,
    calls: AtomicUsize,
    deferred: AtomicUsize,
    throttled: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

impl std::fmt::Debug for FaultStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultStore").field("calls", &self.calls).finish_non_exhaustive()
    }
}

impl FaultStore {
    async fn new() -> Self {
        let inner = MemoryStore::new();
        inner.create_table(&ecommerce_table(TABLE)).await.unwrap();
        FaultStore {
            inner,
            throttle_every: 0,
            unprocessed_percent: 0,
            poisoned: Arc::new(|_| false),
            invalid: Arc::new(|_| false),
            calls: AtomicUsize::new(0),
            deferred: AtomicUsize::new(0),
            throttled: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
        }
    }

    /// Counts the call; `Err` when this call is to be throttled.
    async fn enter(&self) -> Result<()> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        // Let the other chunks start before this one finishes.
        tokio::task::yield_now().await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        if self.throttle_every > 0 && n % self.throttle_every == 0 {
            self.throttled.fetch_add(1, Ordering::SeqCst);
            return Err(Error::Throttled { message: "injected throttling".into(), source: None });
        }
        Ok(())
    }

    /// Splits `items` into (processed now, left unprocessed).
    fn split<T>(&self, items: Vec<T>, key: impl Fn(&T) -> &Item) -> Result<(Vec<T>, Vec<T>)> {
        if items.iter().any(|i| (self.invalid)(key(i))) {
            return Err(Error::validation("injected validation error"));
        }
        let (poisoned, ok): (Vec<T>, Vec<T>) = items.into_iter().partition(|i| (self.poisoned)(key(i)));
        let defer = ok.len() * self.unprocessed_percent / 100;
        let mut ok = ok;
        let mut left = ok.split_off(ok.len() - defer);
        left.extend(poisoned);
        self.deferred.fetch_add(left.len(), Ordering::SeqCst);
        Ok((ok, left))
    }
}

fn write_key(w: &WriteRequest) -> &Item {
    match w {
        WriteRequest::Put { item, .. } => item,
        WriteRequest::Delete { key, .. } => key,
    }
}

#[async_trait]
impl Store for FaultStore {
    async fn get_item(&self, r: GetRequest) -> Result<GetOutput> {
        self.inner.get_item(r).await
    }
    async fn put_item(&self, r: PutRequest) -> Result<WriteOutput> {
        self.inner.put_item(r).await
    }
    async fn update_item(&self, r: UpdateRequest) -> Result<WriteOutput> {
        self.inner.update_item(r).await
    }
    async fn delete_item(&self, r: DeleteRequest) -> Result<WriteOutput> {
        self.inner.delete_item(r).await
    }
    async fn query(&self, r: QueryRequest) -> Result<Page> {
        self.inner.query(r).await
    }
    async fn scan(&self, r: ScanRequest) -> Result<Page> {
        self.inner.scan(r).await
    }
    async fn batch_get(&self, r: BatchGetRequest) -> Result<BatchGetOutput> {
        self.enter().await?;
        assert!(r.keys.len() <= 100, "{} keys in one BatchGetItem", r.keys.len());
        let (now, later) = self.split(r.keys, |k| &k.key)?;
        let mut out = if now.is_empty() {
            BatchGetOutput::default()
        } else {
            self.inner.batch_get(BatchGetRequest { keys: now, consistent_read: r.consistent_read }).await?
        };
        out.unprocessed_keys.extend(later);
        Ok(out)
    }
    async fn batch_write(&self, r: BatchWriteRequest) -> Result<BatchWriteOutput> {
        self.enter().await?;
        assert!(r.writes.len() <= 25, "{} writes in one BatchWriteItem", r.writes.len());
        let (now, later) = self.split(r.writes, write_key)?;
        let mut out = if now.is_empty() {
            BatchWriteOutput::default()
        } else {
            self.inner.batch_write(BatchWriteRequest { writes: now }).await?
        };
        out.unprocessed.extend(later);
        Ok(out)
    }
    async fn transact_get(&self, r: TransactGetRequest) -> Result<TransactGetOutput> {
        self.inner.transact_get(r).await
    }
    async fn transact_write(&self, r: TransactWriteRequest) -> Result<()> {
        self.inner.transact_write(r).await
    }
    async fn create_table(&self, d: &TableDef) -> Result<()> {
        self.inner.create_table(d).await
    }
    async fn delete_table(&self, n: &str) -> Result<()> {
        self.inner.delete_table(n).await
    }
    async fn describe_table(&self, n: &str) -> Result<TableDescription> {
        self.inner.describe_table(n).await
    }
    async fn update_ttl(&self, t: &str, a: &str, e: bool) -> Result<()> {
        self.inner.update_ttl(t, a, e).await
    }
}

fn product(i: usize) -> Product {
    Product {
        product_id: format!("p{i:04}"),
        name: format!("product {i}"),
        category: format!("c{}", i % 10),
        price_cents: i as u32,
        stock: 1,
    }
}

fn fast(attempts: u32) -> RetryPolicy {
    RetryPolicy { max_attempts: attempts, base_delay: Duration::from_millis(1), max_delay: Duration::from_millis(4) }
}

/// The product number in a key or item (`PK = PRODUCT#p0042`).
fn number_of(item: &Item) -> usize {
    match item.get("PK") {
        Some(AttributeValue::S(pk)) => pk.trim_start_matches("PRODUCT#p").parse().unwrap(),
        other => panic!("no PK: {other:?}"),
    }
}

/// The product numbers stored in the inner store (read without faults).
async fn stored(store: &FaultStore) -> BTreeSet<usize> {
    Product::scan().all(&store.inner).await.unwrap().iter().map(|p| p.price_cents as usize).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_and_reads_1000_items_through_unprocessed_items_and_throttling() {
    let mut store = FaultStore::new().await;
    store.throttle_every = 4;
    store.unprocessed_percent = 30;
    let products: Vec<Product> = (0..1000).map(product).collect();

    let mut batch = BatchWriter::new().retry(fast(20)).concurrency(4);
    batch.put_all(&products).unwrap();
    assert_eq!(batch.len(), 1000);
    let report = batch.send(&store).await.unwrap();
    assert_eq!(report.written, 1000);
    assert!(report.unprocessed.is_empty() && report.errors.is_empty());
    assert!(store.deferred.load(Ordering::SeqCst) > 0 && store.throttled.load(Ordering::SeqCst) > 0, "no fault was injected");
    assert!(report.requests > 40, "40 chunks and retries: {} requests", report.requests);
    assert_eq!(stored(&store).await, (0..1000).collect());

    // Read them back through the same faults, in the order asked (reversed here).
    let keys = (0..1000).rev().map(|i| Product::key(&format!("p{i:04}")).unwrap());
    let got = BatchGet::new(keys).retry(fast(20)).send(&store).await.unwrap();
    assert_eq!(got.len(), 1000);
    assert!(got.iter().zip((0..1000).rev()).all(|(p, i)| *p == product(i)), "items out of order or wrong");

    // Missing keys are simply absent.
    let keys = [5, 5000, 7].map(|i| Product::key(&format!("p{i:04}")).unwrap());
    let got = BatchGet::new(keys).retry(fast(20)).send(&store).await.unwrap();
    assert_eq!(got.iter().map(|p| p.price_cents).collect::<Vec<_>>(), [5, 7]);

    // Deletes (and puts mixed in) go through the same engine.
    let mut batch = BatchWriter::new().retry(fast(20));
    for i in (0..1000).filter(|i| i % 2 == 0) {
        batch.delete(Product::key(&format!("p{i:04}")).unwrap()).unwrap();
    }
    batch.put(&product(1000)).unwrap();
    let report = batch.send(&store).await.unwrap();
    assert_eq!(report.written, 501);
    let expected: BTreeSet<usize> = (0..=1000).filter(|i| i % 2 == 1 || *i == 1000).collect();
    assert_eq!(stored(&store).await, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_left_when_attempts_run_out_are_returned_never_dropped() {
    let mut store = FaultStore::new().await;
    store.throttle_every = 5;
    store.unprocessed_percent = 20;
    store.poisoned = Arc::new(|item| number_of(item) % 7 == 3);
    let poisoned: BTreeSet<usize> = (0..1000).filter(|i| i % 7 == 3).collect();

    let mut batch = BatchWriter::new().retry(fast(6));
    batch.put_all(&(0..1000).map(product).collect::<Vec<_>>()).unwrap();
    match batch.send(&store).await {
        Err(Error::BatchIncomplete { unprocessed_writes, unprocessed_keys, attempts }) => {
            assert!(unprocessed_keys.is_empty());
            assert_eq!(attempts, 6);
            let left: BTreeSet<usize> = unprocessed_writes.iter().map(|w| number_of(write_key(w))).collect();
            assert_eq!(left, poisoned, "the unwritten items returned are exactly the ones not written");
            assert_eq!(unprocessed_writes.len(), poisoned.len(), "an item was returned twice");
        }
        other => panic!("expected BatchIncomplete, got {other:?}"),
    }
    let written: BTreeSet<usize> = (0..1000).filter(|i| !poisoned.contains(i)).collect();
    assert_eq!(stored(&store).await, written);

    // run() reports instead of failing: written + unprocessed = everything.
    let mut batch = BatchWriter::new().retry(fast(6));
    batch.put_all(&(0..1000).map(product).collect::<Vec<_>>()).unwrap();
    let report = batch.run(&store).await;
    assert_eq!(report.written + report.unprocessed.len(), 1000);
    assert_eq!(report.unprocessed.len(), poisoned.len());

    // Reads: poisoned keys come back as unprocessed keys; run() keeps the items read.
    let keys = || (0..1000).map(|i| Product::key(&format!("p{i:04}")).unwrap());
    match BatchGet::new(keys()).retry(fast(6)).send(&store).await {
        Err(Error::BatchIncomplete { unprocessed_keys, unprocessed_writes, .. }) => {
            assert!(unprocessed_writes.is_empty());
            let left: BTreeSet<usize> = unprocessed_keys.iter().map(|k| number_of(&k.key)).collect();
            assert_eq!(left, poisoned);
            assert_eq!(unprocessed_keys.len(), poisoned.len());
        }
        other => panic!("expected BatchIncomplete, got {other:?}"),
    }
    let report = BatchGet::new(keys()).retry(fast(6)).run(&store).await.unwrap();
    let read: BTreeSet<usize> = report.items.iter().map(|p| p.price_cents as usize).collect();
    assert_eq!(read, written);
    assert_eq!(report.items.len() + report.unprocessed.len(), 1000);
}

#[tokio::test]
async fn persistent_throttling_exhausts_attempts_and_returns_everything() {
    let mut store = FaultStore::new().await;
    store.throttle_every = 1;
    let mut batch = BatchWriter::new().retry(fast(3)).concurrency(2);
    batch.put_all(&(0..60).map(product).collect::<Vec<_>>()).unwrap();
    match batch.send(&store).await {
        Err(Error::BatchIncomplete { unprocessed_writes, attempts, .. }) => {
            assert_eq!(unprocessed_writes.len(), 60);
            assert_eq!(attempts, 3);
        }
        other => panic!("expected BatchIncomplete, got {other:?}"),
    }
    assert_eq!(store.calls.load(Ordering::SeqCst), 3 * 3, "3 chunks × 3 attempts");
    assert!(stored(&store).await.is_empty());
}

#[tokio::test]
async fn non_retryable_errors_stop_their_chunk_and_are_reported() {
    let mut store = FaultStore::new().await;
    store.invalid = Arc::new(|item| number_of(item) == 30);
    let mut batch = BatchWriter::new().retry(fast(5));
    batch.put_all(&(0..100).map(product).collect::<Vec<_>>()).unwrap();
    let report = batch.run(&store).await;
    assert_eq!(report.errors.len(), 1);
    assert!(matches!(report.errors[0], Error::Validation { .. }));
    let left: BTreeSet<usize> = report.unprocessed.iter().map(|w| number_of(write_key(w))).collect();
    assert_eq!(left, (25..50).collect(), "the failed chunk's writes are returned");
    assert_eq!(report.written, 75);
    assert_eq!(stored(&store).await, (0..25).chain(50..100).collect());

    // send(): the same, as BatchIncomplete.
    let mut batch = BatchWriter::new().retry(fast(5));
    batch.put_all(&(0..100).map(product).collect::<Vec<_>>()).unwrap();
    assert!(matches!(batch.send(&store).await, Err(Error::BatchIncomplete { unprocessed_writes, .. }) if unprocessed_writes.len() == 25));

    // When every chunk fails with the same error, that error is returned.
    store.invalid = Arc::new(|_| true);
    let mut batch = BatchWriter::new();
    batch.put(&product(1)).unwrap();
    assert!(matches!(batch.send(&store).await, Err(Error::Validation { .. })));
}

#[tokio::test]
async fn duplicate_keys_are_refused_before_sending() {
    let store = FaultStore::new().await;
    let mut batch = BatchWriter::new();
    batch.put(&product(1)).unwrap();
    let err = batch.put(&Product { name: "other".into(), ..product(1) }).map(|_| ()).unwrap_err();
    assert!(matches!(&err, Error::Validation { message } if message.contains("PRODUCT#p0001")), "{err}");
    let err = batch.delete(Product::key("p0001").unwrap()).map(|_| ()).unwrap_err();
    assert!(matches!(err, Error::Validation { .. }));
    assert_eq!(batch.len(), 1);

    let keys = [1, 2, 1].map(|i| Product::key(&format!("p{i:04}")).unwrap());
    let err = BatchGet::new(keys).send(&store).await.unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err}");
    assert_eq!(store.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn requests_in_flight_are_bounded_by_the_concurrency() {
    let store = FaultStore::new().await;
    let mut batch = BatchWriter::new().concurrency(3);
    batch.put_all(&(0..250).map(product).collect::<Vec<_>>()).unwrap();
    let report = batch.send(&store).await.unwrap();
    assert_eq!((report.written, report.requests), (250, 10));
    // Each call yields before finishing, so the engine has the most calls it allows in flight.
    assert_eq!(store.max_in_flight.load(Ordering::SeqCst), 3);

    let keys = (0..250).map(|i| Product::key(&format!("p{i:04}")).unwrap());
    store.max_in_flight.store(0, Ordering::SeqCst);
    let got = BatchGet::new(keys).concurrency(2).send(&store).await.unwrap();
    assert_eq!(got.len(), 250);
    assert_eq!(store.max_in_flight.load(Ordering::SeqCst), 2);
}
